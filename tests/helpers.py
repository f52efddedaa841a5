"""Helpers shared by test modules: small vaults, and driving the app with AppTest.

Fixtures live in conftest.py; these are plain functions and data a test imports by name (a test module is
never imported by another as a library of helpers).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app import state as app_state
from rag.config import load_config
from rag.models import Filters
from rag.stores import get_store

# The dev sets (shared/data/README.md) sit beside a checkout, here and in CI; a plain clone has none, and the tests
# that read them skip with ``needs_shared``.
SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "data"
needs_shared = pytest.mark.skipif(
    not SHARED.is_dir(), reason="../shared/data (the dev sets) is not beside this checkout"
)

# A five-note campaign for retrieval stages: names only in some passages, a reference page, and a bullet
# (the illithid) found only through its neighbour.
SMALL_CAMPAIGN = {
    "Session 1.md": "# Session Start\n## Road\n- The party travels north along the river road toward the "
    "mountains, camping twice and trading stories about their families by the fire.\n",
    "Session 2.md": "# Session Start\n## City\n- In [[Vasselheim]] they visit the Platinum Sanctuary and ask the "
    "priests about the Calamity, but the priests refuse to say anything more about it.\n",
    "Session 3.md": "# Session Start\n## Return\n- Back in [[Vasselheim]], the [[Osiris|Keeper]] finally tells "
    "them the truth about the Calamity and hands Vex a sealed letter for her brother.\n",
    "NPCs/Osiris.md": "# Osiris\nAn ancient sphinx guarding forbidden knowledge beneath a cathedral.\n",
    "Session 4.md": "# Session Start\n## Tunnels\n- Deep in the tunnels the party meets Clarota, an outcast that "
    "has been hiding from his own kind for many months and watching the duergar patrols.\n"
    "- It is a scarred, filthy and desperate illithid, and it begs them for help against the "
    "duergar, promising to lead them to the lost dwarven forges in return.\n",
}


# The engine room's words: never visible to a player outside an "Advanced" expander or tab (test_player_words.py,
# test_walkthrough_browser.py).
FORBIDDEN = [
    "dense",
    "sparse",
    "BM25",
    "RRF",
    "fused",
    "hybrid",
    "top-k",
    "threshold",
    "embedding",
    "cross-encoder",
    "late interaction",
    "Qdrant",
    "chunk",
    "payload",
    "candidates",
    "extractive",
    "below the floor",  # the answerer's refusal rule, said in the chat's "In short" in a player's words
]
ENGINE_ROOM = re.compile(r"(?<![\w-])(" + "|".join(re.escape(w) for w in FORBIDDEN) + r")", re.IGNORECASE)


TESTS = Path(__file__).resolve().parent
APP = str(TESTS.parent / "streamlit_app.py")
TIMEOUT = 60

VAULT = {
    "Session 1.md": "# Session Start\n## The Sunken Tavern\n"
    "- The party meets [[Grog]] at the Sunken Tavern in [[Kraghammer]].\n"
    "- A dwarf named [[Nostoc]] offers gold to find missing miners.\n",
    "Session 2.md": "# Session Start\n## Into the Mines\n"
    "- The party descends into the mines below Kraghammer.\n"
    "- [[Grog]] smashes a duergar patrol with his greataxe.\n",
    "Session 3.md": "# Session Start\n## The Underdark\n"
    "- Deep in the Underdark the party finds a mind flayer colony.\n"
    "- [[Vex'ahlia|Vex]] tames a bear named [[Trinket]].\n",
    "People/Grog.md": "# Grog\n- Goliath barbarian, strongest of the party.\n",
}


# What several players ask of VAULT at once (test_concurrency.py, test_concurrency_browser.py); the last is unanswerable.
CONCURRENT_QUESTIONS = [
    "Which bear did Vex tame?",
    "What did Nostoc offer?",
    "Who smashed the duergar patrol?",
    "Where did the party meet Grog?",
    "What colour is the cook's favourite hat?",
]


def write_notes(folder: Path, notes: dict[str, str]) -> Path:
    for name, text in notes.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def write_vault(root: Path) -> Path:
    return write_notes(root, VAULT)


def start(page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, at.exception
    if page:
        at.switch_page(page)
        at.run()
        assert not at.exception, at.exception
    return at


def indexed(tmp_path: Path, campaign: str = "demo") -> None:
    """Index the small vault the way the pages do (through the app's cached store)."""
    config = load_config()
    app_state.pipeline(config).index(write_vault(tmp_path / "vault"), campaign)
    app_state.changed()


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


def plotly(at: AppTest, index: int) -> dict:
    return json.loads(at.get("plotly_chart")[index].proto.spec)


# -- the CLI and the app in a child process (to kill it, or starve it of disk) ---------------------------


def child_env(data: Path, **settings: str) -> dict[str, str]:
    """No CHRONICLER_ variable of this process; the fake embedder, local.yaml beside ``data``, ``settings``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHRONICLER_")}
    env.update(CHRONICLER_EMBEDDING__BACKEND="fake", CHRONICLER_LOCAL_CONFIG=str(data.parent / "local.yaml"))
    return env | settings


def child(script: str, args: list[str], env: dict[str, str], file_limit: int | None = None) -> subprocess.Popen:
    """``python tests/<script> args…``; with ``file_limit`` no file may grow past that many bytes (file_limit.py)."""
    limit = [str(TESTS / "file_limit.py"), str(file_limit)] if file_limit is not None else []
    command = [sys.executable, *limit, str(TESTS / script), *args]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def index_cli(data: Path, notes: Path, campaign: str, *settings: str, file_limit: int | None = None):
    """``python -m rag index`` with the fake embedder (fake_cli.py) into the data folder ``data``."""
    args = ["index", "--notes", str(notes), "--campaign", campaign, "--data", str(data)]
    return child("fake_cli.py", args + [a for s in settings for a in ("--set", s)], child_env(data), file_limit)


def ingest_page(data: Path, notes: Path, campaign: str, file_limit: int | None = None, **settings: str):
    """The Ingest page in a child process (ingest_app.py), uploading the notes of ``notes`` into ``campaign``."""
    place = {"DATA_DIR": data, "NOTES_DIR": data.parent / "no-demo", "SECRETS_FILE": data.parent / "secrets.toml"}
    env = child_env(data, CHRONICLER_CAMPAIGN=campaign, **{f"CHRONICLER_{k}": str(v) for k, v in place.items()})
    return child("ingest_app.py", [str(notes)], env | settings, file_limit)


def stored(data: Path, campaign: str) -> tuple[int, dict[str, str]]:
    """(passages, id → stored hash) of a campaign in the data folder ``data``, every passage (the GM view)."""
    config = load_config(overrides={"data_dir": str(data), "embedding.backend": "fake"})
    store = get_store(config)
    try:
        collection = config.collection(campaign)
        return store.count(collection, Filters(view="gm")), store.stored_hashes(collection)
    finally:
        store.close()
