"""Shared fixtures. Fakes are registered as backends, like real ones, for each test and removed after it,
so config strings select them and no fake outlives the test that wanted it. Helpers and small vaults that
tests import by name are in tests/helpers.py."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

import streamlit as st  # noqa: E402

from rag import registry  # noqa: E402
from tests.fakes import FakeEmbedder, FakeGenerator  # noqa: E402
from tests.llm_server import llm_server_fixture  # noqa: E402, F401 - the ``llm_server`` fixture


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path, monkeypatch):
    """Never read or write the developer's configs/local.yaml or data/ from a test."""
    for name in list(os.environ):
        if name.startswith("CHRONICLER_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("CHRONICLER_LOCAL_CONFIG", str(tmp_path / "local.yaml"))
    monkeypatch.setenv("CHRONICLER_SECRETS_FILE", str(tmp_path / "secrets.toml"))
    monkeypatch.setenv("CHRONICLER_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture
def register_backend() -> Iterator[Callable[[str, str, Callable], None]]:
    """``register_backend(kind, name, factory)``: a backend for this test only."""
    added: list[tuple[str, str]] = []

    def register(kind: str, name: str, factory: Callable) -> None:
        registry.register(kind, name, factory)
        added.append((kind, name))

    yield register
    for kind, name in added:
        registry.unregister(kind, name)


@pytest.fixture(autouse=True)
def fake_backends(register_backend):
    """``embedding.backend: fake`` and ``answer.backend: fake`` select the fakes of tests/fakes.py."""
    register_backend("embedders", "fake", FakeEmbedder)
    register_backend("generators", "fake", FakeGenerator)


@pytest.fixture(scope="session")
def real_embedder():
    """The packaged all-MiniLM-L6-v2, loaded once per test session (~10 s)."""
    from rag.config import EmbeddingConfig
    from rag.embedders import get_embedder

    return get_embedder(EmbeddingConfig())


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    """Own data dir and local.yaml per test; no first-start demo indexing; caches emptied."""
    monkeypatch.setenv("CHRONICLER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CHRONICLER_LOCAL_CONFIG", str(tmp_path / "local.yaml"))
    monkeypatch.setenv("CHRONICLER_NOTES_DIR", str(tmp_path / "no-demo-notes"))
    monkeypatch.setenv("CHRONICLER_NOTES__SYNC_ROOTS", json.dumps([str(tmp_path)]))  # folders a test may sync
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")  # fake_backends registers it
    _navigation_mode_as_on_a_running_server(monkeypatch)
    st.cache_resource.clear()
    st.cache_data.clear()
    yield tmp_path
    st.cache_resource.clear()
    st.cache_data.clear()


def _navigation_mode_as_on_a_running_server(monkeypatch) -> None:
    """AppTest re-detects the old ``pages/``-folder mode before every run, so each ``switch_page`` run would
    execute the page without the router and app.routing.require_router's rerun would drop button clicks.
    A server does the detection once, and st.navigation turns it off for good: do the same here."""
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)
