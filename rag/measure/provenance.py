"""Where a measured number comes from: the commit it was measured on, and how its configuration differs from the
shipped default. Recorded in every eval JSON, so a number in docs/EVALUATION.md can be traced and rerun."""

from __future__ import annotations

import subprocess
from typing import Any

from rag.config import CONFIG_DIR, PROJECT_ROOT, Config, read_yaml, validate

# Where a run reads and writes, not how it answers: never a "difference" worth reporting
_PLACES = {"data_dir", "notes_dir", "campaign", "store.path", "embedding.cache_dir"}


CODE = ("rag", "configs", "scripts", "requirements.txt")  # what decides a number (docs and tests do not)


def commit() -> str:
    """The checkout's commit, with "+changes" when its code or settings differ from it; "unknown" outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", *CODE],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if dirty else "")


def _flat(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def config_difference(config: Config) -> dict[str, Any]:
    """Dotted settings whose value differs from ``configs/base.yaml`` (places to read and write left out)."""
    default = _flat(validate(read_yaml(CONFIG_DIR / "base.yaml")).snapshot())
    mine = _flat(config.snapshot())
    return {k: v for k, v in mine.items() if k not in _PLACES and default.get(k) != v}
