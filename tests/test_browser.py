"""End to end in a real browser: `streamlit run` as a subprocess, Debian's Chromium driven by Playwright.

Uses the REAL packaged embedding model (not the fake) to prove the path a player takes: upload a zipped
vault, read it, search it, move a slider and watch the chart follow. Screenshots of every page go to
tests/artifacts/screenshots/ (1280 px wide, plus phone width; the README's come from test_walkthrough_browser.py,
`make screenshots`). The tests share one server and run in file order.
Without Chromium they skip, except under CI (``CI`` set), where a missing browser is a failure.
"""

from __future__ import annotations

import io
import os
import re
import zipfile
from pathlib import Path

import pytest

from tests.browser import ROOT, SLOW, launch, serve, settle
from tests.browser import shot as browser_shot

pytestmark = pytest.mark.browser

DEMO = ROOT / "data" / "demo" / "notes"
# Screenshots go to tests/artifacts/ (git-ignored) so a test run never dirties the tree;
# `make screenshots` points this at docs/screenshots/ to refresh the ones the README shows.
SHOTS = Path(os.environ.get("CHRONICLER_SCREENSHOTS") or ROOT / "tests" / "artifacts" / "screenshots")
WIDE = {"width": 1280, "height": 1600}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    with serve(tmp, CHRONICLER_NOTES_DIR=str(tmp / "no-demo")) as url:  # start empty: the test uploads a vault
        yield {"url": url, "tmp": tmp}


@pytest.fixture(scope="module")
def browser(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture(scope="module")
def page(browser, server):
    """One tab for the whole story: clicking sidebar links keeps the session (and its search options)."""
    from playwright.sync_api import expect

    expect.set_options(timeout=30_000)
    context = browser.new_context(viewport=WIDE)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    pg.goto(server["url"])
    yield pg
    context.close()


def shot(pg, name: str) -> None:
    browser_shot(pg, SHOTS, name)


def nav(pg, title: str) -> None:
    pg.locator('[data-testid="stSidebarNavLink"]', has_text=title).click()


def vault_zip(tmp: Path) -> Path:
    """Two demo sessions in an Obsidian-like layout, plus a character page and the .obsidian folder."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n in (1, 2):
            name = f"C1 Session {n}.md"
            zf.write(DEMO / name, f"Vox Machina/Sessions/{name}")
        zf.writestr(
            "Vox Machina/People/Grog Strongjaw.md",
            "# Grog Strongjaw\n- Goliath barbarian of Vox Machina, played by Travis Willingham.\n",
        )
        zf.writestr("Vox Machina/.obsidian/app.json", "{}")
    path = tmp / "Vox Machina.zip"
    path.write_bytes(buf.getvalue())
    return path


def test_ingest_a_zipped_vault(page, server):
    from playwright.sync_api import expect

    expect(page.get_by_text("Add your notes on the Ingest page")).to_be_visible()
    settle(page)
    shot(page, "home-empty")

    nav(page, "Ingest notes")
    expect(page.get_by_role("heading", name="Ingest notes")).to_be_visible()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(vault_zip(server["tmp"])))
    expect(page.get_by_text("Vox Machina.zip")).to_be_visible()
    button = page.get_by_role("button", name="Save and read the notes")
    expect(button).to_be_enabled()
    button.click()
    expect(page.get_by_text("What happened")).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("Read 3 files into")).to_be_visible()
    settle(page)
    table = page.locator('[data-testid="stDataFrame"]').first
    expect(table).to_be_visible()
    assert (server["tmp"] / "data" / "uploads" / "demo" / "Sessions" / "C1 Session 1.md").is_file()
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text(re.compile(r"^\d+ passages$"))).to_be_visible()  # the count follows the index
    sidebar.locator('[data-testid="stSelectbox"]', has_text="As of session").locator("input").click()
    expect(page.get_by_role("option", name="Session 2")).to_be_visible()  # new sessions are offered at once
    page.keyboard.press("Escape")
    shot(page, "ingest")


def test_search_shows_passages_and_a_slider_changes_the_chart(page):
    from playwright.sync_api import expect

    nav(page, "Search notes")
    box = page.get_by_role("textbox", name="Question")
    expect(box).to_be_visible()
    box.fill("Who plays Grog, the goliath barbarian?")
    box.press("Enter")
    expect(page.get_by_text("Why these passages")).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("Travis Willingham").first).to_be_visible()
    charts = page.locator('[data-testid="stPlotlyChart"]')
    # the player's chart (one bar per passage, split by what matched), then under Advanced: stages, score
    # spread, passages per session, and the reranker's moves
    expect(charts).to_have_count(5)
    passages = charts.first.locator(".annotation")
    expect(passages).to_have_count(5, timeout=20_000)  # one bar per shown passage, its name above it
    expect(page.locator(".why-legend").get_by_text("matched names and words")).to_be_visible()  # the legend
    settle(page)
    shot(page, "search")

    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Advanced").click()
    slider = page.locator('[data-testid="stSlider"]', has_text="Passages to show").get_by_role("slider")
    slider.focus()
    for _ in range(2):
        slider.press("ArrowLeft")
    expect(passages).to_have_count(3, timeout=20_000)
    settle(page)
    sidebar.get_by_text("Advanced").click()  # folded again for the next screenshots


def test_chat_answers_with_a_citation_that_opens_its_passage(page):
    from playwright.sync_api import expect

    nav(page, "Ask the chronicle")
    box = page.get_by_role("textbox", name="Ask about your campaign…")
    expect(box).to_be_visible()
    box.fill("Who plays Grog, the goliath barbarian?")
    box.press("Enter")
    chip = page.get_by_role("button", name=re.compile(r"C1 Session \d+ · ")).first
    expect(chip).to_be_visible(timeout=SLOW)
    expect(page.get_by_text("Travis Willingham").first).to_be_visible()
    chip.click()
    expect(page.get_by_text(re.compile(r"lines \d+–\d+"))).to_be_visible()  # the exact passage, with its place
    settle(page)
    shot(page, "chat")
    page.keyboard.press("Escape")


def test_pages_render_for_screenshots(page, browser, server):
    from playwright.sync_api import expect

    nav(page, "Campaign")
    expect(page.get_by_text("Most mentioned")).to_be_visible()
    settle(page)
    shot(page, "home")

    nav(page, "People & places")
    expect(page.get_by_text("Every mention of")).to_be_visible()
    settle(page)
    shot(page, "people")

    nav(page, "Story so far")
    expect(page.get_by_text("Previously on…")).to_be_visible()
    expect(page.get_by_text(re.compile(r"\[C1 Session 2 · ")).first).to_be_visible()  # a cited recap line
    settle(page)
    shot(page, "story")

    nav(page, "Settings")
    expect(page.get_by_text("How passages are re-read")).to_be_visible()
    settle(page)
    shot(page, "settings")

    phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    pg = phone.new_page()
    pg.goto(server["url"] + "/search")
    pg.get_by_role("textbox", name="Question").fill("Who plays Grog?")
    pg.get_by_role("textbox", name="Question").press("Enter")
    expect(pg.get_by_text("Why these passages")).to_be_visible(timeout=SLOW)
    settle(pg)
    shot(pg, "search-phone")
    pg.goto(server["url"] + "/")
    box = pg.get_by_role("textbox", name="Ask about your campaign…")
    box.fill("Who plays Grog?")
    box.press("Enter")
    expect(pg.get_by_role("button", name=re.compile(r"C1 Session \d+ · ")).first).to_be_visible(timeout=SLOW)
    settle(pg)
    shot(pg, "chat-phone")
    for path, text, name in [
        ("/home", "Most mentioned", "home-phone"),
        ("/people", "Every mention of", "people-phone"),
        ("/story", "Previously on…", "story-phone"),
        ("/ingest", "Ingest notes", "ingest-phone"),
        ("/settings", "How passages are re-read", "settings-phone"),
    ]:
        pg.goto(server["url"] + path)
        expect(pg.get_by_text(text).first).to_be_visible()
        settle(pg)
        shot(pg, name)
    phone.close()
