"""Asking again before an answer has come, in a real browser: the app served with an answer model that takes
a while (tests/llm_server.py's "slow-model"), as a busy local model or a cold start does. The first question
stays in the chat, marked as unanswered with a way to ask it again; nothing the player typed is lost."""

from __future__ import annotations

import pytest

from tests.browser import SLOW, app_page, settle
from tests.helpers import write_vault
from tests.llm_server import KEY

pytestmark = pytest.mark.browser

FIRST, SECOND = "Who gave us the map of the mines?", "Where did we meet Grog?"


@pytest.fixture(scope="module")
def page(tmp_path_factory, llm_server):
    tmp = tmp_path_factory.mktemp("chat-browser")
    env = {
        "CHRONICLER_NOTES_DIR": str(write_vault(tmp / "vault")),
        "CHRONICLER_ANSWER__BACKEND": "openai",
        "CHRONICLER_ANSWER__BASE_URL": llm_server,
        "CHRONICLER_ANSWER__API_KEY": KEY,
        "CHRONICLER_ANSWER__MODEL": "slow-model",
    }
    with app_page(tmp, **env) as pg:
        yield pg


def test_a_question_asked_before_the_last_answer_came_keeps_the_first(page):
    from playwright.sync_api import expect

    box = page.get_by_role("textbox", name="Ask about your campaign…")
    expect(box).to_be_enabled(timeout=SLOW)  # the notes are read on first start
    messages = page.locator('[data-testid="stChatMessage"]')
    box.fill(FIRST)
    box.press("Enter")
    expect(messages.first).to_contain_text(FIRST)
    box.fill(SECOND)  # while the model is still busy with the first
    box.press("Enter")
    expect(messages).to_have_count(4, timeout=SLOW)
    expect(messages.nth(0)).to_contain_text(FIRST)
    expect(messages.nth(1)).to_contain_text("you asked the next question before this one's answer came")
    expect(messages.nth(2)).to_contain_text(SECOND)
    expect(messages.nth(3)).to_contain_text("Herris gives them a map of the mines", timeout=SLOW)
    settle(page)

    page.get_by_role("button", name="Ask it again").click()  # the first question, answered at the end
    expect(messages.nth(3)).to_contain_text("Herris gives them a map of the mines", timeout=SLOW)
    settle(page)
    said = [messages.nth(i).inner_text() for i in range(messages.count())]
    assert len(said) == 4 and SECOND in said[0] and FIRST in said[2], said
    assert "before this one's answer came" not in "\n".join(said)
    assert page.locator('[data-testid="stException"]').count() == 0
