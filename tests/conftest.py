"""Shared fixtures. Fakes are registered as backends so config strings select them like real ones."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

from rag import registry  # noqa: E402
from tests.fakes import FakeEmbedder  # noqa: E402
from tests.llm_server import llm_server_fixture  # noqa: E402, F401 - the ``llm_server`` fixture

registry.register("embedders", "fake", FakeEmbedder)
SHARED = ROOT.parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path, monkeypatch):
    """Never read or write the developer's configs/local.yaml or data/ from a test."""
    for name in list(os.environ):
        if name.startswith("CHRONICLER_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("CHRONICLER_LOCAL_CONFIG", str(tmp_path / "local.yaml"))
    monkeypatch.setenv("CHRONICLER_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture(scope="session")
def real_embedder():
    """The packaged all-MiniLM-L6-v2, loaded once per test session (~10 s)."""
    from rag.config import EmbeddingConfig
    from rag.embedders import get_embedder

    return get_embedder(EmbeddingConfig())
