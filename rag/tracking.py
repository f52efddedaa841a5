"""Run tracking (seed): each tracked run leaves ``runs/<timestamp>-<slug>/`` with what it saw and did.

Secrets never reach disk: the config is recorded through ``Config.snapshot()``, which masks keys.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rag.config import Config, slug


def record_run(config: Config, question: str, payload: dict[str, Any]) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = config.runs_path / f"{stamp}-{slug(question)[:48]}"
    folder, n = base, 1
    while folder.exists():
        n += 1
        folder = base.with_name(f"{base.name}-{n}")
    folder.mkdir(parents=True)
    files = {"config.json": config.snapshot(), "question.json": {"question": question}, **payload}
    for name, data in files.items():
        (folder / name).write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
    return folder
