"""The Ingest page says plainly what it did not read and why: at the top, in a warning (never a green success)
when any file was skipped; a skipped uploaded file can be removed, so it is not reported again after every later
upload; a note larger than what is read is said at once and not saved; the uploader's limit and the reading's
agree and are written on the page; no empty column; reading stopped part way says how far it got, and reading
again reads only the rest."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from tests.fakes import FakeEmbedder
from tests.helpers import VAULT, start, texts

pytestmark = pytest.mark.usefixtures("app_env")

BAD = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00" * 64  # an .exe renamed to a note


def vault_zip(extra: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in VAULT.items():
            zf.writestr(f"My Vault/{name}", text)
        for name, data in extra.items():
            zf.writestr(f"My Vault/{name}", data)
    return buf.getvalue()


def upload(at, files: list[tuple[str, bytes]]) -> None:
    at.file_uploader[0].set_value([(name, data, "application/octet-stream") for name, data in files])
    at.run()
    at.button(key="upload_go").click().run()
    assert not at.exception, at.exception


def test_a_skipped_file_is_said_at_the_top_and_can_be_removed(tmp_path):
    at = start("pages/ingest.py")
    upload(at, [("My Vault.zip", vault_zip({"Session 99.md": BAD}))])
    assert not at.success  # not a green banner when a file was skipped
    warning = texts(at.warning)
    assert "Read 4 files into" in warning and "1 file was not read" in warning
    assert "**Session 99.md**: binary file" in texts(at.markdown)
    saved = tmp_path / "data" / "uploads" / "demo" / "Session 99.md"
    assert saved.is_file()

    at.button(key="remove_Session 99.md").click().run()
    assert not saved.exists() and not at.exception
    assert "Session 99.md" not in texts(at.markdown) and "not read" not in texts(at.warning)
    assert "Removed Session 99.md" in " ".join(str(t.value) for t in at.toast)

    upload(at, [("Session 4.md", b"# Session Start\n## Docks\n- The party sails north with [[Grog]].\n")])
    assert not at.warning and "Read 5 files into" in texts(at.success)  # not reported again
    table = next(d.value for d in at.dataframe if "status" in d.value.columns)
    assert "skipped" not in set(table["status"]) and "pages" not in table.columns  # no column of None


def test_pages_not_written_yet_are_listed_without_a_warning():
    """A real vault: 15 pages made and never written (empty files, front matter only) were said in a warning,
    though nothing was lost; a player read it as something gone wrong. A file that cannot be read still warns."""
    at = start("pages/ingest.py")
    upload(at, [("My Vault.zip", vault_zip({"NPCs/Ti.md": b"", "NPCs/Oki.md": b"---\ntags: [npc]\n---\n"}))])
    assert not at.warning and not at.success
    said = texts(at.info)
    assert "Read 4 files into" in said and "2 files were not read" in said
    assert "**NPCs/Ti.md**: empty file" in texts(at.markdown)
    upload(at, [("Session 99.md", BAD)])
    assert "3 files were not read" in texts(at.warning)  # one of them unreadable: a warning again


def test_a_note_with_nothing_to_search_is_said_to_be_empty():
    """A checklist never filled in is read, but gives no passage: the table says "empty", not "unchanged"."""
    at = start("pages/ingest.py")
    upload(at, [("My Vault.zip", vault_zip({"To do.md": b"- [ ]\n- [ ]\n"}))])
    assert "(To do.md has nothing written to search yet)" in texts(at.success)  # which one, in a player's words
    table = next(d.value for d in at.dataframe if "status" in d.value.columns)
    assert dict(zip(table["file"], table["status"], strict=True))["To do.md"] == "empty"


def test_a_note_larger_than_is_read_is_said_at_once_and_not_saved(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_NOTES__MAX_FILE_MB", "0.01")
    at = start("pages/ingest.py")
    assert "each note up to 0.01 MB" in texts(at.caption)  # the limits, on the page
    assert at.get("file_uploader")[0].proto.max_upload_size_mb == 200  # the uploader's is limits.upload_mb
    big = b"# Session Start\n## Long\n" + b"- The party walks on and on.\n" * 1000
    upload(at, [("Session 98.md", big), *[(Path(n).name, t.encode()) for n, t in VAULT.items()]])
    warning, said = texts(at.warning), texts(at.markdown)
    assert "1 file was not read" in warning and "Session 98.md" in said
    assert "too large to read: 28 KB, and notes like it are read up to 0.01 MB (notes.max\\_file\\_mb)" in said
    assert "It was not saved" in said
    assert not (tmp_path / "data" / "uploads" / "demo" / "Session 98.md").exists()


class StopsOnce(FakeEmbedder):
    """Stops the page on its second batch, once, as Streamlit does when Stop reading is clicked (it raises in
    the script at its next element update: the progress bar's, after a step is stored)."""

    stopped = False

    def embed_batch(self, texts):
        if self.calls == 1 and not StopsOnce.stopped:
            StopsOnce.stopped = True
            raise StopException()
        return super().embed_batch(texts)


def long_notes(sessions: int = 5, bullets: int = 14) -> list[tuple[str, bytes]]:
    """``sessions`` notes of ``bullets`` passages each (long enough not to be merged)."""
    files = []
    for s in range(1, sessions + 1):
        tale = "The tale goes on about the lost city of Omu and its nine trickster gods. " * 8
        lines = ["# Session Start", "## The docks"] + [
            f"- Stranger {b} of session {s} says: {tale}" for b in range(bullets)
        ]
        files.append((f"Session {s}.md", "\n".join(lines).encode()))
    return files


def test_reading_stopped_part_way_keeps_what_was_read_and_reading_again_does_the_rest(monkeypatch, register_backend):
    StopsOnce.stopped = False
    register_backend("embedders", "stops-once", StopsOnce)
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "stops-once")
    at = start("pages/ingest.py")
    upload(at, long_notes())
    bars = [str(b.proto.text) for b in at.get("progress")]
    assert any(re.search(r"Reading your notes… 32 of 70 passages · Session \d\.md", b) for b in bars), bars
    assert at.button(key="stop_reading")  # under the bar while reading

    at.run()  # the page after the stop
    assert "Stopped: 32 of 70 passages read; reading again picks up where it stopped." in texts(at.info)
    assert not at.get("progress")
    at.button(key="read_rest").click().run()
    assert not at.exception, at.exception
    done = texts(at.success)
    assert "Read 5 files into 70 passages" in done and "32 of them were already read." in done, done
    assert "Stopped" not in texts(at.info)
