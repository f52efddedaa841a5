"""Crash safety: an index killed with SIGKILL at random points, again and again, is completed by the next run
and leaves exactly what a clean index of the same files leaves: the same ids, the same hashes, no duplicate,
nothing missing. On the CRD3 notes (2,923 passages), with the fake embedder so each run takes seconds; the runs
alternate passage sizes, so each one rewrites most points when it is killed. Once through the CLI, once through
the app's own Ingest page (tests/ingest_app.py: an upload of the notes, saved and indexed by the page)."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

from rag.ingest.uploads import save_uploads
from tests.helpers import SHARED, index_cli, ingest_page, stored

pytestmark = pytest.mark.stress  # kill and full-disk loops: `make test` only
CRD3 = SHARED / "crd3-notes"
KILLS = 20
PAGE_KILLS = 8


@pytest.fixture
def crd3():
    if not CRD3.is_dir():
        pytest.skip(f"{CRD3} is not beside this checkout")
    return CRD3


def clean_index(data: Path) -> tuple[int, dict[str, str]]:
    clean = index_cli(data, CRD3, "crash")
    _, err = clean.communicate(timeout=300)
    assert clean.returncode == 0, err
    return stored(data, "crash")


def wait_for_line(proc, start: str) -> None:
    """Read the child's stderr up to its first line beginning with ``start``."""
    for line in proc.stderr:
        if line.startswith(start):
            return
    pytest.fail(f"the child ended before a line beginning {start!r}")


def test_an_index_killed_twenty_times_ends_as_a_clean_index(tmp_path, crd3):
    rng = random.Random(17)
    data = tmp_path / "killed" / "data"
    outcomes = []
    for run in range(KILLS):
        # every run rewrites most passages: a passage size no other run used, so texts under the same ids that
        # no earlier run embedded (a size seen before would be written from vectors a killed run kept, in ~0.1 s)
        proc = index_cli(data, CRD3, "crash", f"chunking.max_chars={1000 + 37 * run}")
        wait_for_line(proc, "Indexing")  # past the imports and the store's opening
        time.sleep(rng.uniform(0.0, 1.6))  # the rest takes ~2 s: somewhere in reading, embedding or writing
        outcomes.append("finished" if proc.poll() is not None else "killed")
        proc.kill()
        proc.communicate()
    assert outcomes.count("killed") >= KILLS // 2, outcomes
    done = index_cli(data, CRD3, "crash")
    _, err = done.communicate(timeout=300)
    assert done.returncode == 0, err
    count, hashes = stored(data, "crash")  # the last run used the default sizes, as the clean one does
    clean_count, clean_hashes = clean_index(tmp_path / "clean" / "data")
    assert hashes == clean_hashes and count == clean_count == len(hashes) == 2923  # no duplicate, none missing


def test_the_ingest_page_killed_mid_run_ends_as_a_clean_index(tmp_path, crd3):
    rng = random.Random(29)
    data = tmp_path / "killed" / "data"
    outcomes = []
    for run in range(PAGE_KILLS):
        proc = ingest_page(data, CRD3, "crash", CHRONICLER_CHUNKING__MAX_CHARS=str(1000 + 37 * run))
        assert json.loads(proc.stdout.readline())["step"] == "saving"  # the button is being pressed
        time.sleep(rng.uniform(0.0, 4.5))  # saved in ~0.1 s, read by ~1.2 s, written by ~3.5-5 s
        outcomes.append("finished" if proc.poll() is not None else "killed")
        proc.kill()
        proc.communicate()
    assert outcomes.count("killed") >= PAGE_KILLS // 2, outcomes
    done = ingest_page(data, CRD3, "crash")
    out, err = done.communicate(timeout=300)
    assert done.returncode == 0, err
    assert json.loads(out.splitlines()[-1]) == {"step": "done", "errors": [], "exceptions": [], "files": 159}, out
    count, hashes = stored(data, "crash")
    clean_count, clean_hashes = clean_index(tmp_path / "clean" / "data")
    assert hashes == clean_hashes and count == clean_count == len(hashes) == 2923


def test_a_staging_folder_left_by_a_kill_is_cleared_by_a_later_upload(tmp_path):
    """The page killed 0.06-0.08 s after the button (measured) leaves its upload's staging folder, never a half
    note in the campaign; the next upload removes such a folder once it is an hour old, not one being filled."""
    dest = tmp_path / "uploads" / "crash"
    old, live = tmp_path / "uploads" / ".upload-killed", tmp_path / "uploads" / ".upload-another-session"
    for folder in (old, live):
        folder.mkdir(parents=True)
        (folder / "Session 1.md").write_text("# Session Start\n- half of it")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    save_uploads([("Session 2.md", b"# Session Start\n- all of it")], dest, [".md"])
    assert not old.exists() and live.exists() and (dest / "Session 2.md").is_file()
