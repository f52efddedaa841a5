"""What a player sets and reads around an answer, in a real browser, where AppTest cannot see it: a sidebar
slider hidden while another control does not use it ("Weight of exact words" and each search mode's minimum score,
in Advanced) shows the value it had when it is drawn again, also after a question was answered in between (AppTest
kept the values all along; the browser showed the slider at its minimum); and a citation chip shows its whole
label, however narrow its column."""

from __future__ import annotations

import pytest

from tests.browser import SLOW, app_page, settle
from tests.helpers import VAULT, write_notes

pytestmark = pytest.mark.browser


# two scenes of one evening whose names differ only past what one line of a chip holds
LONG_SCENES = {
    "Session 4.md": "# Session Start\n## The long road back from the mines to the Sunken Tavern of Kraghammer\n"
    "- Nostoc pays the party fifty gold for finding the missing miners.\n"
    "## The long road back from the mines, and the duergar waiting on it\n"
    "- Nostoc pays for the duergar ambush with a second purse of gold.\n",
}


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("controls-browser")
    with app_page(tmp, CHRONICLER_NOTES_DIR=str(write_notes(tmp / "vault", VAULT | LONG_SCENES))) as pg:
        yield pg


def shown(page, label: str) -> str:
    """The value a sidebar slider shows (its thumb's label)."""
    slider = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]', has_text=label)
    return slider.locator('[data-testid="stSliderThumbValue"]').inner_text()


def nudge(page, label: str, steps: int) -> None:
    slider = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]', has_text=label).get_by_role("slider")
    slider.focus()
    for _ in range(steps):
        slider.press("ArrowRight")
    settle(page)


def test_a_hidden_slider_shows_its_value_again_after_a_question(page):
    from playwright.sync_api import expect

    box = page.get_by_role("textbox", name="Ask about your campaign…")
    expect(box).to_be_enabled(timeout=SLOW)  # the notes are read on first start
    settle(page)
    sidebar = page.locator('[data-testid="stSidebar"]')
    sidebar.locator("summary", has_text="Advanced").click()
    nudge(page, "Weight of exact words", 3)
    nudge(page, "Minimum score", 4)
    weight, minimum = shown(page, "Weight of exact words"), shown(page, "Minimum score")
    assert float(weight) > 0 and float(minimum) > 0, (weight, minimum)

    sidebar.get_by_text("Meaning (dense)").click()  # both sliders of the hybrid search are hidden
    settle(page)
    expect(sidebar.get_by_text("Weight of exact words")).to_have_count(0)
    box.fill("Who gave us the map of the mines?")
    box.press("Enter")
    expect(page.locator('[data-testid="stChatMessage"]').nth(1)).to_contain_text("Session", timeout=SLOW)
    settle(page)

    sidebar.get_by_text("Both (hybrid)").click()
    settle(page)
    assert (shown(page, "Weight of exact words"), shown(page, "Minimum score")) == (weight, minimum)


def test_citation_chips_show_their_whole_label(page):
    """Four chips share the answer's width: a label cut to one line reads "Session 1 · The …" for every scene of
    one evening."""
    from playwright.sync_api import expect

    box = page.get_by_role("textbox", name="Ask about your campaign…")
    expect(box).to_be_enabled(timeout=SLOW)
    messages = page.locator('[data-testid="stChatMessage"]')
    before = messages.count()  # the first test's question and answer may still be on the page
    box.fill("How much did Nostoc pay the party?")
    box.press("Enter")
    # wait for this question's own answer: right after Enter, the last message is still the earlier answer
    expect(messages).to_have_count(before + 2, timeout=SLOW)
    answer = messages.nth(before + 1)
    expect(answer).to_contain_text("Nostoc", timeout=SLOW)
    settle(page)
    chips = answer.locator('[data-testid="stPopover"] button')
    assert chips.count() >= 2
    for i in range(chips.count()):
        cut = chips.nth(i).evaluate(
            "b => [b, ...b.querySelectorAll('*')].filter(e => e.scrollWidth > e.clientWidth + 1).length"
        )
        assert cut == 0, chips.nth(i).inner_text()
