"""Reading a vault: what becomes a Note, what is skipped and why, and the inline cleaning of its text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rag.config import NotesConfig
from rag.errors import ConfigError, NotesError
from rag.ingest.markdown import clean_inline
from rag.ingest.notes import Skipped, load_notes
from rag.ingest.parse import front_matter_text, parse_note, session_from_name
from rag.models import format_session
from tests.helpers import write_notes

FIXTURES = Path(__file__).parent / "fixtures" / "notes"
CFG = NotesConfig()


def by_source(notes):
    return {n.source: n for n in notes}


# --- load_notes on the fixture vault ---------------------------------------------------------------


def test_fixture_vault_loads_every_note_and_explains_every_skip():
    notes, skipped = load_notes(FIXTURES, CFG)
    assert [n.source for n in notes] == [
        "Broken Front Matter.md",
        "C2 Session 20.md",
        "NPCs/Foreman Herris.md",
        "Session 05.md",
        "Session Notes/Arc One/Session 20.5.md",
        "Windows Notes.md",
        "lore.txt",
    ]
    # .obsidian/, .trash/, .hidden.md and map.png are left out silently: they are not notes.
    assert skipped == [
        Skipped("Blank.md", "empty file", blank=True),  # a page nothing is written in yet
        Skipped("Empty.md", "empty file", blank=True),
        Skipped("Garbled.md", "not UTF-8 or cp1252 text"),
        Skipped("Scan.md", "binary file"),
    ]


def test_session_note_front_matter_title_and_narrative_body():
    note = by_source(load_notes(FIXTURES, CFG)[0])["Session 05.md"]
    assert note.front_matter["title"] == "The Greyspine Mines"
    assert note.front_matter["tags"] == ["session", "mines"]
    assert note.title == "Into the Mines"  # the H1 wins over the front matter title
    assert (note.session, note.campaign_no, note.kind) == (5, None, "session")
    assert note.body_line == 11  # the line after "# Session Start"
    assert "Recap written before the game" not in note.body
    assert note.body.split("\n")[1] == "## A Deal with Nostoc Greyspine"  # file line 12
    assert note.warnings == ()


def test_kinds_sessions_and_titles_of_the_other_files():
    notes = by_source(load_notes(FIXTURES, CFG)[0])
    c2 = notes["C2 Session 20.md"]
    assert (c2.session, c2.campaign_no, c2.kind, c2.title, c2.body_line) == (
        20,
        2,
        "session",
        "The Mighty Nein Regroup",
        2,
    )
    bonus = notes["Session Notes/Arc One/Session 20.5.md"]
    assert (bonus.session, bonus.kind, bonus.title) == (20.5, "session", "Session 20.5")
    npc = notes["NPCs/Foreman Herris.md"]
    assert (npc.session, npc.kind, npc.title, npc.body_line) == (None, "NPCs", "Foreman Herris", 5)
    assert npc.front_matter == {"aliases": ["Herris"]}
    lore = notes["lore.txt"]
    assert (lore.kind, lore.title, lore.session) == ("note", "lore", None)
    assert lore.body.startswith("The Greyspine mines run deep")


def test_broken_front_matter_warns_and_is_read_key_by_key_not_as_text():
    note = by_source(load_notes(FIXTURES, CFG)[0])["Broken Front Matter.md"]
    assert note.front_matter == {"title": "unclosed"}
    assert len(note.warnings) == 1
    assert note.warnings[0].startswith("front matter is not valid YAML")
    assert "line 2" in note.warnings[0]
    assert note.body == "The party rests at the inn.\n"  # Obsidian shows the block as properties, never as text


def test_front_matter_as_obsidian_writes_it_by_hand_gives_its_date_and_description(tmp_path):
    """A date typed as a link, with or without its space ("date:[[2024-08-23]]"), in a block YAML cannot read
    (a link list under it), or as YAML reads "[[2024-05-10]]" (a list in a list); a page with nothing but its
    front matter's description is read, not skipped as blank (vault-krynn: "Ispen Greenshield")."""
    write_notes(
        tmp_path,
        {
            "Sessions/Session 4.md": "---\ndate:[[2024-08-23]]\n  - - \ntype: session\n---\nWe reach Kalaman.\n",
            "Sessions/Session 1.md": "---\ndate: [[2024-05-10]]\nworld: krynn\n---\nThe festival opens.\n",
            "NPCs/Ispen.md": '---\ntype: NPC\ndescription: "Good natured human. Loved telling tales."\n---\n',
        },
    )
    notes, skipped = load_notes(tmp_path, CFG)
    by = by_source(notes)
    assert front_matter_text(by["Sessions/Session 4.md"], "date") == "2024-08-23"
    assert by["Sessions/Session 4.md"].body == "We reach Kalaman.\n"
    assert front_matter_text(by["Sessions/Session 1.md"], "date") == "2024-05-10"
    assert by["NPCs/Ispen.md"].about[0][1] == "Good natured human. Loved telling tales."
    assert not skipped


def test_windows_1252_file_is_read_with_a_warning():
    note = by_source(load_notes(FIXTURES, CFG)[0])["Windows Notes.md"]
    assert note.body == "The party visits the café and pays 5 €.\n"
    assert note.warnings == ("read as Windows-1252 text: the file is not valid UTF-8",)


# --- parse_note ------------------------------------------------------------------------------------


def test_a_note_whose_name_and_front_matter_give_two_session_numbers_says_so():
    """A real vault's "Session 20.md" says "session: 19": it is read as its name says, and the ingest report tells
    the player why "What happened in session 19?" finds nothing."""
    note = parse_note("---\nsession: 19\n---\nWe ride north.\n", "Sessions/Session 20.md", CFG)
    assert note.session == 20
    assert note.warnings == ("its front matter says session 19; it is Session 20, as its file name says",)
    assert parse_note("---\nsession: 20\n---\nWe ride.\n", "Session 20.md", CFG).warnings == ()
    assert parse_note("---\nsession: 4\n---\nWe ride.\n", "Notes/Road.md", CFG).session == 4  # no name to differ


def test_title_falls_back_to_front_matter_then_file_stem():
    text = "---\ntitle: Night at the Inn\n---\nThe party sleeps.\n"
    assert parse_note(text, "Session 3.md", CFG).title == "Night at the Inn"
    assert parse_note("The party sleeps.\n", "Arc/Session 3.md", CFG).title == "Session 3"


def test_without_narrative_header_the_whole_body_is_narrative():
    note = parse_note("# Title\n\n## Scene\n- A thing happens\n", "Session 1.md", CFG)
    assert note.title == "Title"
    assert note.body_line == 2
    assert note.body == "\n## Scene\n- A thing happens\n"


def test_narrative_header_is_configurable_and_matched_loosely():
    cfg = NotesConfig(narrative_header="## Log")
    note = parse_note("# T\nprep\n##   log\n- Fight\n", "Session 1.md", cfg)
    assert (note.title, note.body, note.body_line) == ("T", "- Fight\n", 4)


def test_h1_title_is_cleaned_of_links():
    note = parse_note("# Meeting [[Nostoc Greyspine|Lord Nostoc]]\n- Talk\n", "Session 1.md", CFG)
    assert note.title == "Meeting Lord Nostoc"


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        (
            "---\ntitle: x\nThe end never comes\n",
            "front matter starts with '---' on line 1 but is never closed",
        ),
        ("---\n- a\n- b\n---\nText\n", "front matter is a YAML list, not a mapping of keys"),
    ],
)
def test_other_front_matter_problems_warn_and_keep_text(text, warning):
    note = parse_note(text, "Session 1.md", CFG)
    assert note.warnings[0].startswith(warning)
    assert note.front_matter == {}
    assert note.body_line == 1


def test_crlf_and_bom_are_removed_from_body():
    note = parse_note("\ufeff# T\r\n- a\r\n- b\r\n", "x.md", CFG)
    assert (note.title, note.body, note.body_line) == ("T", "- a\n- b\n", 2)


# --- session numbers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Session 5.md", (5, None)),
        ("Session 05.md", (5, None)),
        ("C2 Session 20.md", (20, 2)),
        ("Session Notes/3 TPK/Session 20.5.md", (20.5, None)),
        ("Session 20.0.md", (20, None)),
        ("Session 20.5 (Bonus Session).md", (20.5, None)),  # as named in a real vault
        ("Session 12 - The Heist.md", (12, None)),
        ("session 7.txt", (7, None)),
        ("Session7.MD", (7, None)),
        ("Foreman Herris.md", (None, None)),
        ("Session Zero.md", (None, None)),
        ("Pre-Session 5 prep.md", (None, None)),
    ],
)
def test_session_from_name(source, expected):
    session, campaign_no = session_from_name(source, CFG)
    assert (session, campaign_no) == expected
    if session is not None:
        assert isinstance(session, float) == (session == 20.5)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Sessions/Session 0A.md", "0A"),  # a real vault's three prequel evenings: 0A, 0B, 0C, then Session 1
        ("Sessions/Session 0C.md", "0C"),
        ("Session 12b.md", "12B"),
        ("Session 3a - The Return.md", "3A"),
        ("C2 Session 4B.md", "4B"),
        ("Session 4d6.md", None),  # dice, not a part
        ("Session 12x.md", None),
    ],
)
def test_a_letter_after_a_session_number_is_a_part_of_that_evening(source, expected):
    """ "Session 0A" was no session at all: not in "As of session" nor the timeline, and the people met there were
    first seen in Session 1. Parts a to i come in order, after the evening's own number and before the next."""
    session = parse_note("- We went to the inn.", source, CFG).session
    assert (format_session(session) if session is not None else None) == expected
    if session is not None:  # after the evening's own number, before the next one, in order
        assert int(session) < session < int(session) + 0.1


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("2023-04-01 Session 12.md", (12, None)),  # a date first: Obsidian's daily-note habit
        ("Sessions/Session 3 The Heist.md", (3, None)),
        ("session 3 notes.md", (3, None)),
        ("Session_12.md", (12, None)),
        ("C2 Session 20 The Heist.md", (20, 2)),
        ("Episode 4 The Heist.md", (4, None)),  # a streamed campaign's sessions
        ("Ep. 7.md", (7, None)),
        ("Pre-Session 5 prep.md", (None, None)),
        ("Session Zero.md", (None, None)),
        ("Step 3.md", (None, None)),
        # in a folder kept for sessions, a note named by its number alone
        ("Sessions/01.md", (1, None)),
        ("Session Notes/12 - The Heist.md", (12, None)),
        ("Episodes/20.5 Bonus.md", (20.5, None)),
        ("Sessions/2023-04-01.md", (None, None)),  # a date is no session number
        ("Sessions/Index.md", (None, None)),
        ("NPCs/01.md", (None, None)),  # a number elsewhere is no session
        # a date is no session number, after "Session" either (it was read as session 2023 and 12)
        ("Session 2023-04-01.md", (None, None)),
        ("Session 12-05-2023.md", (None, None)),
        ("Session 12.05.2023.md", (None, None)),
        ("Session 12 - 2023-05-01.md", (12, None)),
    ],
)
def test_session_number_anywhere_in_the_file_name(source, expected):
    """A note with no title of its own is named by its file, and players name those as they like: without this,
    a vault of "2021-01-01 Session 23.md" notes had no session at all (no "In Session 23", no "as of session")."""
    note = parse_note("- We went to the inn.", source, CFG)
    assert (note.session, note.campaign_no) == expected
    folder = source.split("/")[0] if "/" in source else "note"
    assert note.kind == ("session" if expected[0] is not None else folder)


def test_front_matter_and_title_outrank_a_loose_file_name():
    dated = "2023-04-01 Session 12.md"
    assert parse_note("---\nsession: 13\n---\n- We went.", dated, CFG).session == 13
    assert parse_note("# Session 14: The Heist\n- We went.", dated, CFG).session == 14
    assert parse_note("- We went.", dated, CFG).session == 12


def test_session_notes_named_by_date_are_numbered_in_date_order(tmp_path):
    """Obsidian names a daily note by its date, and many players name session notes so: without a number they
    were reference pages (no "In Session 3", no "as of session", no timeline)."""
    notes, _ = load_notes(
        write_notes(
            tmp_path,
            {
                "Sessions/2023-04-08.md": "- We met the queen.",
                "Sessions/2023-03-25 - The Heist.md": "- We robbed the bank.",
                "Sessions/2023-04-01 (Mira).md": "- We fled the city.",
                "Sessions/2023-04-01 (Tom).md": "- We ran away.",  # two players' notes of one evening
                "Sessions/Front matter.md": "---\ndate: 2023-04-15\n---\n- We slept.",
                "Sessions/Index.md": "- every session",
                "2023-05-06 Session.md": "- We sailed.",  # "session" in the name, outside the folder
                "NPCs/2023-01-01 Bob.md": "- Bob, a baker.",  # a date elsewhere is no session
                "Sessions/GM/2023-04-22.md": "- Next time: the dragon.",  # a GM's prep is no session
            },
        ),
        CFG,
    )
    got = {n.source: (n.session, n.kind, n.session_from) for n in notes}
    assert got == {
        "Sessions/2023-03-25 - The Heist.md": (1, "session", "date order"),
        "Sessions/2023-04-01 (Mira).md": (2, "session", "date order"),
        "Sessions/2023-04-01 (Tom).md": (2, "session", "date order"),
        "Sessions/2023-04-08.md": (3, "session", "date order"),
        "Sessions/Front matter.md": (4, "session", "date order"),
        "2023-05-06 Session.md": (5, "session", "date order"),
        "Sessions/Index.md": (None, "Sessions", ""),
        "NPCs/2023-01-01 Bob.md": (None, "NPCs", ""),
        "Sessions/GM/2023-04-22.md": (None, "Sessions", ""),
    }
    assert [n.visibility for n in notes if n.source.startswith("Sessions/GM/")] == ["gm"]


def test_dated_notes_beside_numbered_sessions_join_the_session_of_their_day_or_stay_pages(tmp_path):
    """Mixed with numbered sessions, a date cannot say where a note falls between them (a wrong number would move
    a session), except on the day a numbered session gives: one player numbers, another dates the same evening."""
    folder = write_notes(
        tmp_path,
        {
            "Sessions/Session 1.md": "- One.",  # no day given
            "Sessions/Session 2.md": "---\ndate: 2023-04-08\n---\n- Two, as Tom wrote it.",
            "Sessions/2023-04-08 (Mira).md": "- Two, as Mira wrote it.",
            "Sessions/2023-04-15.md": "- A day no numbered note gives.",
            "Sessions/2023-04-22 Session 4.md": "- Four.",
            "Sessions/2023-04-22 Session 5.md": "- Five, the same day.",
            "Sessions/2023-04-22.md": "- Four or five: it cannot say.",
        },
    )
    notes, _ = load_notes(folder, CFG)
    assert {n.source: n.session for n in notes} == {
        "Sessions/Session 1.md": 1,
        "Sessions/Session 2.md": 2,
        "Sessions/2023-04-08 (Mira).md": 2,
        "Sessions/2023-04-15.md": None,
        "Sessions/2023-04-22 Session 4.md": 4,
        "Sessions/2023-04-22 Session 5.md": 5,
        "Sessions/2023-04-22.md": None,
    }


def test_session_offset_is_added():
    cfg = NotesConfig(session_offset=-1)
    assert session_from_name("Session 05.md", cfg) == (4, None)
    note = parse_note("- Zero", "Session 0.md", cfg)
    assert (note.session, note.kind) == (None, "session")
    assert note.warnings == ("session number -1 is below 0 after notes.session_offset; stored without one",)


def test_bad_session_pattern_is_a_config_error():
    with pytest.raises(ConfigError, match="notes.session_pattern"):
        session_from_name("Session 1.md", NotesConfig(session_pattern="Session (\\d+"))
    with pytest.raises(ConfigError, match="named group"):
        session_from_name("Session 1.md", NotesConfig(session_pattern=r"Session (\d+)"))


# --- unreadable input, generated in tmp_path --------------------------------------------------------


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def test_missing_folder_or_file_is_a_notes_error(tmp_path):
    with pytest.raises(NotesError, match="does not exist"):
        load_notes(tmp_path / "nope", CFG)
    write(tmp_path / "Session 1.md", "- x")
    with pytest.raises(NotesError, match="not a folder"):
        load_notes(tmp_path / "Session 1.md", CFG)


def test_size_limit_front_matter_only_and_empty_narrative_are_skipped(tmp_path):
    write(tmp_path / "Big.md", "- word " * 400)
    write(tmp_path / "Stub.md", "---\ntags: [npc]\n---\n\n")
    write(tmp_path / "Session 9.md", "# Nine\n# Session Start\n\n")
    write(tmp_path / "Session 10.md", "- no session this week")
    notes, skipped = load_notes(tmp_path, NotesConfig(max_file_mb=0.001))
    assert [n.source for n in notes] == ["Session 10.md"]
    assert skipped == [
        Skipped("Big.md", "larger than 0.001 MB limit"),
        Skipped("Session 9.md", "nothing after the '# Session Start' header"),
        Skipped("Stub.md", "no text besides the front matter and title", blank=True),
    ]


def test_utf16_with_bom_is_text_but_other_nul_bytes_are_binary(tmp_path):
    write(tmp_path / "Notepad.md", "\ufeff- Party meets Herris".encode("utf-16-le"))
    write(tmp_path / "Doc.md", b"- a\x00b")
    notes, skipped = load_notes(tmp_path, CFG)
    assert [n.body for n in notes] == ["- Party meets Herris"]
    assert skipped == [Skipped("Doc.md", "binary file")]


def test_extensions_are_case_insensitive_and_configurable(tmp_path):
    write(tmp_path / "LOUD.MD", "- x")
    write(tmp_path / "plain.TXT", "x")
    write(tmp_path / "other.markdown", "x")
    write(tmp_path / "image.png", b"\x89PNG")
    assert [n.source for n in load_notes(tmp_path, CFG)[0]] == ["LOUD.MD", "other.markdown", "plain.TXT"]
    assert [n.source for n in load_notes(tmp_path, NotesConfig(extensions=["txt"]))[0]] == ["plain.TXT"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this system")
def test_links_outside_the_folder_are_never_followed(tmp_path):
    outside = write(tmp_path / "secret" / "passwords.md", "- hunter2")
    vault = tmp_path / "vault"
    write(vault / "Session 1.md", "- real note")
    try:
        (vault / "Leak.md").symlink_to(outside)
        (vault / "SecretDir").symlink_to(outside.parent, target_is_directory=True)
        (vault / "Alias.md").symlink_to(vault / "Session 1.md")
    except OSError:
        pytest.skip("cannot create symlinks here")
    notes, skipped = load_notes(vault, CFG)
    assert [n.source for n in notes] == ["Alias.md", "Session 1.md"]
    assert skipped == [
        Skipped("Leak.md", "link outside the notes folder"),
        Skipped("SecretDir", "link outside the notes folder", "gm"),  # named like a GM folder: not for players
    ]
    assert all("hunter2" not in n.body for n in notes)


def test_results_are_sorted_and_repeatable(tmp_path):
    for name in ["b/Session 2.md", "a/z.md", "Session 10.md", "Session 1.md"]:
        write(tmp_path / name, "- text")
    first = load_notes(tmp_path, CFG)
    assert [n.source for n in first[0]] == ["Session 1.md", "Session 10.md", "a/z.md", "b/Session 2.md"]
    assert load_notes(tmp_path, CFG) == first


# --- clean_inline ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "text", "entities", "aliases"),
    [
        ("Met [[Entity]] today", "Met Entity today", ["Entity"], []),
        ("Met [[Entity|Alias]] today", "Met Alias today", ["Entity"], [("Alias", "Entity")]),
        ("See [[Page#Heading|Alias]]", "See Alias", ["Page"], [("Alias", "Page")]),
        ("See [[Page#Heading]]", "See Page", ["Page"], []),
        ("See [[NPCs/Yorb.md|Yorb]]", "See Yorb", ["Yorb"], []),
        ("![[map.png]]", "", [], []),
        ("Before ![[map.png]] after", "Before after", [], []),
        # a link typed inside an embed's file name (Obsidian's link suggestions do this): the embed still goes
        ("> ![[[[Qelline]]'s Newspaper.png]] read", "> read", [], []),
        ("[[[[Qelline]]'s Newspaper.png]] read", "Qelline's Newspaper.png read", [], []),
        ("a %% hidden %% b", "a b", [], []),
        ("a <!-- hidden --> b", "a b", [], []),
        ("**bold** *italic* __under__ _em_ ~~strike~~ ==mark==", "bold italic under em strike mark", [], []),
        ("***both*** and **_nested_**", "both and nested", [], []),
        ("run `snake_case()` now", "run snake_case() now", [], []),
        ("read [the wiki](https://example.com/a_b_c) now", "read the wiki now", [], []),
        (
            "see [Hew](NPCs/Hew%20Hackinstone.md)",
            "see Hew",
            ["Hew Hackinstone"],
            [("Hew", "Hew Hackinstone")],
        ),
        ("img ![alt](x.png) gone", "img gone", [], []),
        # a wiki copied from the web: parentheses in the address, a title after it, a footnote's number as a link
        (
            'the [Crane Clan](https://w.com/Crane_Clan_\\(TCG\\) "Crane Clan (TCG)") rules',
            "the Crane Clan rules",
            [],
            [],
        ),
        (
            "[Kami](https://w.com/Kami_(L5R)) and a city.[1](https://w.com/Tochi#cite_note-1) Next",
            "Kami and a city. Next",
            [],
            [],
        ),
        (
            "see [Oleg](Oleg Leveton.md) and [B](<NPCs/B b.md>)",
            "see Oleg and B",
            ["Oleg Leveton", "B b"],
            [("Oleg", "Oleg Leveton"), ("B", "B b")],
        ),
        ("stray\r carriage\r", "stray carriage", [], []),
        ("Dragon! 🐉 ✨ kept", "Dragon! 🐉 ✨ kept", [], []),
        ("snake_case_name and 5 * 3 * 2", "snake_case_name and 5 * 3 * 2", [], []),
        (r"not \*italic\*", "not *italic*", [], []),
        ("line<br>break and [^1] note ^abc123", "line break and note", [], []),
        # a wiki's reference marks pasted with its text are no words of the notes; a list's "[1]" and links stay
        ("hurt [51] and [[Vex]] wept. [2] [3]", "hurt and Vex wept.", ["Vex"], []),
        ("[1] Buy rope, see [the map][2]", "[1] Buy rope, see [the map][2]", [], []),
        ("[[A]] and [[A|a]] and [[A]]", "A and a and A", ["A"], [("a", "A")]),
        ("| [[Page\\|Shown]] |", "| Shown |", ["Page"], [("Shown", "Page")]),
        # a link to a day, a file or a web address names no one of the campaign: its text stays, no entity
        ("[[2025-02-04]]", "2025-02-04", [], []),
        ("[[Letter to Glass-Staff.pdf|the letter]] read", "the letter read", [], []),
        ("[[Maps/Town Map.PNG]] and [[Jonah]]", "Town Map.PNG and Jonah", ["Jonah"], []),
        ("see [[https://i.redd.it/p3y4.jpg]]", "see https://i.redd.it/p3y4.jpg", [], []),
        (
            "[[2023-04-01 Session 12|last time]]",
            "last time",
            ["2023-04-01 Session 12"],
            [("last time", "2023-04-01 Session 12")],
        ),
    ],
)
def test_clean_inline(raw, text, entities, aliases):
    assert clean_inline(raw) == (text, entities, aliases)


def test_link_text_survives_exactly_even_with_markdown_characters():
    text, entities, _ = clean_inline("The [[Tome_of_Doom|__init__ *star*]] glows")
    assert text == "The __init__ *star* glows"
    assert entities == ["Tome_of_Doom"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads everything")
def test_unreadable_subfolder_is_reported(tmp_path):
    write(tmp_path / "Session 1.md", "- ok")
    locked = tmp_path / "Locked"
    write(locked / "Session 2.md", "- hidden")
    locked.chmod(0)
    try:
        notes, skipped = load_notes(tmp_path, CFG)
    finally:
        locked.chmod(0o755)
    assert [n.source for n in notes] == ["Session 1.md"]
    assert skipped == [Skipped("Locked", "folder cannot be read: permission denied")]


def test_kind_is_the_top_level_folder():
    note = parse_note("# Yorb\nA guide.\n", "NPCs/Port Nyanzaru/Yorb.md", NotesConfig())
    assert note.kind == "NPCs"


def test_obsidian_templates_are_not_notes(tmp_path):
    (tmp_path / "assets" / "Templates").mkdir(parents=True)
    (tmp_path / "assets" / "Templates" / "NPC.md").write_text("# Character Profile\n## Goals\n- \n## Notes\n- x\n")
    (tmp_path / "Session template.md").write_text("# {{title}}\nDate: {{date:YYYY-MM-DD}}\n## Recap\n- \n")
    (tmp_path / "Templater.md").write_text("# Session <% tp.file.title %>\n- what happened\n")
    (tmp_path / "Session 1.md").write_text("# Session Start\n- The party meets a templar called Tem Plates.\n")
    (tmp_path / "z_Templates").mkdir()  # sorted last in the file list, as a real vault's
    (tmp_path / "z_Templates" / "Template - Creature.md").write_text("# <% name %>\nType: Ogre\n")
    (tmp_path / "Templar Order").mkdir()
    (tmp_path / "Templar Order" / "Ser Tem.md").write_text("A knight of the order.\n")
    notes, skipped = load_notes(tmp_path, CFG)
    assert [n.source for n in notes] == ["Session 1.md", "Templar Order/Ser Tem.md"]
    assert [s.source for s in skipped] == [
        "Session template.md",
        "Templater.md",
        "assets/Templates/NPC.md",
        "z_Templates/Template - Creature.md",
    ]
    assert all(s.reason.startswith("a template, not a note") for s in skipped)
    kept, _ = load_notes(tmp_path, NotesConfig(skip_templates=False))
    assert len(kept) == 6
