"""Writing files when the disk may be full.

``writing(path)`` turns a full disk (or a file size or quota limit) met while writing ``path`` into one
``DiskFullError`` naming it, from Python's OSError or from the store engine's own error; any other error
passes unchanged. ``write_text`` replaces a small file whole or not at all (a temporary file beside it, then
a rename), so a disk that fills mid-write leaves the old file as it was, never half of the new one.

``check_space`` refuses to start an index the disk cannot hold. The edge store writes through memory maps, and
on a full disk a page it cannot get ends the program with SIGBUS (the app with it), before any Python code
can say why; so the free space is checked first, against what an index was measured to take.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rag.errors import ChroniclerError, DiskFullError, disk_full, is_disk_full

INDEX_HINT = "Free some space and index again: the next run completes what this one started."
MB = 1 << 20
# Measured with the edge store (docs/RELIABILITY.md): a passage takes 4.7 KB with 64-number vectors and 7.6 KB with
# 384 (~9 bytes a number: each vector is in the log and in a segment), on ext4 as on tmpfs; a new collection 0.4 MB
# on ext4. Rounded up, and a margin for the rest (tmpfs takes 19 MB more: each page the engine's maps read gets
# memory). The CRD3 notes: 23 MB on ext4, 42 on tmpfs; estimated 44.
NEW_COLLECTION = 2 * MB
PASSAGE = 5 * 1024
MARGIN = 16 * MB


@contextmanager
def writing(path: str | Path, hint: str = "") -> Iterator[None]:
    try:
        yield
    except ChroniclerError:
        raise
    except Exception as err:
        if not is_disk_full(err):
            raise
        raise disk_full(path, hint) from None


def write_text(path: Path, text: str, hint: str = "", mode: int = 0o644) -> None:
    """``path`` replaced whole by ``text``, or left as it was; ``mode`` is set before any byte is written
    (0o600 for a file of secrets)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")  # one per writer
    with writing(path, hint):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode), "w", encoding="utf-8") as f:
                f.write(text)
            tmp.replace(path)
        finally:
            tmp.unlink(missing_ok=True)


def check_space(folder: str | None, passages: int, dim: int, new_collection: bool) -> None:
    """``DiskFullError`` when the disk of the store ``folder`` (None: a server's, not ours) has less free space
    than writing ``passages`` vectors of ``dim`` numbers (into a ``new_collection``) takes."""
    if folder is None or folder == ":memory:":
        return
    path = Path(folder)
    while not path.exists() and path != path.parent:  # a store not made yet: the disk it will be made on
        path = path.parent
    need = MARGIN + passages * (PASSAGE + 10 * dim) + (NEW_COLLECTION if new_collection else 0)
    free = shutil.disk_usage(path).free
    if free < need:
        raise DiskFullError(
            f"The disk is too full to index: {free / MB:.0f} MB free for {folder}; writing {passages:,} passages "
            f"needs about {need / MB:.0f} MB.",
            "Free some space and index again.",
        )
