"""Backend ``qdrant``: qdrant-client, one code path for a server, ``:memory:`` and an embedded folder.

``store.url`` (+ ``api_key``): a Qdrant server or cluster; ``store.path == ":memory:"``: in the process (tests);
otherwise the embedded folder (``QdrantClient(path=...)``).

Keyword search is Qdrant's own BM25 over a full-text index on ``text`` (``TextQuery``), and the "context"
stage the same over ``context`` (the passage with its neighbours, or alone), so no tokenizer or sparse
vectors live in this project. The index uses the default ``word`` tokenizer, lowercased, with no stemming
and no stopwords: local mode implements BM25 only for that, and one setting keeps laptop and server alike.

Local mode (folder or ``:memory:``) is plain Python and not thread-safe: two threads upserting at once lose
points (measured). Streamlit serves each session from its own thread, so local-mode calls take a lock.

Missing collections: ``count``/``stored_hashes``/``chunks`` return empty, ``delete``/``drop`` do nothing,
searches and ``upsert`` raise ``CampaignNotFoundError`` (an empty result would look like "the notes don't say").
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import portalocker
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from rag.config import Config
from rag.errors import CampaignNotFoundError, OtherModelError, StoreError, StoreLockedError
from rag.models import Chunk, Filters
from rag.stores import ScoredChunks, Store, check_batch, filter_conditions

VECTOR = "dense"
TEXT = "text"
CONTEXT = "context"
# Searches and listings never need a passage's neighbours' text back: it is only searched.
READ_PAYLOAD = models.PayloadSelectorExclude(exclude=[CONTEXT])
BATCH = 256  # points per upsert request: ~1 MB of JSON at 384-d, well under a server's 32 MB limit
PAGE = 1000  # points per scroll page
INDEXES: dict[str, Any] = {
    "session": models.PayloadSchemaType.FLOAT,
    "campaign": models.PayloadSchemaType.KEYWORD,
    "campaign_no": models.PayloadSchemaType.INTEGER,
    "source": models.PayloadSchemaType.KEYWORD,
    "entities": models.PayloadSchemaType.KEYWORD,
    "kind": models.PayloadSchemaType.KEYWORD,
    "sender_keys": models.PayloadSchemaType.KEYWORD,  # e-mail chunks only (see Chunk.payload)
    "subject_words": models.PayloadSchemaType.KEYWORD,
    "visibility": models.PayloadSchemaType.KEYWORD,  # every player-view query excludes "gm"
}
TEXT_INDEX = models.TextIndexParams(
    type=models.TextIndexType.TEXT,
    tokenizer=models.TokenizerType.WORD,
    lowercase=True,
    scoring=models.TextScoringParams(type=models.TextScoringType.BM25),
)


def build_filter(filters: Filters | None) -> models.Filter | None:
    must: list[models.Condition] = []
    must_not: list[models.Condition] = []
    for key, how, value in filter_conditions(filters):
        if how == "not":
            must_not.append(models.FieldCondition(key=key, match=models.MatchValue(value=value)))
        elif how == "range":
            must.append(models.FieldCondition(key=key, range=models.Range(gte=value[0], lte=value[1])))
        elif how == "any":
            must.append(models.FieldCondition(key=key, match=models.MatchAny(any=value)))
        else:
            must.append(models.FieldCondition(key=key, match=models.MatchValue(value=value)))
    return models.Filter(must=must or None, must_not=must_not or None) if must or must_not else None


class QdrantStore(Store):
    def __init__(self, config: Config):
        self._prefix = config.store.collection_prefix
        self._url = config.store.url
        self._mutex: Any = nullcontext() if self._url else threading.RLock()
        self._sizes: dict[str, int | None] = {}  # collection → its vector size (``_size``)
        if self._url:
            self._where = f"the Qdrant server at {self._url}"
            # check_compatibility would make a request here and only warn; the probe below raises instead
            self._client = QdrantClient(
                url=self._url, api_key=config.store.api_key, timeout=30, check_compatibility=False
            )
            with self._guard():
                self._client.get_collections()
        elif config.store_path == ":memory:":
            self._where = "the in-memory store"
            self._client = QdrantClient(location=":memory:")
        else:
            path = Path(config.store_folder("qdrant"))
            self._where = f"the store folder {path}"
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StoreError(f"Cannot create the store folder {path}: {err.strerror}.") from None
            if is_locked(path):  # qdrant-client leaks its lock file's handle when it finds the lock taken
                raise StoreLockedError(f"The store folder {path} is in use by another program.")
            try:
                self._client = QdrantClient(path=str(path))
            except RuntimeError as err:  # taken between the check and here
                if "already accessed" not in str(err):
                    raise
                raise StoreLockedError(f"The store folder {path} is in use by another program.") from None

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Every client call runs in here: local mode one at a time, and server trouble becomes a
        one-line ``StoreError``; local-mode errors pass through."""
        try:
            with self._mutex:
                yield
        except ResponseHandlingException as err:
            reason = str(err.source).rstrip(".") or type(err.source).__name__
            raise StoreError(f"Cannot reach {self._where}: {reason}.") from None
        except UnexpectedResponse as err:
            detail = err.content.decode("utf-8", "replace")[:200].strip()
            raise StoreError(
                f"{self._where[0].upper()}{self._where[1:]} refused the request "
                f"({err.status_code} {err.reason_phrase}): {detail}"
            ) from None

    def _exists(self, name: str) -> bool:
        with self._guard():
            return self._client.collection_exists(name)

    # -- collections ---------------------------------------------------------------------------

    def ensure_collection(self, name: str, dim: int) -> bool:
        self._sizes.pop(name, None)
        with self._guard():
            if self._client.collection_exists(name):
                vectors = self._client.get_collection(name).config.params.vectors
                current = vectors.get(VECTOR) if isinstance(vectors, dict) else None
                if current is not None and current.size == dim:
                    self._ensure_context_index(name)
                    return False
                self._client.delete_collection(name)
            self._client.create_collection(
                name, vectors_config={VECTOR: models.VectorParams(size=dim, distance=models.Distance.COSINE)}
            )
            self._client.create_payload_index(name, TEXT, TEXT_INDEX)
            self._client.create_payload_index(name, CONTEXT, TEXT_INDEX)
            if self._url:  # local mode ignores other payload indexes (and warns); filters scan instead
                for key, schema in INDEXES.items():
                    self._client.create_payload_index(name, key, schema)
        return True

    def _ensure_context_index(self, name: str) -> None:
        """Collections made before the context stage (or GM secrets) lack its index."""
        schema = self._client.get_collection(name).payload_schema or {}
        if CONTEXT not in schema:
            self._client.create_payload_index(name, CONTEXT, TEXT_INDEX)
        if self._url and "visibility" not in schema:
            self._client.create_payload_index(name, "visibility", INDEXES["visibility"])

    def collections(self) -> list[str]:
        """This project's collections only (``store.collection_prefix``): a server may hold others."""
        with self._guard():
            names = [c.name for c in self._client.get_collections().collections]
        return sorted(n for n in names if n.startswith(self._prefix))

    def drop(self, name: str) -> None:
        self._sizes.pop(name, None)
        with self._guard():
            if self._client.collection_exists(name):
                self._client.delete_collection(name)

    def count(self, name: str, filters: Filters | None = None) -> int:
        if not self._exists(name):
            return 0
        with self._guard():
            return self._client.count(name, count_filter=build_filter(filters), exact=True).count

    # -- points --------------------------------------------------------------------------------

    def _scroll(self, name: str, with_payload: Any, scroll_filter: models.Filter | None = None) -> Iterator[Any]:
        if not self._exists(name):
            return
        offset = None
        while True:
            with self._guard():
                points, offset = self._client.scroll(
                    name,
                    scroll_filter=scroll_filter,
                    limit=PAGE,
                    offset=offset,
                    with_payload=with_payload,
                    with_vectors=False,
                )
            yield from points
            if offset is None:
                return

    def stored_hashes(self, name: str) -> dict[str, str]:
        return {str(p.id): (p.payload or {}).get("stored_hash", "") for p in self._scroll(name, ["stored_hash"])}

    def upsert(self, name: str, chunks: Sequence[Chunk], vectors: np.ndarray, stored_hashes: Sequence[str]) -> None:
        vectors = check_batch(chunks, vectors, stored_hashes)
        points = [
            models.PointStruct(id=c.id, vector={VECTOR: v.tolist()}, payload=_payload(c, h))
            for c, v, h in zip(chunks, vectors, stored_hashes, strict=True)
        ]
        for start in range(0, len(points), BATCH):
            with self._existing(name):
                self._client.upsert(name, points=points[start : start + BATCH], wait=True)

    def delete(self, name: str, ids: Sequence[str]) -> None:
        if ids and self._exists(name):
            with self._guard():
                self._client.delete(name, points_selector=models.PointIdsList(points=list(ids)), wait=True)

    def rewrite_payload(self, name: str, chunks: Sequence[Chunk], stored_hashes: Sequence[str]) -> None:
        operations = [
            models.OverwritePayloadOperation(overwrite_payload=models.SetPayload(payload=_payload(c, h), points=[c.id]))
            for c, h in zip(chunks, stored_hashes, strict=True)
        ]
        for start in range(0, len(operations), BATCH):
            with self._existing(name):
                self._client.batch_update_points(name, update_operations=operations[start : start + BATCH], wait=True)

    def vectors(self, name: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        with self._existing(name):  # only ever asked for points it just listed
            points = self._client.retrieve(name, ids=list(ids), with_payload=False, with_vectors=[VECTOR])
        return {str(p.id): np.asarray(p.vector[VECTOR], dtype=np.float32) for p in points}

    def chunks(self, name: str, source: str | None = None, filters: Filters | None = None) -> list[Chunk]:
        filters = filters or Filters()
        flt = build_filter(replace(filters, sources=(source,)) if source is not None else filters)
        found = [Chunk.from_payload(p.payload) for p in self._scroll(name, READ_PAYLOAD, flt)]
        return sorted(found, key=lambda c: (c.source, c.position))

    # -- search --------------------------------------------------------------------------------

    @contextmanager
    def _existing(self, name: str) -> Iterator[None]:
        """Like ``_guard``; a failure on a missing collection becomes ``CampaignNotFoundError``.
        Checked only after a failure, so the common path costs no extra round trip."""
        try:
            with self._guard():
                yield
        except (ValueError, StoreError):  # local mode: ValueError; server: 404 → StoreError
            if not self._exists(name):
                raise CampaignNotFoundError(f"There is no collection '{name}' in {self._where}.") from None
            raise

    def _query(self, name: str, query: Any, using: str, limit: int, filters: Filters | None) -> ScoredChunks:
        with self._existing(name):
            result = self._client.query_points(
                name,
                query=query,
                using=using,
                limit=limit,
                query_filter=build_filter(filters),
                with_payload=READ_PAYLOAD,
            )
        return [(Chunk.from_payload(p.payload), float(p.score)) for p in result.points]

    def dense_search(self, name: str, vector: np.ndarray, limit: int, filters: Filters | None = None) -> ScoredChunks:
        values = np.asarray(vector, dtype=np.float32).ravel().tolist()
        if self._size(name) not in (None, len(values)):  # another process may have made it again since: ask anew
            self._sizes.pop(name, None)
            if self._size(name) not in (None, len(values)):  # the engine would refuse it in its own words
                raise OtherModelError()
        return self._query(name, values, VECTOR, limit, filters)

    def _size(self, name: str) -> int | None:
        """The collection's vector size, asked once (a server round trip) and forgotten when it is made again."""
        if name not in self._sizes:
            with self._existing(name):
                vectors = self._client.get_collection(name).config.params.vectors
            current = vectors.get(VECTOR) if isinstance(vectors, dict) else None
            self._sizes[name] = current.size if current is not None else None
        return self._sizes[name]

    def keyword_search(
        self, name: str, text: str, limit: int, filters: Filters | None = None, context: bool = False
    ) -> ScoredChunks:
        """BM25 over ``text`` (or ``context``); a query with no word characters finds nothing."""
        if not any(ch.isalnum() for ch in text):
            if not self._exists(name):
                raise CampaignNotFoundError(f"There is no collection '{name}' in {self._where}.")
            return []
        return self._query(name, models.TextQuery(text=text), CONTEXT if context else TEXT, limit, filters)

    def close(self) -> None:
        """Releases the folder lock; qdrant-client's close is idempotent, so this is too."""
        with self._mutex:
            self._client.close()


def is_locked(path: Path) -> bool:
    """Whether another client holds ``<path>/.lock``, the file qdrant-client's local mode locks."""
    lock = path / ".lock"
    if not lock.exists():
        return False
    with open(lock, "a") as handle:
        try:
            portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
        except portalocker.exceptions.LockException:
            return True
        portalocker.unlock(handle)
    return False


def _payload(chunk: Chunk, stored_hash: str) -> dict[str, Any]:
    """A point's payload: the chunk's, its neighbours' text for the context keyword index, its stored hash."""
    return {**chunk.payload(), CONTEXT: chunk.context or chunk.text, "stored_hash": stored_hash}


def create(config: Config) -> QdrantStore:
    return QdrantStore(config)
