"""Crash safety: an index killed with SIGKILL at random points, again and again, is completed by the next run
and leaves exactly what a clean index of the same files leaves: the same ids, the same hashes, no duplicate,
nothing missing. On the CRD3 notes (4,758 passages), with the fake embedder so each run takes seconds; the runs
alternate passage sizes, so each one rewrites most points when it is killed."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rag.config import load_config
from rag.models import Filters
from rag.stores import get_store
from tests.helpers import SHARED

FAKE_CLI = Path(__file__).resolve().parent / "fake_cli.py"
CRD3 = SHARED / "crd3-notes"
KILLS = 20


def index(data: Path, *settings: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHRONICLER_")}
    env.update(CHRONICLER_EMBEDDING__BACKEND="fake", CHRONICLER_LOCAL_CONFIG=str(data.parent / "local.yaml"))
    command = [sys.executable, str(FAKE_CLI), "index", "--notes", str(CRD3), "--campaign", "crash", "--data", str(data)]
    command += [arg for setting in settings for arg in ("--set", setting)]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def stored(data: Path) -> tuple[int, dict[str, str]]:
    config = load_config(overrides={"data_dir": str(data), "embedding.backend": "fake"})
    store = get_store(config)
    try:
        collection = config.collection("crash")
        return store.count(collection, Filters(view="gm")), store.stored_hashes(collection)
    finally:
        store.close()


def test_an_index_killed_twenty_times_ends_as_a_clean_index(tmp_path):
    if not CRD3.is_dir():
        pytest.skip(f"{CRD3} is not beside this checkout")
    rng = random.Random(17)
    data = tmp_path / "killed" / "data"
    outcomes = []
    for run in range(KILLS):
        # every run rewrites most passages: other passage sizes, other texts under the same ids
        proc = index(data, f"chunking.max_chars={1000 + 100 * (run % 3)}")
        time.sleep(rng.uniform(0.8, 3.5))  # past the imports: somewhere in reading, embedding or writing
        outcomes.append("finished" if proc.poll() is not None else "killed")
        proc.kill()
        proc.wait()
    assert outcomes.count("killed") >= KILLS // 2, outcomes
    done = index(data)
    out, _ = done.communicate(timeout=300)
    assert done.returncode == 0, out
    clean = index(tmp_path / "clean" / "data")
    out, _ = clean.communicate(timeout=300)
    assert clean.returncode == 0, out
    count, hashes = stored(data)  # the last run used the default sizes, as the clean one does
    clean_count, clean_hashes = stored(tmp_path / "clean" / "data")
    assert hashes == clean_hashes and count == clean_count == len(hashes) == 4758  # no duplicate, none missing
