"""GM secrets in a real browser: the app served on the secret vault (tests/secret_vault.py) as its first-start
campaign, with a GM passphrase set. In the player view no page shows a canary while a player asks, searches
and looks around; the GM passphrase opens the GM view, where the secrets are found.
Uses the real packaged embedding model, like tests/test_browser.py."""

from __future__ import annotations

import re

import pytest

from tests.browser import SLOW, app_page, settle, type_gm_passphrase
from tests.secret_vault import canaries_in, write_secret_vault

pytestmark = pytest.mark.browser

PASSPHRASE = "owlbear-42"
QUESTIONS = ["What is in the GM notes?", "Who is the real villain?", "Who sank the missing ships?"]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("secrets-browser")
    vault = write_secret_vault(tmp / "vault")
    env = {"CHRONICLER_NOTES_DIR": str(vault), "CHRONICLER_GM_PASSPHRASE": PASSPHRASE}
    with app_page(tmp, **env) as pg:
        yield pg


def body(pg) -> str:
    """The page's whole DOM, folded expanders and popovers included, and its visible text."""
    return pg.content() + "\n" + pg.locator("body").inner_text()


def nav(pg, title: str) -> None:
    pg.locator('[data-testid="stSidebarNavLink"]', has_text=title).click()


def test_the_player_view_shows_no_secret_in_the_browser(page):
    from playwright.sync_api import expect

    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text("Player view: GM notes hidden")).to_be_visible(timeout=SLOW)
    box = page.get_by_role("textbox", name="Ask about your campaign…")
    for i, question in enumerate(QUESTIONS, start=1):
        box.fill(question)
        box.press("Enter")
        expect(page.locator('[data-testid="stChatMessage"]')).to_have_count(2 * i, timeout=SLOW)
        settle(page)
    shown = {"chat": body(page)}
    for title in ("Search notes", "Campaign", "Ingest notes"):
        nav(page, title)
        if title == "Search notes":
            question = page.get_by_role("textbox", name="Question")
            question.fill("Who is the real villain behind the cult?")
            question.press("Enter")
            expect(page.get_by_text("Why these passages")).to_be_visible(timeout=SLOW)
        settle(page)
        shown[title] = body(page)
    assert "Harbortown" in shown["chat"]  # open notes answer
    assert {title: canaries_in(text) for title, text in shown.items() if canaries_in(text)} == {}


def test_the_gm_passphrase_opens_the_gm_view(page):
    from playwright.sync_api import expect

    sidebar = page.locator('[data-testid="stSidebar"]')
    type_gm_passphrase(page, PASSPHRASE)
    expect(sidebar.get_by_text("GM view: GM-only notes shown")).to_be_visible()
    nav(page, "Search notes")
    question = page.get_by_role("textbox", name="Question")
    question.fill("Glimmerfen cult plans")
    question.press("Enter")
    expect(page.get_by_text(re.compile("cult of Glimmerfen plans")).first).to_be_visible(timeout=SLOW)
    sidebar.get_by_role("button", name="Back to the player view").click()
    expect(sidebar.get_by_text("Player view: GM notes hidden")).to_be_visible()
    settle(page)
    assert "cult of Glimmerfen plans" not in body(page)
