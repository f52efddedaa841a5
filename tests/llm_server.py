"""A tiny OpenAI-compatible chat server on 127.0.0.1 (stdlib http.server in a thread) for the real
``openai`` client path: streaming, retries and the errors a player can hit. Non-streaming replies are
scripted per test through ``Handler.reply``; every request is recorded in ``Handler.requests``."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.llm_replay import find_reply, load_replies, request_key

KEY = "sk-test-good"

# Models that stream a scripted answer about tests.helpers.VAULT, each a way a small local model answered in
# issue 39 (Qwen2.5-Coder 1.5B on a llama.cpp server), written for that vault.
SCRIPTED = {
    # copies the label of the prompt's old example instead of one of the passages given
    "copies-example": ["Nostoc offers gold. ", "This is stated in [Session 5 · The Sunken Tavern]."],
    # a real passage's label on an answer it never says
    "invents": [
        "The party paid Nostoc 100 gold pieces for a map of Kraghammer. ",
        "[Session 1 · The Sunken Tavern]",
    ],
    "uncited": ["Vex tamed a bear ", "named Trinket."],  # right, but cites nothing
    "uncited-invents": ["The cook's favourite hat ", "is brown."],  # cites nothing, and no passage says it
    # right, then a sentence of its own no passage holds, neither cited
    "half-invents": ["Vex tamed a bear named Trinket. ", "The bear later became king of the dwarves."],
    "right": ["Vex tames a bear named Trinket. ", "[Session 3 · The Underdark]"],
    "paraphrases": ["Vex's new bear is called Trinket. ", "[Session 3 · The Underdark]"],  # right, in its own words
}


def _tokens(body: dict) -> int:
    """What a request takes of a model's context: its messages at the 4.76 characters a token Qwen2.5's tokenizer
    counted for 20 passages of the notes (16,000 characters, 3,361 tokens), a few for the chat template, and the
    reply's room (``max_tokens``)."""
    chars = sum(len(m.get("content", "")) for m in body.get("messages", []))
    return int(chars / 4.76) + 8 * len(body.get("messages", [])) + int(body.get("max_tokens") or 0)


REPLAYS = load_replies()  # "replay:<name>": a real model's recorded replies (tests.llm_replay)


class Handler(BaseHTTPRequestHandler):
    failures_left = 0  # answer 503 this many times first (to exercise retries)
    slow_seconds = 6.0  # "slow-model" waits this long before it answers, like a busy local model
    requests: list[dict] = []
    names_its_context = True  # "ctx-2048" says its context length when it refuses a request as too long
    reply = staticmethod(lambda body: "What did Herris give Vox Machina?")  # non-streaming replies

    def log_message(self, *args):
        pass

    def _json(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (a time-out test)
            self._answer()

    def _answer(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        Handler.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        if Handler.failures_left > 0:
            Handler.failures_left -= 1
            return self._json(503, {"error": {"message": "busy", "type": "server_error"}})
        if self.headers.get("Authorization") != f"Bearer {KEY}":
            return self._json(
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
        model = body.get("model")
        if model == "ctx-2048" and _tokens(body) > 2048:  # llama-cpp-python's server at its default n_ctx
            said = (
                f"This model's maximum context length is 2048 tokens. However, you requested {_tokens(body)} "
                "tokens. Please reduce the length of the messages or completion."
                if Handler.names_its_context
                else "The request exceeds the available context size."
            )
            return self._json(
                400,
                {
                    "error": {
                        "message": said,
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                    }
                },
            )
        if model == "tiny-context":
            return self._json(
                400,
                {
                    "error": {
                        "message": "This model's maximum context length is 8 tokens",
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                    }
                },
            )
        if model == "slow-model":
            time.sleep(Handler.slow_seconds)
        elif model not in ("known-model", "breaks-off", "ctx-2048", *SCRIPTED, *REPLAYS):
            return self._json(404, {"error": {"message": f"model '{model}' not found", "type": "not_found"}})
        pieces = SCRIPTED.get(model) or ["Herris gives them ", "a map of the mines. ", "[Session 2 · Part 11]"]
        reply = Handler.reply(body)
        if model in REPLAYS:
            recorded = find_reply(REPLAYS[model], body.get("messages", []))
            if recorded is None:  # a clear failure, never an invented reply: record this question first
                key = request_key(body.get("messages", []))
                return self._json(500, {"error": {"message": f"nothing recorded for {key}", "type": "server_error"}})
            pieces, reply = recorded["pieces"], "".join(recorded["pieces"])
        if not body.get("stream"):
            return self._json(
                200,
                {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": reply},
                        }
                    ],
                },
            )
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        if model == "breaks-off":  # one piece, then the connection drops: a server that dies mid-answer
            pieces = pieces[:1]
            self.send_header("Content-Length", "100000")  # promised, never sent
        self.end_headers()
        for piece in pieces:
            event = {
                "id": "x",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
            }
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.flush()
        if model == "breaks-off":
            self.close_connection = True
            return
        self.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture(scope="module", name="llm_server")
def llm_server_fixture():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()
