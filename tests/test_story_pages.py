"""People & places, Story so far and the chat's recap, driven by AppTest on a small campaign."""

from __future__ import annotations

import pytest

from app.story import numbered_runs
from tests.helpers import start, texts, write_notes
from tests.secret_vault import canaries_in, write_secret_vault

pytestmark = pytest.mark.usefixtures("app_env")

CAMPAIGN = {
    "Session 1.md": "---\ndate: 2024-03-02\nworld date: 1st of Hammer\n---\n## The Harbour\n"
    "- The party meets [[Captain Reyes|Reyes]] at the harbour of [[Brightwater]], where ships wait for wind.\n",
    "Session 2.md": "## The Docks\n- [[Reyes]] and [[Bram]] argue about the stolen cargo on the docks at dawn.\n"
    "## The Fire\n- A fire breaks out in the warehouse and the party saves most of the cargo.\n",
    "Session 3.md": "## The Road\n- The party leaves [[Brightwater]] with [[Bram]] as their guide into the hills.\n",
    "NPCs/Captain Reyes.md": "---\naliases: [The Old Salt]\n---\n# Captain Reyes\nHarbour captain, gruff but fair.\n",
}


def frame(at, column: str):
    """A table of the page holding ``column`` (the timeline is a table that wraps its text; its rows are named by
    their session)."""
    tables = [d.value for d in at.dataframe] + [t.value.reset_index() for t in at.table]
    return next(t for t in tables if column in t.columns)


def sync(at, folder):
    at.switch_page("pages/ingest.py").run()
    key = next(t.key for t in at.text_input if t.key and t.key.startswith("sync_folder_"))
    at.text_input(key=key).set_value(str(folder)).run()
    at.button(key="sync_go").click().run()
    assert not at.exception and not at.error, texts(at.error)
    return at


def test_people_page_lists_one_entry_per_person_and_shows_their_page(tmp_path):
    at = sync(start(), write_notes(tmp_path / "v", CAMPAIGN))
    at.switch_page("pages/people.py").run()
    assert not at.exception
    table = frame(at, "also called")
    reyes = table[table["name"] == "Captain Reyes"].iloc[0]
    assert "Reyes" in reyes["also called"] and "The Old Salt" in reyes["also called"]
    assert (reyes["passages"], reyes["first seen"], reyes["last seen"]) == (2, "Session 1", "Session 2")
    at.selectbox(key="entity").set_value("Captain Reyes").run()
    assert "Harbour captain, gruff but fair." in texts(at.markdown)
    shown = texts(at.markdown)
    assert shown.index("[Session 1 · The Harbour]") < shown.index("[Session 2 · The Docks]")  # story order
    assert "Seen with" in shown and "Brightwater" in shown and "Bram" in shown
    assert at.get("plotly_chart")  # the sessions they appear in
    at.button(key="ask_about").click().run()
    assert not at.exception and len(at.chat_message) == 2  # the chat answered "Who is Captain Reyes?"
    assert "Who is Captain Reyes?" in texts(at.chat_message[0].markdown)


def test_a_misspelt_link_is_one_entry_and_counts_read_as_a_player_writes_them(tmp_path):
    notes = {
        **CAMPAIGN,
        "Session 4.md": "## The Return\n- The party rows back to [[Brightwatter]] and the [[Old Mill]].\n",
    }
    at = sync(start(), write_notes(tmp_path / "v", notes))
    at.switch_page("pages/people.py").run()
    table = frame(at, "also called")
    assert "Brightwatter" not in set(table["name"])  # one letter off: the same town
    town = table[table["name"] == "Brightwater"].iloc[0]
    assert "Brightwatter" in town["also called"] and (town["passages"], town["last seen"]) == (3, "Session 4")
    at.selectbox(key="entity").set_value("Old Mill").run()
    said = texts(at.caption)
    assert "1 passage ·" in said and "1 passages" not in said


def test_a_name_the_notes_never_link_is_listed_with_where_it_was_first_seen(tmp_path):
    notes = {
        "Session 1.md": "## The Office\n- We meet Mme Arlette, who hires us to find a thief.\n",
        "Session 2.md": "## The Docks\n- The thief works for Mme Arlette after all.\n",
    }
    at = sync(start(), write_notes(tmp_path / "v", notes))
    at.switch_page("pages/people.py").run()
    assert not at.exception
    arlette = frame(at, "passages").set_index("name").loc["Mme Arlette"]
    assert (arlette["passages"], arlette["first seen"]) == (2, "Session 1")
    at.selectbox(key="entity").set_value("Mme Arlette").run()
    assert "named in the notes, never linked · 2 passages · first in Session 1, last in Session 2" in texts(at.caption)


def test_a_page_no_other_note_names_says_so_not_0_passages(tmp_path):
    """A vault-cos-bahodge walk: the "Quests" page, read into 13 passages, said "0 passages · on no session note
    yet", which read as nothing read. Its own page is shown; what it lacks is other notes naming it."""
    notes = {
        "Session 1.md": "## The Office\n- We meet Mme Arlette, who hires us to find a thief.\n",
        "Quests.md": "# Quests\n- Find the thief who robbed the bank.\n- Deliver the wine to the village.\n",
    }
    at = sync(start(), write_notes(tmp_path / "v", notes))
    at.switch_page("pages/people.py").run()
    at.selectbox(key="entity").set_value("Quests").run()
    said = texts(at.caption)
    assert "no other note names it · in no session note" in said and "0 passages" not in said, said
    assert "Find the thief who robbed the bank." in texts(at.markdown)


def test_story_page_has_the_timeline_and_a_cited_recap(tmp_path):
    at = sync(start(), write_notes(tmp_path / "v", CAMPAIGN))
    at.switch_page("pages/story.py").run()
    timeline = frame(at, "first seen")
    assert list(timeline["session"]) == ["Session 1", "Session 2", "Session 3"]
    assert "title" not in timeline.columns  # notes titled "Session N" call the evening nothing more
    first = timeline.iloc[0]
    assert (first["played"], first["in the story"]) == ("2024-03-02", "1st of Hammer")
    assert "Captain Reyes" in first["first seen"] and "Bram" in timeline.iloc[1]["first seen"]
    recap = texts(at.markdown)
    assert "[Session 3 · The Road]" in recap  # the last session by default
    at.selectbox(key="recap_from").set_value("Session 2").run()
    at.selectbox(key="recap_to").set_value("Session 2").run()
    recap = texts(at.markdown)
    assert "**[Session 2 · The Docks]**" in recap and "**[Session 2 · The Fire]**" in recap
    at.selectbox(key="session_cap").set_value(1).run()  # as of session 1: the later sessions are gone
    assert list(frame(at, "first seen")["session"]) == ["Session 1"]


def test_a_fights_rounds_are_one_scene_in_the_timeline():
    """A real vault's session 1 (kingmaker, training) listed "Round 1 · Round 2 · … · Round 6" among its scenes;
    a heading counting through one series is said once, as its run."""
    scenes = ["Setup", "Round 1", "Round 2", "Round 3", "Verdict", "Pharast 17, 4710", "Pharast 19", "Pharast 21"]
    assert numbered_runs(scenes) == ["Setup", "Round 1–3", "Verdict", "Pharast 17, 4710", "Pharast 19–21"]
    assert numbered_runs(["Part I", "Day 3", "Day 2"]) == ["Part I", "Day 3", "Day 2"]  # no run counting down


def test_the_timeline_shows_a_sessions_title_when_its_note_gives_one(tmp_path):
    """A real vault titles its sessions "Session 2: The Seven Snakes": the timeline says so, beside the number."""
    notes = {"Session 1.md": CAMPAIGN["Session 1.md"], "Session 2: The Seven Snakes.md": CAMPAIGN["Session 2.md"]}
    at = sync(start(), write_notes(tmp_path / "v", notes))
    at.switch_page("pages/story.py").run()
    timeline = frame(at, "first seen")
    assert list(timeline["title"]) == ["", "The Seven Snakes"]


def test_the_chat_recaps_the_last_session_with_citations(tmp_path):
    at = sync(start(), write_notes(tmp_path / "v", CAMPAIGN))
    at.switch_page("pages/chat.py").run()
    at.button(key="recap_last").click().run()
    assert not at.exception
    said = texts(at.chat_message[1].markdown)
    assert said.startswith("Previously on Session 3:") and "[Session 3 · The Road]" in said
    assert [p.proto.popover.label for p in at.get("popover")] == ["Session 3 · The Road"]


def test_the_story_views_keep_gm_notes_out(tmp_path):
    at = sync(start(), write_secret_vault(tmp_path / "vault"))
    shown = []
    for page in ("pages/people.py", "pages/story.py"):
        at.switch_page(page).run()
        shown += [str(e.proto) for e in at.markdown] + [d.value.to_csv() for d in at.dataframe]
    at.switch_page("pages/chat.py").run()
    at.button(key="recap_last").click().run()
    shown.append(texts(at.chat_message[1].markdown))
    assert canaries_in("\n".join(shown)) == []
