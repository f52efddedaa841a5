"""Run tracking (seed): each tracked run leaves ``runs/<timestamp>-<slug>/`` with what it saw and did.

Secrets never reach disk: the config is recorded through ``Config.snapshot()``, which masks keys.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rag.config import Config, slug
from rag.files import writing
from rag.models import Answer


def record_run(config: Config, asked: str, payload: dict[str, Any]) -> Path:
    """A run's folder under ``runs_path``, named by when and what was ``asked`` (the text, as typed)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = config.runs_path / f"{stamp}-{slug(asked)[:48]}"
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    files = {"config.json": config.snapshot(), "question.json": {"question": asked}, **payload}
    with writing(folder):
        folder.mkdir(parents=True)
        for name, data in files.items():
            (folder / name).write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
    return folder


def record_answer(config: Config, result: Answer) -> Path:
    """A tracked run for an answer (``run`` and chat turns): rewrite, hits, prompt, answer, citations, timings."""
    return record_run(
        config,
        result.question,
        {
            "rewrite.json": result.trace.get("rewrite"),
            "hits.json": result.trace.get("hits", []),
            "prompt.json": result.trace.get("prompt"),
            "answer.json": {
                "text": result.text,
                "refused": result.refused,
                "confidence": result.confidence,
                "support": result.trace.get("support"),
            },
            "citations.json": [{"label": c.label, "chunk_id": c.chunk_id} for c in result.citations],
            "timings.json": result.trace.get("timings", {}),
        },
    )
