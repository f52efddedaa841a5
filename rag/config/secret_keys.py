"""API keys live outside ``configs/``: in ``.streamlit/secrets.toml`` (git-ignored, where Streamlit keeps
secrets) or in the environment. A key typed in Settings is written there, never into ``configs/local.yaml``,
which people copy, share and paste into bug reports.

The file may hold other things (the GM passphrase, a user's own secrets): Chronicler reads and writes only its
own block at the end, ``[chronicler.<section>] api_key = "…"``, between two marker comments, and leaves every
other line as it was.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from rag.config.schema import PROJECT_ROOT, SECRETS_FILE_ENV
from rag.errors import ConfigError
from rag.files import write_text

SECTIONS = ("embedding", "store", "answer")  # the config sections that have an ``api_key``
BEGIN, END = "# --- API keys saved by Chronicler's Settings page ---", "# --- end of Chronicler's API keys ---"


def secrets_path() -> Path:
    return Path(os.environ.get(SECRETS_FILE_ENV) or PROJECT_ROOT / ".streamlit" / "secrets.toml")


def read_keys(path: Path | None = None) -> dict[str, Any]:
    """``{"answer": {"api_key": "…"}, …}`` from the file's ``[chronicler.*]`` tables; {} without a file."""
    path = path or secrets_path()
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"Cannot read {path}: {str(err).splitlines()[0]}") from None
    ours = data.get("chronicler") if isinstance(data.get("chronicler"), dict) else {}
    return {
        s: {"api_key": str(v["api_key"])}
        for s, v in ours.items()
        if s in SECTIONS and isinstance(v, dict) and v.get("api_key")
    }


def write_keys(keys: dict[str, str | None], path: Path | None = None) -> None:
    """Set (a string) or remove (None) the API key of each section named in ``keys``."""
    path = path or secrets_path()
    current = {s: v["api_key"] for s, v in read_keys(path).items()}
    for section, value in keys.items():
        if value:
            current[section] = value
        else:
            current.pop(section, None)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if BEGIN in text:
        head, _, rest = text.partition(BEGIN)
        text = head.rstrip("\n") + ("\n" if head.strip() else "") + rest.partition(END)[2].lstrip("\n")
    block = "".join(f"\n[chronicler.{s}]\napi_key = {json.dumps(v)}\n" for s, v in sorted(current.items()))
    if block:
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + f"{BEGIN}{block}{END}\n"
    write_text(path, text, mode=0o600)  # readable by its owner only, like any file of secrets
