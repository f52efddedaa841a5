"""A Qdrant server for tests that can go down and come back: Qdrant's REST API, served over real HTTP from
qdrant-client's own in-process engine (``QdrantClient(":memory:")``), for the routes Chronicler's ``qdrant``
store uses. No Qdrant server binary ships on PyPI, so this is how a test talks to "a server" at a URL.

``QdrantServer.stop()`` closes the listening socket (the server is down: connections are refused) and keeps the
data; ``start()`` listens again on the same port, as a restarted server with its storage would.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from qdrant_client import QdrantClient, models

_ROUTES: list[tuple[str, re.Pattern, str]] = [
    (method, re.compile(rf"^/collections{path}$"), name)
    for method, path, name in [
        ("GET", "", "collections"),
        ("GET", r"/(?P<c>[^/]+)/exists", "exists"),
        ("GET", r"/(?P<c>[^/]+)", "info"),
        ("PUT", r"/(?P<c>[^/]+)", "create"),
        ("DELETE", r"/(?P<c>[^/]+)", "drop"),
        ("PUT", r"/(?P<c>[^/]+)/index", "index"),
        ("POST", r"/(?P<c>[^/]+)/points/count", "count"),
        ("POST", r"/(?P<c>[^/]+)/points/scroll", "scroll"),
        ("PUT", r"/(?P<c>[^/]+)/points", "upsert"),
        ("POST", r"/(?P<c>[^/]+)/points/delete", "delete"),
        ("POST", r"/(?P<c>[^/]+)/points/batch", "batch"),
        ("POST", r"/(?P<c>[^/]+)/points", "retrieve"),
        ("POST", r"/(?P<c>[^/]+)/points/query", "query"),
    ]
]


def _dump(value: Any) -> Any:
    if isinstance(value, list):
        return [_dump(v) for v in value]
    return value.model_dump(mode="json", exclude_none=True) if hasattr(value, "model_dump") else value


class _Engine:
    """Each route as the in-process engine's call; returns the REST ``result``."""

    def __init__(self) -> None:
        self.db = QdrantClient(location=":memory:")
        self.lock = threading.Lock()

    def call(self, name: str, c: str | None, body: dict) -> Any:
        db = self.db
        if name == "collections":
            return _dump(db.get_collections())
        if name == "exists":
            return {"exists": db.collection_exists(c)}
        if name == "info":
            return _dump(db.get_collection(c))
        if name == "create":
            req = models.CreateCollection(**body)
            return db.create_collection(c, vectors_config=req.vectors, sparse_vectors_config=req.sparse_vectors)
        if name == "drop":
            return db.delete_collection(c)
        if name == "index":
            req = models.CreateFieldIndex(**body)
            db.create_payload_index(c, req.field_name, req.field_schema)
            return {"operation_id": 0, "status": "completed"}
        if name == "count":
            req = models.CountRequest(**body)
            return _dump(db.count(c, count_filter=req.filter, exact=req.exact if req.exact is not None else True))
        if name == "scroll":
            req = models.ScrollRequest(**body)
            points, offset = db.scroll(
                c,
                scroll_filter=req.filter,
                limit=req.limit or 10,
                offset=req.offset,
                with_payload=req.with_payload,
                with_vectors=bool(req.with_vector),
            )
            return {"points": _dump(points), "next_page_offset": offset}
        if name == "upsert":
            points = body.get("points")
            db.upsert(c, points=[models.PointStruct(**p) for p in points] if points else models.Batch(**body["batch"]))
            return {"operation_id": 0, "status": "completed"}
        if name == "delete":
            db.delete(c, points_selector=models.PointIdsList(**body))
            return {"operation_id": 0, "status": "completed"}
        if name == "batch":
            db.batch_update_points(c, update_operations=models.UpdateOperations(**body).operations)
            return [{"operation_id": 0, "status": "completed"}]
        if name == "retrieve":
            req = models.PointRequest(**body)
            return _dump(db.retrieve(c, ids=req.ids, with_payload=req.with_payload, with_vectors=req.with_vector))
        if name == "query":
            req = models.QueryRequest(**body)
            result = db.query_points(
                c,
                query=req.query,
                using=req.using,
                limit=req.limit or 10,
                query_filter=req.filter,
                with_payload=req.with_payload,
            )
            return _dump(result)
        raise KeyError(name)


class QdrantServer:
    """``url`` stays the same across ``stop()`` and ``start()``; ``requests`` counts what it answered. With
    ``dies_after`` set, every request past that many gets no answer at all (a server that crashed mid-run);
    ``answered`` names the route of each request answered."""

    def __init__(self) -> None:
        self.engine = _Engine()
        self.requests = 0
        self.answered: list[str] = []  # the route of every request answered, in order
        self.dies_after: int | None = None
        self._httpd: ThreadingHTTPServer | None = None
        self.port = 0
        self.start()
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _handle(self) -> None:
                if server.dies_after is not None and server.requests >= server.dies_after:
                    self.close_connection = True  # the connection drops without a response
                    return
                path = self.path.split("?", 1)[0]
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}") if length else {}
                found = [
                    (n, m) for method, pattern, n in _ROUTES if method == self.command and (m := pattern.match(path))
                ]
                if not found:
                    return self._send(404, {"status": {"error": f"no route {self.command} {path}"}})
                name, m = found[0]
                try:
                    with server.engine.lock:
                        result = server.engine.call(name, m.groupdict().get("c"), body)
                except Exception as err:  # as a server would: an error status with the reason
                    status = 404 if "not found" in str(err).lower() else 400
                    return self._send(status, {"status": {"error": str(err)}, "result": None})
                server.requests += 1
                server.answered.append(name)
                self._send(200, {"result": result, "status": "ok", "time": 0.0})

            def _send(self, code: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = _handle

        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        """Down: the socket is closed, so connections are refused; the data stays."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
