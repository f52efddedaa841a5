"""Progress a player can trust, in a real browser with the real model: uploading a zipped vault, the Ingest
page's count of passages read rises before the end and names the note being read; Stop reading stops it (a
click reruns the page, which ends the run at its next step), the page says how far it got, and Read the rest
reads only what is left."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from tests.browser import SLOW, app_page, settle

pytestmark = pytest.mark.browser

SESSIONS, BULLETS = 20, 16  # 320 passages: long enough to click Stop before the end on a busy machine
COUNT = re.compile(r"Reading your notes… (\d+) of (\d+) passages")


def vault_zip(tmp: Path) -> Path:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for s in range(1, SESSIONS + 1):
            lines = ["# Session Start", f"## The caravan, day {s}"]
            for b in range(BULLETS):
                tale = f"Stranger {b} of session {s} tells of the lost city of Omu, its nine trickster gods. " * 7
                lines.append(f"- {tale}")
            zf.writestr(f"Caravan/Session {s}.md", "\n".join(lines) + "\n")
    path = tmp / "Caravan.zip"
    path.write_bytes(buf.getvalue())
    return path


def test_the_count_rises_before_the_end_and_stop_keeps_what_was_read(tmp_path):
    from playwright.sync_api import expect

    with app_page(tmp_path, CHRONICLER_NOTES_DIR=str(tmp_path / "no-demo")) as page:
        page.locator('[data-testid="stSidebarNavLink"]', has_text="Ingest notes").click()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(vault_zip(tmp_path)))
        expect(page.get_by_text("Caravan.zip")).to_be_visible()
        page.get_by_role("button", name="Save and read the notes").click()

        bar = page.locator('[data-testid="stProgress"]')
        counted = page.get_by_text(re.compile(r"Reading your notes… [1-9]\d* of \d+ passages"))
        expect(counted).to_be_visible(timeout=SLOW)  # the first step is read: the count has moved
        line = counted.inner_text()
        done, total = map(int, COUNT.search(line).groups())
        assert 0 < done < total == SESSIONS * BULLETS, line  # before the end
        assert re.search(r"· Session \d+\.md", line), line  # the note being read

        page.get_by_role("button", name="Stop reading").click()
        stopped = page.get_by_text(re.compile(r"Stopped: \d+ of \d+ passages read; reading again picks up"))
        expect(stopped).to_be_visible(timeout=SLOW)
        settle(page)
        kept, of = map(int, re.search(r"Stopped: (\d+) of (\d+)", stopped.inner_text()).groups())
        assert done <= kept < of == total, stopped.inner_text()
        expect(bar).to_have_count(0)
        sidebar = page.locator('[data-testid="stSidebar"]')
        expect(sidebar.get_by_text(f"{kept} passages", exact=True)).to_be_visible()  # what was kept, counted

        page.get_by_role("button", name="Read the rest").click()
        summary = page.get_by_text(re.compile(r"Read \d+ files into \d+ passages"))
        expect(summary).to_be_visible(timeout=SLOW)
        said = summary.inner_text()
        assert f"Read {SESSIONS} files into {total} passages" in said, said
        assert f"{kept} of them were already read." in said, said  # only the rest was read
        expect(stopped).to_have_count(0)
