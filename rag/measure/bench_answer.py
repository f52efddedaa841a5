"""``python -m rag bench answer``: question → first answer token, and a whole chat turn, warm.

What a player waits for in the chat: retrieval plus the answerer up to the first streamed piece (the
issue's target: ≤ 3 s on 2 cores with the offline default), and the whole turn including a follow-up
question that is rewritten from the history first. The notes are indexed into a fresh temporary store,
so a running app's store (and its folder lock) is never touched.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from rag.config import Config
from rag.measure.bench_query import QUESTIONS
from rag.measure.stats import p50_p95
from rag.pipeline import Pipeline

FOLLOW_UP = "And what happened after that?"
TARGET_FIRST_TOKEN_S = 3.0


def bench_answer(config: Config, notes_dir: Path, log=print) -> dict:
    with tempfile.TemporaryDirectory(prefix="chronicler-bench-") as tmp:
        cfg = config.model_copy(
            update={
                "data_dir": tmp,
                "campaign": "bench",
                "store": config.store.model_copy(update={"path": None, "url": None}),
            }
        )
        pipeline = Pipeline(cfg)
        try:
            log("indexing the notes into a temporary store…")
            report = pipeline.index(notes_dir, "bench")
            generator = pipeline.generator
            pipeline.answer(QUESTIONS[0], "bench")  # warm-up
            first, whole, follow = [], [], []
            for q in QUESTIONS:
                t0 = time.perf_counter()
                stream = pipeline.ask(q, "bench")
                pieces = iter(stream)
                next(pieces, None)
                first.append(time.perf_counter() - t0)
                for _ in pieces:
                    pass
                whole.append(time.perf_counter() - t0)
                answer_text = stream.answer.text
                t0 = time.perf_counter()
                pipeline.answer(FOLLOW_UP, "bench", history=[(q, answer_text)])
                follow.append(time.perf_counter() - t0)
            log(f"first token p50 {statistics.median(first):.2f} s over {len(first)} questions")
        finally:
            pipeline.close()
    return {
        "chunks": report.chunks,
        "generator": generator.name,
        "n": len(QUESTIONS),
        "first": _stats(first),
        "whole": _stats(whole),
        "follow": _stats(follow),
    }


def _stats(values: list[float]) -> tuple[float, float]:
    return p50_p95(values, digits=2)


def answer_markdown(r: dict, notes: str, command: str, machine: str) -> str:
    ok = "✅" if r["first"][0] <= TARGET_FIRST_TOKEN_S else "❌"
    return "\n".join(
        [
            "## Answers: first token and chat turns (`bench answer`)",
            "",
            f"Command: `{command}`. Machine: {machine}. Notes: `{notes}` ({r['chunks']} passages, indexed into a "
            f"fresh temporary store). Answerer: `{r['generator']}`, warm (model loaded, one warm-up question). "
            f"p50 / p95 over {r['n']} questions, through `Pipeline.ask` as the chat page calls it.",
            "",
            "| measure | p50 / p95 | target |",
            "|---|---|---|",
            f"| question → first answer token | **{r['first'][0]} s** / {r['first'][1]} s | ≤ {TARGET_FIRST_TOKEN_S:g} s {ok} |",
            f"| chat turn: question → whole answer | {r['whole'][0]} s / {r['whole'][1]} s | |",
            f"| follow-up turn (rewritten from the history first) | {r['follow'][0]} s / {r['follow'][1]} s | |",
        ]
    )
