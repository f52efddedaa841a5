"""A full disk, simulated: `python -m rag index` in a process where no file may grow past N bytes
(tests/file_limit.py: RLIMIT_FSIZE with SIGXFSZ ignored), so a write past N fails with EFBIG as a write on a full
disk fails with ENOSPC. The limits put the failure in each place an index writes: creating the collection,
opening it, the store's own files written when it is closed, the alias table, the record of where a campaign's
notes are. Each run ends with one `error:` line naming what could not be written and exit 1, no traceback, and
leaves nothing the next run cannot complete: without the limit it ends as a clean index (the same ids and
hashes). The Ingest page, starved the same way while saving an upload and while indexing it, shows one error.

A real full disk is harsher: the store engine writes through memory maps, and a page it cannot get on a full
disk ends the program with SIGBUS before any Python code can say why (measured: exit 135 on tmpfs of 2-32 MB).
So indexing first checks the free space: on a small tmpfs (mounted in a user namespace, where the kernel allows
it) the CLI refuses with one line, and indexes when the space is there."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.helpers import SHARED, TESTS, child_env, index_cli, ingest_page, stored

pytestmark = pytest.mark.stress  # kill and full-disk loops: `make test` only
CRD3 = SHARED / "crd3-notes"
KIB, MIB = 1 << 10, 1 << 20
FULL = "The disk is full (or a file size limit was hit) while writing "
SOURCES = {f"campaign {i}": f"/home/gm/notes/campaign-{i}" for i in range(200)} | {"crash": str(CRD3)}  # 9.6 KB

# where it fails: (what is in the data folder before, the limit in bytes, what the error names)
CASES = {
    "creating the collection": ("nothing", MIB, "edge"),  # the write-ahead log takes 32 MiB at once
    "opening the collection": ("a complete index", 40, "edge/chronicler-crash"),  # the engine saves its state
    "closing the store": ("other passage sizes", 64 * KIB, "edge"),  # the point id table (~100 KB) is saved last
    "the alias table": ("a complete index without its alias table", 16 * KIB, "aliases/chronicler-crash.json"),
    "the record of the notes folder": ("a complete index", 4 * KIB, "campaign_sources.json"),
}


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    """A clean index of the CRD3 notes, and one made with other passage sizes (most points to rewrite)."""
    if not CRD3.is_dir():
        pytest.skip(f"{CRD3} is not beside this checkout")
    root = tmp_path_factory.mktemp("indexes")
    for name, settings in (("clean", ()), ("other", ("chunking.max_chars=1000",))):
        proc = index_cli(root / name / "data", CRD3, "crash", *settings)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    return root


def assert_clean(data, indexes) -> None:
    count, hashes = stored(data, "crash")
    clean_count, clean_hashes = stored(indexes / "clean" / "data", "crash")
    assert hashes == clean_hashes and count == clean_count == len(hashes) == 2923  # no duplicate, none missing


@pytest.mark.parametrize("where", CASES)
def test_a_full_disk_is_one_error_line_and_the_next_index_completes(where, indexes, tmp_path):
    before, limit, named = CASES[where]
    data = tmp_path / "data"
    if before != "nothing":
        shutil.copytree(indexes / ("other" if before.startswith("other") else "clean") / "data", data)
        (data / "campaign_sources.json").write_text(json.dumps(SOURCES, indent=2, sort_keys=True), encoding="utf-8")
    if "without its alias table" in before:
        shutil.rmtree(data / "aliases")
    proc = index_cli(data, CRD3, "crash", file_limit=limit)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 1 and "Traceback" not in out + err, err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert errors == [err.strip().splitlines()[-1]] and errors[0].startswith(f"error: {FULL}{data / named}. "), err
    if before != "nothing":  # written whole or not at all: a full disk leaves the old record
        assert json.loads((data / "campaign_sources.json").read_text(encoding="utf-8")) == SOURCES
    done = index_cli(data, CRD3, "crash")
    _, err = done.communicate(timeout=300)
    assert done.returncode == 0, err
    assert_clean(data, indexes)


@pytest.mark.parametrize(
    ("limit", "named"),
    [(4 * KIB, "the upload into {data}/uploads/crash"), (MIB, "{data}/edge")],  # saving the files; indexing them
    ids=["saving the upload", "indexing it"],
)
def test_a_full_disk_on_the_ingest_page_is_one_error_and_the_next_upload_completes(limit, named, indexes, tmp_path):
    data = tmp_path / "data"
    proc = ingest_page(data, CRD3, "crash", file_limit=limit)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    shown = json.loads(out.splitlines()[-1])
    assert shown["exceptions"] == [] and len(shown["errors"]) == 1, shown
    assert shown["errors"][0].startswith(FULL + named.format(data=data) + ". "), shown
    done = ingest_page(data, CRD3, "crash")
    out, err = done.communicate(timeout=300)
    assert json.loads(out.splitlines()[-1]) == {"step": "done", "errors": [], "exceptions": [], "files": 159}, err
    assert_clean(data, indexes)


def index_on_a_small_disk(size_mb: int, data) -> subprocess.CompletedProcess:
    """The CLI's index into ``data`` on a tmpfs of ``size_mb`` mounted over its parent, for this process only."""
    mount = f"mount -t tmpfs -o size={size_mb}m tmpfs '{data.parent}' && exec \"$@\""
    cli = [sys.executable, str(TESTS / "fake_cli.py"), "index", "--notes", str(CRD3), "--campaign", "crash"]
    command = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", mount, "sh", *cli, "--data", str(data)]
    return subprocess.run(command, env=child_env(data), capture_output=True, text=True, timeout=300)


def test_a_disk_too_small_is_refused_before_the_store_starts(tmp_path):
    if not CRD3.is_dir():
        pytest.skip(f"{CRD3} is not beside this checkout")
    data = tmp_path / "small" / "data"
    data.parent.mkdir()
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True)
    if probe.returncode:
        pytest.skip("this kernel does not let a user mount a small tmpfs (unshare --user --mount)")
    small = index_on_a_small_disk(24, data)  # the CRD3 notes need about 34 MB by the estimate
    assert small.returncode == 1 and "Traceback" not in small.stdout + small.stderr, small  # not 135: SIGBUS
    assert small.stderr.strip().splitlines()[-1] == (
        f"error: The disk is too full to index: 24 MB free for {data / 'edge'}; writing 2,923 passages needs "
        "about 34 MB. Free some space and index again."
    ), small.stderr
    roomy = index_on_a_small_disk(64, data)
    assert roomy.returncode == 0 and "2923 chunks: 2923 added" in roomy.stdout, roomy
