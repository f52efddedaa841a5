"""A shared app in a real browser, with two people at it: the GM in one browser context, a player who wants
spoilers in another (each its own Streamlit session), against `streamlit run` with a GM passphrase and the real
packaged model. The player repeats the attacks that once worked (read the GM's uploaded prep folder as a
campaign, upload, delete, open the model's settings, change an address, measure) and gets a sentence in player
words for each; the GM does each of them, and reading the prep folder as a folder is refused to the GM too."""

from __future__ import annotations

import io
import re
import zipfile

import pytest

from tests.browser import SLOW, launch, serve, settle, type_gm_passphrase
from tests.helpers import VAULT, write_notes

pytestmark = pytest.mark.browser

PASSPHRASE = "owlbear-42"
CANARY = "Stormhallow"
PREP = {  # a zip whose only top-level folder is the GM's prep folder
    "Session Prep/Session 3.md": f"# Session 3 prep\n- The party will find {CANARY}'s map under the lighthouse.\n",
    "Session Prep/Session 0.md": "",
}
FOR_THE_GM = "are for the game master while Chronicler is shared with the table"


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    from playwright.sync_api import expect, sync_playwright

    tmp = tmp_path_factory.mktemp("sharing")
    demo = write_notes(tmp / "demo-notes", VAULT)
    env = {"CHRONICLER_NOTES_DIR": str(demo), "CHRONICLER_GM_PASSPHRASE": PASSPHRASE}
    with serve(tmp, **env) as url, sync_playwright() as p:
        browser = launch(p)
        expect.set_options(timeout=30_000)
        people = {}
        for who in ("gm", "player"):
            page = browser.new_context(viewport={"width": 1280, "height": 1400}).new_page()
            page.set_default_timeout(30_000)
            page.goto(url)
            people[who] = page
        expect(people["gm"].get_by_role("textbox", name="Ask about your campaign…")).to_be_visible(timeout=SLOW)
        settle(people["gm"])
        yield {"url": url, "tmp": tmp, "browser": browser, **people}
        browser.close()


def nav(pg, title: str) -> None:
    pg.locator('[data-testid="stSidebarNavLink"]', has_text=title).click()
    settle(pg)


def zipped(tmp, files: dict[str, str]) -> str:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    path = tmp / "prep.zip"
    path.write_bytes(buf.getvalue())
    return str(path)


def test_the_gm_unlocks_and_uploads_a_prep_folder(table):
    from playwright.sync_api import expect

    gm = table["gm"]
    sidebar = gm.locator('[data-testid="stSidebar"]')
    type_gm_passphrase(gm, PASSPHRASE)
    expect(sidebar.get_by_text("GM view: GM-only notes shown")).to_be_visible()
    nav(gm, "Ingest notes")
    sessions = write_notes(table["tmp"] / "to-upload", {n: t for n, t in VAULT.items() if "/" not in n})
    files = [zipped(table["tmp"], PREP), *sorted(str(p) for p in sessions.glob("*.md"))]  # the campaign's notes
    gm.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(files)
    expect(gm.get_by_text(re.compile("read from the folder .* replaces them"))).to_be_visible(timeout=SLOW)
    gm.get_by_text("Yes, replace them").click()  # the demo folder's passages: the GM's own notes take their place
    settle(gm)
    gm.get_by_role("button", name="Save and read the notes").click()
    expect(gm.get_by_text("What happened")).to_be_visible(timeout=SLOW)
    expect(gm.get_by_text(re.compile("passages? (?:are|is) GM only"))).to_be_visible()
    assert (table["tmp"] / "data" / "uploads" / "demo" / "Session Prep" / "Session 3.md").is_file()  # kept


def test_the_player_cannot_act_and_is_told_so(table):
    from playwright.sync_api import expect

    player = table["player"]
    for where in ("Ingest notes", "Settings", "Campaign"):
        nav(player, where)
        if where == "Ingest notes":
            expect(
                player.get_by_text(re.compile("Adding notes, reading folders on the server and deleting"))
            ).to_be_visible()
            expect(player.get_by_text(re.compile(FOR_THE_GM))).to_be_visible()
            for name in ("Save and read the notes", "Sync this folder", "Delete campaign…"):
                expect(player.get_by_role("button", name=name)).to_have_count(0)
            expect(player.get_by_role("textbox", name="Folder path on the server")).to_have_count(0)
            expect(player.locator('[data-testid="stFileUploaderDropzoneInput"]')).to_have_count(0)
        elif where == "Settings":
            expect(player.get_by_text(re.compile(f"where notes are stored\\) {FOR_THE_GM}"))).to_be_visible()
            for name in ("Server address (base URL)", "Model name", "API key", "Server URL"):
                expect(player.get_by_role("textbox", name=name)).to_have_count(0)
            for name in ("Save answers", "Test the answer model", "Save store", "Test connection"):
                expect(player.get_by_role("button", name=name)).to_have_count(0)
        else:
            expect(player.get_by_text("Your game master can measure here")).to_be_visible()
            expect(player.get_by_role("button", name="Measure how well search finds the answers")).to_have_count(0)
    player.goto(table["url"] + "/ingest")  # straight to the page's address: the same
    expect(player.get_by_text(re.compile(FOR_THE_GM))).to_be_visible(timeout=SLOW)
    nav(player, "Search notes")
    question = player.get_by_role("textbox", name="Question")
    question.fill(f"{CANARY} map lighthouse")
    question.press("Enter")
    expect(player.get_by_text("Why these passages")).to_be_visible(timeout=SLOW)
    settle(player)
    body = player.content().replace(f'value="{CANARY} map lighthouse"', "")  # what the player typed
    assert CANARY not in body and "Session Prep" not in body and "Session 0.md" not in body
    sidebar = player.locator('[data-testid="stSidebar"]')
    type_gm_passphrase(player, "let me in")
    expect(sidebar.get_by_text("That is not the GM passphrase.")).to_be_visible()


def test_the_gm_can_do_each(table):
    from playwright.sync_api import expect

    gm, tmp = table["gm"], table["tmp"]
    nav(gm, "Campaign")
    gm.get_by_text("Advanced: how well does search find the answers?").click()  # the measuring, under Advanced
    expect(gm.get_by_text(re.compile("Write down questions you know the answers to"))).to_be_visible()
    nav(gm, "Ingest notes")
    gm.get_by_role("tab", name=re.compile("Folder on the server")).click()
    folder = gm.get_by_role("textbox", name="Folder path on the server")
    expect(folder).to_have_value("")  # the campaign's uploads are not offered
    folder.fill(str(tmp / "data" / "uploads" / "demo" / "Session Prep"))
    folder.press("Enter")
    settle(gm)
    gm.get_by_role("button", name="Sync this folder").click()
    expect(gm.get_by_text(re.compile("holds notes uploaded to a campaign"))).to_be_visible(timeout=SLOW)
    # a campaign of the GM's own, from a folder on the server
    salt = write_notes(tmp / "vaults" / "Salt Road", {"Session 1.md": "# Session Start\n- The caravan counts salt.\n"})
    gm.get_by_role("button", name=re.compile("Start a new campaign")).click()
    gm.get_by_role("textbox", name="Campaign name").fill("Salt Road")
    gm.get_by_role("button", name="Create").click()
    expect(gm.get_by_text(re.compile(r"Adding to campaign\s+Salt Road"))).to_be_visible()
    gm.get_by_role("tab", name=re.compile("Folder on the server")).click()
    gm.get_by_role("textbox", name="Folder path on the server").fill(str(salt))
    gm.get_by_role("textbox", name="Folder path on the server").press("Enter")
    settle(gm)
    gm.get_by_role("button", name="Sync this folder").click()
    expect(gm.get_by_text("Read 1 file into")).to_be_visible(timeout=SLOW)
    assert list((tmp / "data" / "aliases").glob("chronicler-salt-road*.json"))
    # and delete it again, with every file it left (each click waits for the run the last one started: on two
    # busy cores a click during a rerun can land on a widget about to be replaced)
    settle(gm)
    gm.get_by_text("Delete this campaign").click()
    gm.get_by_role("button", name="Delete campaign…").click()
    settle(gm)
    confirm = gm.get_by_role("textbox", name=re.compile("to confirm"))
    expect(confirm).to_be_visible(timeout=SLOW)
    confirm.fill("Salt Road")
    confirm.press("Enter")
    settle(gm)
    gm.get_by_role("button", name="Delete for good").click()
    expect(gm.get_by_text("Deleted campaign 'Salt Road'.")).to_be_visible(timeout=SLOW)
    assert not list((tmp / "data" / "aliases").glob("chronicler-salt-road*"))
    # settings: the answer model's address
    nav(gm, "Settings")
    gm.get_by_text("A language model (OpenAI-compatible)").click()
    gm.get_by_role("textbox", name="Server address (base URL)").fill("http://127.0.0.1:9/v1")
    gm.get_by_role("textbox", name="Model name").fill("llama3.2")
    gm.get_by_role("button", name="Save answers").click()
    # nothing listens there: the GM is asked first (a model that does not answer), and may save anyway
    gm.get_by_role("button", name="Save anyway").click()
    expect(gm.get_by_text("Saved.")).to_be_visible()
    assert "127.0.0.1:9/v1" in (tmp / "local.yaml").read_text(encoding="utf-8")


def test_a_gm_view_left_open_goes_back_to_the_player_view_by_itself(table, tmp_path):
    """Nobody clicks: the sidebar's timer puts the screen back in the player view after idle_minutes (6 s here).
    Its own server, in the module's browser (Playwright's sync API runs one at a time)."""
    import time

    from playwright.sync_api import expect

    env = {"CHRONICLER_NOTES_DIR": str(tmp_path / "none"), "CHRONICLER_GM_PASSPHRASE": PASSPHRASE}
    with serve(tmp_path, **env, CHRONICLER_GM_VIEW__IDLE_MINUTES="0.1") as url:
        context = table["browser"].new_context(viewport={"width": 1280, "height": 1000})
        pg = context.new_page()
        pg.goto(url)
        sidebar = pg.locator('[data-testid="stSidebar"]')
        type_gm_passphrase(pg, PASSPHRASE)
        expect(sidebar.get_by_text("GM view: GM-only notes shown")).to_be_visible()
        opened = time.monotonic()
        expect(sidebar.get_by_text("Player view: GM notes hidden")).to_be_visible(timeout=30_000)
        assert time.monotonic() - opened >= 5
        expect(sidebar.get_by_text("The GM view closed after 0.1 minutes without use.")).to_be_visible()
        context.close()
