"""Settings' "Test" buttons send a saved key only to the address it was saved for. Local listeners record every
request they get: an address typed and not saved is tried with the key typed beside it, or with none (neither
the saved key nor OPENAI_API_KEY), for the answer model and for the store."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rag.config import load_config
from tests.helpers import start, texts

pytestmark = pytest.mark.usefixtures("app_env")

SAVED_KEY = "sk-saved-canary-7731"
ENV_KEY = "sk-environment-canary-5512"
TYPED_KEY = "sk-typed-for-this-server"


class Listener:
    """An HTTP server on 127.0.0.1 that records the headers of every request and answers like an
    OpenAI-compatible model (or an empty Qdrant server): enough for a test to succeed or fail politely."""

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []
        seen = self.seen

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self) -> None:
                seen.append({"path": self.path, **{k.lower(): v for k, v in self.headers.items()}})
                if self.command == "POST":
                    self.rfile.read(int(self.headers.get("Content-Length", 0)))
                    message = {"role": "assistant", "content": "ready"}
                    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m"}
                    body["choices"] = [{"index": 0, "finish_reason": "stop", "message": message}]
                else:
                    body = {"result": {"collections": []}, "status": "ok", "time": 0}
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def credentials(self) -> list[str]:
        """Every credential header it was sent."""
        return [v for h in self.seen for k, v in h.items() if k in ("authorization", "api-key")]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def listeners() -> Iterator[tuple[Listener, Listener]]:
    saved, typed = Listener(), Listener()
    yield saved, typed
    saved.close()
    typed.close()


def test_the_answer_model_test_never_sends_the_saved_key_to_another_address(listeners, monkeypatch):
    saved, other = listeners
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    at = start("pages/settings.py")
    at.radio(key="s_answer_backend").set_value("openai").run()
    at.text_input(key="s_answer_url").set_value(saved.url + "/v1")
    at.text_input(key="s_answer_model").set_value("m")
    at.text_input(key="s_answer_key").set_value(SAVED_KEY)
    at.button(key="s_save_answer").click().run()
    assert load_config().answer.api_key == SAVED_KEY
    assert saved.credentials() == [f"Bearer {SAVED_KEY}"]  # saving asked the model, with the key typed beside it
    # a typed, unsaved address: tried without a key
    at.text_input(key="s_answer_url").set_value(other.url + "/v1").run()
    at.button(key="s_test_answer").click().run()
    assert "answered" in texts(at.success), texts(at.error)
    assert other.seen and other.credentials() == ["Bearer not-needed"] and len(saved.seen) == 1
    # with a key typed beside it: that key, and only that one
    at.text_input(key="s_answer_key").set_value(TYPED_KEY)
    at.button(key="s_test_answer").click().run()
    assert other.credentials()[-1] == f"Bearer {TYPED_KEY}"
    # the saved address gets its saved key
    at.text_input(key="s_answer_key").set_value("")
    at.text_input(key="s_answer_url").set_value(saved.url + "/v1/").run()
    at.button(key="s_test_answer").click().run()
    assert saved.credentials() == [f"Bearer {SAVED_KEY}"] * 2
    assert not any(SAVED_KEY in k or ENV_KEY in k for k in other.credentials())


def test_the_store_test_never_sends_the_saved_key_to_another_address(listeners, monkeypatch):
    saved, other = listeners
    monkeypatch.setenv("CHRONICLER_STORE__URL", saved.url)
    monkeypatch.setenv("CHRONICLER_STORE__BACKEND", "qdrant")
    monkeypatch.setenv("CHRONICLER_STORE__API_KEY", SAVED_KEY)
    at = start("pages/settings.py")
    at.text_input(key="s_url").set_value(other.url).run()
    at.button(key="s_test_store").click().run()
    assert "Connected. Campaigns found: none yet." in texts(at.success), texts(at.error)
    assert other.seen and other.credentials() == [], other.seen  # asked, and without the saved key
    at.text_input(key="s_api_key").set_value(TYPED_KEY)
    at.button(key="s_test_store").click().run()
    assert other.credentials() and set(other.credentials()) == {TYPED_KEY}
    at.text_input(key="s_api_key").set_value("")
    at.text_input(key="s_url").set_value(saved.url).run()
    at.button(key="s_test_store").click().run()
    assert "Connected" in texts(at.success) and SAVED_KEY in saved.credentials()
