"""GM secrets in the app (AppTest): every page in the player view shows no canary of the secret vault, the
GM view needs the passphrase and then finds them, and no passphrase set means no GM view at all."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from app.gm import GM_LABEL, PLAYER_LABEL
from tests.helpers import APP, start, texts
from tests.secret_vault import canaries_in, write_secret_vault

pytestmark = pytest.mark.usefixtures("app_env")

PASSPHRASE = "owlbear-42"
GM_FILES = ["GM/Plot.md", "DM Notes/Villain.md", "Handouts/Letter.md", "NPCs/Baron.md", "Lore/Relic.md"]
QUESTIONS = [
    "What is in the GM notes?",
    "Who is the real villain?",
    "Who sank the missing ships?",
    "When did we first meet Mossgrave?",
    "Glimmerfen",
    "And who is behind it?",  # a follow-up
]


def everything(at: AppTest) -> str:
    """All a page shows: every element's content (tables, charts, captions, options, popovers)."""
    out, todo = [], [at._tree]
    while todo:
        node = todo.pop()
        todo += list(getattr(node, "children", {}).values())
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        if getattr(node, "type", "") == "arrow_data_frame":
            out.append(node.value.to_csv())
    return "\n".join(out)


def leaked(at: AppTest, typed: str = "") -> list[str]:
    """Canaries on the page beyond those the player typed, and the names of GM-only notes (a file name can
    be a spoiler too)."""
    shown = everything(at)
    return [c for c in canaries_in(shown) if c not in canaries_in(typed)] + [f for f in GM_FILES if f in shown]


def sync(at: AppTest, folder) -> AppTest:
    at.switch_page("pages/ingest.py").run()
    key = next(t.key for t in at.text_input if t.key and t.key.startswith("sync_folder_"))
    at.text_input(key=key).set_value(str(folder)).run()
    at.button(key="sync_go").click().run()
    assert not at.exception and not at.error, texts(at.error)
    return at


def visit_every_page(at: AppTest) -> dict[str, list[str]]:
    """Ask, search and look around as a player would; page (and question) → canaries shown."""
    found: dict[str, list[str]] = {}
    at.switch_page("pages/chat.py").run()
    for q in QUESTIONS:
        at.chat_input(key="chat_question").set_value(q).run()
        assert not at.exception, at.exception
        assert len(at.chat_message) == 2 * (QUESTIONS.index(q) + 1)
        if bad := leaked(at, " ".join(QUESTIONS)):
            found[f"chat: {q}"] = bad
    at.switch_page("pages/search.py").run()
    for q in QUESTIONS:
        at.text_input(key="question").set_value(q).run()
        assert not at.exception, at.exception
        if bad := leaked(at, q):
            found[f"search: {q}"] = bad
    at.text_input(key="question").set_value("broken lens of the lighthouse").run()
    assert "Captain Reyes shows the party the broken lens" in everything(at)  # open notes are still found
    at.text_input(key="question").set_value("").run()
    for page in ("pages/home.py", "pages/ingest.py", "pages/settings.py"):
        at.switch_page(page).run()
        if bad := leaked(at):
            found[page] = bad
    return found


def test_no_page_of_the_player_view_shows_a_secret(tmp_path):
    at = sync(start(), write_secret_vault(tmp_path / "vault"))
    shown = everything(at)
    assert "18 passages are GM only" in shown and "GM folder 5" in shown and "12 files are GM only" in shown
    assert "Read 3 files into 6 passages" in shown  # what a player can read, as the Campaign page counts
    table = next(d.value for d in at.dataframe if "status" in d.value.columns)
    assert "GM/Plot.md" not in set(table["file"]) and "Session 1.md" in set(table["file"])
    assert leaked(at) == []
    assert visit_every_page(at) == {}
    assert PLAYER_LABEL in texts(at.sidebar.caption)


def test_no_passphrase_means_no_gm_view(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_VIEW", "gm")  # a config file or variable cannot open it either
    at = sync(start(), write_secret_vault(tmp_path / "vault"))
    assert not [e for e in at.sidebar.expander if e.label == "Game master"]
    assert PLAYER_LABEL in texts(at.sidebar.caption)
    at.switch_page("pages/search.py").run()
    at.text_input(key="question").set_value("Glimmerfen plot").run()
    assert leaked(at, "Glimmerfen plot") == []


def unlock(at: AppTest, attempt: str) -> AppTest:
    at.text_input(key="gm_attempt").set_value(attempt)
    next(b for b in at.sidebar.button if b.label == "Show GM notes").click().run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("where", ["environment", "secrets.toml"])
def test_the_gm_view_needs_the_passphrase_and_then_shows_the_secrets(tmp_path, monkeypatch, where):
    if where == "environment":
        monkeypatch.setenv("CHRONICLER_GM_PASSPHRASE", PASSPHRASE)
    at = AppTest.from_file(APP, default_timeout=60)
    if where == "secrets.toml":
        at.secrets["gm_passphrase"] = PASSPHRASE
    at.run()
    assert [e for e in at.sidebar.expander if e.label == "Game master"]
    at = sync(unlock(at, PASSPHRASE), write_secret_vault(tmp_path / "vault"))  # adding notes is the GM's
    next(b for b in at.sidebar.button if b.label == "Back to the player view").click().run()
    at = unlock(at, "wrong guess")
    assert "That is not the GM passphrase." in texts(at.sidebar.error) and PLAYER_LABEL in texts(at.sidebar.caption)
    at.switch_page("pages/search.py").run()
    at.text_input(key="question").set_value("Glimmerfen cult").run()
    assert leaked(at, "Glimmerfen cult") == []
    at = unlock(at, PASSPHRASE)
    assert GM_LABEL in texts(at.sidebar.warning)
    assert "Glimmerfen plans" in everything(at)  # the search runs again, in the GM view
    at.switch_page("pages/home.py").run()
    assert all(name in everything(at) for name in GM_FILES)  # the files table lists GM-only notes now
    at.switch_page("pages/chat.py").run()
    at.chat_input(key="chat_question").set_value("Who leads the cult?").run()
    assert "Wraithmoor" in texts(at.chat_message[1].markdown)
    next(b for b in at.sidebar.button if b.label == "Back to the player view").click().run()
    assert PLAYER_LABEL in texts(at.sidebar.caption)
    assert not at.chat_message and leaked(at) == []  # the GM's conversation is gone from the screen
    at.switch_page("pages/search.py").run()  # and so is what the GM searched for (a secret's name, maybe)
    assert at.text_input(key="question").value == "" and "Glimmerfen cult" not in everything(at)
