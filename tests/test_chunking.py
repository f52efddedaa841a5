"""Chunking as a player sees it: passage texts, names, headings, entities and the file lines cited."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.config import ChunkingConfig, NotesConfig, SecretsConfig
from rag.ingest.chunking import chunk_note, chunk_notes
from rag.ingest.notes import load_notes
from rag.ingest.parse import parse_note
from tests.helpers import SHARED

FIXTURES = Path(__file__).parent / "fixtures" / "notes"
CRD3 = SHARED / "crd3-notes"
# The bullet-by-bullet rules, read at the floor that keeps a short bullet its own passage (the default merges
# bullets up to 500 characters: test_short_bullets_are_merged_until_a_passage_says_who_and_where).
CFG = ChunkingConfig(min_chars=120)


def norm(s: str) -> str:  # the evaluation's matching rule, copied from the data README
    s = s.casefold()
    return " ".join("".join(ch if ch.isalnum() else " " for ch in s).split())


def fixture(source: str):
    notes, _ = load_notes(FIXTURES, NotesConfig())
    return next(n for n in notes if n.source == source)


def note(body: str, source: str = "Session 1.md"):
    return parse_note(body, source, NotesConfig())


def summary(chunks):
    return [(c.name, c.heading, c.text, c.line_start, c.line_end) for c in chunks]


def test_session_note_one_chunk_per_top_level_bullet_with_scene_heading():
    chunks = chunk_note(fixture("Session 05.md"), "demo", CFG)
    deal = "A Deal with Nostoc Greyspine"
    assert summary(chunks) == [
        (
            "Session 5 · A Deal with Nostoc Greyspine",
            deal,
            f"{deal}\nAfter the battle, Lord Nostoc invites the party back to his office and offers five "
            "hundred gold if they stop the attacks.",
            13,
            13,
        ),
        (  # "Group Investigation" is too small alone and joins the next bullet; children keep nesting
            "Session 5 · A Deal with Nostoc Greyspine (2)",
            deal,
            f"{deal}\nGroup Investigation\nHerris gives them a map of the mines before they leave.\n"
            "- The map shows the lower tunnels.\n  - Marked in red ink",
            14,
            17,
        ),
        (
            "Session 5 · A Deal with Nostoc Greyspine (3)",
            deal,
            f"{deal}\nGrog wants to fight everything in the mines right now; Vex Vax disagrees and reads "
            "the wiki aloud to everyone until they agree to scout first.",
            18,
            18,
        ),
        (  # the paragraph between bullets is its own chunk; the %% comment is gone
            "Session 5 · A Deal with Nostoc Greyspine (4)",
            deal,
            f"{deal}\nThe party argues about splitting the reward for a long time, and Scanlan writes a rude "
            "song about it that nobody enjoys.",
            20,
            20,
        ),
        (  # * and + bullets, embed dropped, inline code kept as words
            "Session 5 · A Deal with Nostoc Greyspine (5)",
            deal,
            f"{deal}\nStar bullet about the Umber Hulk\nPlus bullet with inline_code\nVex buys arrows at the "
            "Value of Valor, and the elf shopkeeper warns her that nobody comes back from the lower tunnels.",
            22,
            24,
        ),
        (  # numbered list; multi-line %% and HTML comments dropped; lines still point into the file
            "Session 5 · Into the Dark",
            "Into the Dark",
            "Into the Dark\n1. First they light torches.\n2. Then they descend.\n"
            "Emoji stay 🐉 and Page shows the page.",
            27,
            34,
        ),
    ]
    assert [c.position for c in chunks] == list(range(6))
    assert {(c.campaign, c.source, c.session, c.campaign_no, c.kind, c.title) for c in chunks} == {
        ("demo", "Session 05.md", 5, None, "session", "Into the Mines")
    }
    assert [(c.entities, c.aliases) for c in chunks] == [
        (("Nostoc Greyspine",), (("Lord Nostoc", "Nostoc Greyspine"),)),
        (("Greyspine Quarry",), (("lower tunnels", "Greyspine Quarry"),)),
        ((), ()),
        (("Scanlan",), ()),
        (("Umber Hulk", "Vex'ahlia"), (("Vex", "Vex'ahlia"),)),
        (("Page",), ()),
    ]


def test_evidence_lands_in_exactly_one_chunk():
    chunks = chunk_note(fixture("Session 05.md"), "demo", CFG)
    assert [c.position for c in chunks if norm("Herris gives them a map of the mines") in norm(c.text)] == [1]


def test_heading_prefix_can_be_switched_off():
    chunks = chunk_note(fixture("Session 05.md"), "demo", ChunkingConfig(heading_prefix=False))
    assert chunks[0].text.startswith("After the battle, Lord Nostoc")
    assert chunks[0].heading == "A Deal with Nostoc Greyspine"


def test_without_min_chars_every_bullet_stands_alone():
    chunks = chunk_note(fixture("Session 05.md"), "demo", ChunkingConfig(min_chars=0))
    assert chunks[1].text == "A Deal with Nostoc Greyspine\nGroup Investigation"
    assert (chunks[1].line_start, chunks[1].line_end) == (14, 14)
    assert len(chunks) == 11


def test_campaign_and_fractional_session_names():
    c2 = chunk_note(fixture("C2 Session 20.md"), "cr", CFG)
    assert [c.name for c in c2] == ["C2 Session 20"]
    assert c2[0].entities == ("Caleb Widogast", "Beacon", "Essek Thelyss", "Jester Lavorre", "Traveler")
    bonus = chunk_note(fixture("Session Notes/Arc One/Session 20.5.md"), "toa", CFG)
    assert [c.name for c in bonus] == ["Session 20.5", "Session 20.5 (2)"]
    assert bonus[0].session == 20.5


def test_real_vault_bullet_quirks_one_space_tops_and_space_nesting():
    chunks = chunk_note(fixture("Session Notes/Arc One/Session 20.5.md"), "toa", CFG)
    assert summary(chunks) == [
        (
            "Session 20.5",
            "",
            "Party arrives at Port Nyanzaru on a rainy morning and meets the harbour master.\n"
            "- Pays 15 gold in docking fees\n  - Grumbles about it",
            1,
            3,
        ),
        (
            "Session 20.5 (2)",
            "",
            "Star bullet indented by one space\nPlus bullet indented by one space",
            4,
            5,
        ),
    ]


def test_a_tiny_last_bullet_stays_alone_rather_than_drowning_in_a_long_one():
    long = (
        "Finding Foreman Herris, they learn of the nightmarish creatures he has seen in the lower tunnels: "
        "stitched goblins, mutated slimes and a swollen duergar."
    )
    chunks = chunk_note(note(f"## Deal\n- {long}\n- Herris gives them a map.\n"), "c", CFG)
    assert [c.text for c in chunks] == [f"Deal\n{long}", "Deal\nHerris gives them a map."]


def test_nesting_by_two_or_four_spaces_or_tabs_and_mixed_top_level_indent():
    body = (
        "- Alpha one two three\n  - two-space child\n    - four-space grandchild\n"
        " - one-space top level\n- Beta\n\t- tab child\n    continuation line\n"
    )
    chunks = chunk_note(note(body), "c", ChunkingConfig(min_chars=0))
    assert [c.text for c in chunks] == [
        "Alpha one two three\n- two-space child\n  - four-space grandchild",
        "one-space top level",
        "Beta\n- tab child\n  continuation line",
    ]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 3), (4, 4), (5, 7)]


def test_tiny_bullets_merge_but_never_across_headings():
    body = "## Loot\n- 3 spears\n- a coral\n## Next Session\n- Level up\n- Visit the bar\n"
    chunks = chunk_note(note(body), "c", CFG)
    assert summary(chunks) == [
        ("Session 1 · Loot", "Loot", "Loot\n3 spears\na coral", 2, 3),
        ("Session 1 · Next Session", "Next Session", "Next Session\nLevel up\nVisit the bar", 5, 6),
    ]


def test_long_bullet_is_split_on_sentences_with_overlap():
    sentences = [f"Sentence number {i} tells what the party did next in the mines." for i in range(1, 8)]
    body = "## Fight\n- " + " ".join(sentences) + "\n"
    cfg = ChunkingConfig(max_chars=150, min_chars=0, overlap_sentences=1)
    chunks = chunk_note(note(body), "c", cfg)
    bodies = [c.text.removeprefix("Fight\n") for c in chunks]
    assert all(c.text.startswith("Fight\n") and len(c.text) <= 150 for c in chunks)
    assert bodies == [
        " ".join(sentences[0:2]),
        " ".join(sentences[1:3]),
        " ".join(sentences[2:4]),
        " ".join(sentences[3:5]),
        " ".join(sentences[4:6]),
        " ".join(sentences[5:7]),
    ]
    assert {(c.line_start, c.line_end) for c in chunks} == {(2, 2)}
    no_overlap = chunk_note(note(body), "c", cfg.model_copy(update={"overlap_sentences": 0}))
    assert [c.text.removeprefix("Fight\n") for c in no_overlap] == [
        " ".join(sentences[0:2]),
        " ".join(sentences[2:4]),
        " ".join(sentences[4:6]),
        sentences[6],
    ]


def test_a_long_paragraph_is_never_cut_after_a_title():
    """CRD3 episode 1 ended a passage on "…they introduce themselves as Vox Machina. Dr." and began the next with
    the rest of the name: a passage is cut between sentences, and "Dr. Dranzel" is inside one."""
    text = (
        "The guards ask who the group are, and they introduce themselves as Vox Machina. Dr. Dranzel of the Tal'Dorei "
        "council greets them at the gate and leads them inside. Mr. Greyspine waits by the fire with a map."
    )
    chunks = chunk_note(note(f"- {text}\n"), "c", ChunkingConfig(max_chars=110, min_chars=0, overlap_sentences=0))
    assert [c.text for c in chunks] == [
        "The guards ask who the group are, and they introduce themselves as Vox Machina.",
        "Dr. Dranzel of the Tal'Dorei council greets them at the gate and leads them inside.",
        "Mr. Greyspine waits by the fire with a map.",
    ]


def test_a_single_sentence_longer_than_max_chars_is_split_on_whitespace():
    words = " ".join(f"word{i:03d}" for i in range(60))  # 479 characters, no sentence end
    chunks = chunk_note(note(f"- {words}\n"), "c", ChunkingConfig(max_chars=100, min_chars=0))
    assert all(len(c.text) <= 100 for c in chunks)
    assert " ".join(c.text for c in chunks) == words


def test_prose_is_packed_by_whole_paragraphs_per_heading_section():
    p = [f"Paragraph {i} is about the story and has some length to it." for i in range(1, 5)]
    body = f"{p[0]}\n\n{p[1]}\n\n{p[2]}\n\n## Later\n{p[3]}\n"
    chunks = chunk_note(note(body, "Lore/History.md"), "c", ChunkingConfig(max_chars=160, min_chars=0))
    assert summary(chunks) == [
        ("History", "", f"History\n{p[0]}\n\n{p[1]}", 1, 3),
        ("History (2)", "", f"History\n{p[2]}", 5, 5),
        ("History · Later", "Later", f"History\nLater\n{p[3]}", 8, 8),
    ]
    assert {c.kind for c in chunks} == {"Lore"}


def test_prose_paragraph_longer_than_max_chars_is_split_on_sentences():
    text = " ".join(f"The widow spoke to her son for the {i}th time." for i in range(1, 9))
    chunks = chunk_note(note(text, "story.txt"), "c", ChunkingConfig(max_chars=120, min_chars=0))
    assert len(chunks) > 3
    for c in chunks:
        body = c.text.removeprefix("story\n")
        assert len(c.text) <= 120 and body in text and body.endswith(".")


def test_fenced_code_tables_quotes_callouts_tasks_and_rules():
    body = (
        "```mermaid\ngraph TD\nA --> B\n```\n"
        "```\nkeep this code\n```\n"
        "| Animal | Clue |\n| --- | --- |\n| A lion | Ate the zebra |\n\n"
        "> [!note] The Oracle\n> speaks **twice**\n\n"
        "---\n"
        "- [ ] Buy rope\n- [x] Sell the gem\n"
    )
    chunks = chunk_note(note(body), "c", ChunkingConfig(min_chars=0))
    assert [c.text for c in chunks] == [  # prose blocks are packed together, bullets stand alone
        "keep this code\n\nAnimal | Clue\nA lion | Ate the zebra\n\nThe Oracle\nspeaks twice",
        "Buy rope",
        "Sell the gem",
    ]
    assert [(c.line_start, c.line_end) for c in chunks] == [(6, 13), (16, 16), (17, 17)]


def test_a_dataview_query_in_a_line_and_a_callouts_look_are_not_text():
    """Obsidian shows `=this.Gender` as what Dataview computes and "[!blank-container | wide-3]" as a box: a
    real vault's party pages had read "A Member of the =this.City.Province.SuperProvince.Family" as their text."""
    body = (
        "> [!blank-container | wide-3]\n> A monk of the `=this.Clan`, with `$= dv.current().age` years. "
        "He keeps `the old seal`.\n"
    )
    chunks = chunk_note(note(body), "c", ChunkingConfig(min_chars=0))
    assert [c.text for c in chunks] == ["A monk of the , with years. He keeps the old seal."]


def test_the_front_matters_summary_is_the_notes_first_passage_cited_at_its_line(tmp_path):
    """A session template's "summary:" is the player's own account of the evening: search must find it."""
    body = (
        "---\ntags: session\nsummary: The party joined the **Kyotsu no michi** and met [[Bayushi Nagitane]], who\n"
        "  offered papers through Scorpion lands.\ndate: 2024-03-01\n---\n# Session 1\n## Road\n"
        "We ride north to the castle, where the gates are shut.\n"
    )
    chunks = chunk_note(note(body), "c", ChunkingConfig(min_chars=0))
    assert summary(chunks) == [
        (
            "Session 1 · Summary",
            "",
            "The party joined the Kyotsu no michi and met Bayushi Nagitane, who offered papers through Scorpion lands.",
            3,
            3,
        ),
        ("Session 1 · Road", "Road", "Road\nWe ride north to the castle, where the gates are shut.", 9, 9),
    ]
    assert chunks[0].entities == ("Bayushi Nagitane",)
    assert [c.summary for c in chunks] == [True, False]  # it retells the evening: searched for less
    alone = "---\nsummary: A long day on the road north.\n---\nWe ride north, and the gates are shut.\n"
    assert [c.text for c in chunk_note(note(alone), "c", ChunkingConfig())] == [
        "A long day on the road north.",
        "We ride north, and the gates are shut.",
    ]  # a passage of its own, not packed with the prose that opens the note
    (tmp_path / "Mayor.md").write_text(
        "---\ngm-only: true\ndescription: The mayor leads the cult.\n---\nHe has keys.\n"
    )
    notes, _ = load_notes(tmp_path, NotesConfig(), SecretsConfig())
    assert [(c.text, c.visibility) for c in chunk_notes(notes, "c", ChunkingConfig())] == [
        ("Mayor\nThe mayor leads the cult.", "gm"),  # named "Mayor · Summary"
        ("Mayor\nHe has keys.", "gm"),
    ]
    listed = "---\nsummary:\n  - not prose\ndescription: 12\n---\nShort text here.\n"
    assert [c.text for c in chunk_note(note(listed, "Notes/Misc.md"), "c", ChunkingConfig())] == [
        "Misc\nShort text here."
    ]


def test_an_admonition_box_is_prose_under_its_title_and_its_settings_are_not_text():
    """The Admonition plugin's box (```ad-summary) is Markdown in a fence: its title names its text as a heading
    does, its collapse and icon lines are its look, its links read as shown; the text after it is the outer
    scene's again."""
    body = (
        "## The Road\n"
        "```ad-summary\ntitle: Last Session Recap\ncollapse: open\n\n"
        "The party frees **Yvette** from [[Redbrands|the Redbrands]].\n\n```\n"
        "Zinna feeds the family.\n"
        "```ad-note\nNo title here, [[Jonah]] talks.\n```\n"
    )
    chunks = chunk_note(note(body), "c", ChunkingConfig(min_chars=0))
    assert [(c.heading, c.text) for c in chunks] == [
        ("Last Session Recap", "Last Session Recap\nThe party frees Yvette from the Redbrands."),
        ("The Road", "The Road\nZinna feeds the family.\n\nNo title here, Jonah talks."),
    ]
    assert (chunks[0].line_start, chunks[0].line_end) == (6, 6)


def test_pages_get_their_title_as_prefix_and_their_folder_as_kind():
    chunks = chunk_note(fixture("NPCs/Foreman Herris.md"), "demo", CFG)
    assert summary(chunks) == [
        (
            "Foreman Herris",
            "",
            "Foreman Herris\nForeman of the Greyspine Quarry. Gruff but fair.\n\n"
            "He lost two workers to the things below and wants them avenged.",
            5,
            7,
        ),
        (
            "Foreman Herris · Appearance",
            "Appearance",
            "Foreman Herris\nAppearance\nA stout dwarf with a soot-black beard.",
            10,
            10,
        ),
    ]
    assert {(c.kind, c.session) for c in chunks} == {("NPCs", None)}


def test_crlf_and_stray_carriage_returns_do_not_reach_the_text(tmp_path):
    (tmp_path / "Session 3.md").write_bytes(b"## Camp\r\n- The party\r rests.\r\n- Watch\r\n")
    notes, _ = load_notes(tmp_path, NotesConfig())
    chunks = chunk_notes(notes, "c", CFG)
    assert summary(chunks) == [("Session 3 · Camp", "Camp", "Camp\nThe party rests.\nWatch", 2, 3)]


def test_notes_with_nothing_to_say_give_no_chunks():
    assert chunk_note(note("![[map.png]]\n%% only a comment %%\n\n---\n"), "c", CFG) == []


def test_ids_and_hashes_are_stable_and_campaign_scoped():
    notes, _ = load_notes(FIXTURES, NotesConfig())
    first = chunk_notes(notes, "demo", CFG)
    again = chunk_notes(load_notes(FIXTURES, NotesConfig())[0], "demo", CFG)
    assert [(c.id, c.content_hash) for c in first] == [(c.id, c.content_hash) for c in again]
    assert len({c.id for c in first}) == len(first)
    other = chunk_notes(notes, "other", CFG)
    assert not {c.id for c in first} & {c.id for c in other}
    assert [c.source for c in first] == sorted(c.source for c in first)


@pytest.mark.skipif(not (CRD3 / "C1 Session 2.md").exists(), reason="shared CRD3 data not present")
def test_crd3_episode_2_evidence_lands_in_one_chunk_of_session_2():
    text = (CRD3 / "C1 Session 2.md").read_text(encoding="utf-8")
    parsed = parse_note(text, "C1 Session 2.md", NotesConfig())
    chunks = chunk_note(parsed, "crd3", CFG)
    hits = [c for c in chunks if norm("Herris gives them a map of the mines") in norm(c.text)]
    assert len(hits) == 1
    assert (hits[0].session, hits[0].campaign_no, hits[0].heading) == (2, 1, "A Deal with Nostoc Greyspine")
    assert hits[0].name == "C1 Session 2 · A Deal with Nostoc Greyspine (4)"  # note · scene (n-th there)
    lines = text.split("\n")
    assert any("Herris gives them a map" in lines[n - 1] for n in range(hits[0].line_start, hits[0].line_end + 1))
    assert all(len(c.text) <= CFG.max_chars for c in chunks)


def test_quotes_and_paragraphs_nested_under_a_bullet_stay_with_it():
    body = "- The statue tells a story:\n\n    > Man stood by the river.\n    Crocodile raised his head.\n- Next\n"
    chunks = chunk_note(note(body), "c", ChunkingConfig(min_chars=0))
    assert [c.text for c in chunks] == [
        "The statue tells a story:\nMan stood by the river.\nCrocodile raised his head.",
        "Next",
    ]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 4), (5, 5)]


def test_bullets_without_any_word_are_not_chunks():
    chunks = chunk_note(note("## Part I\n- .\n- 🐉\n## Part II\n- The spell fades. 🐉\n"), "c", CFG)
    assert [c.text for c in chunks] == ["Part II\nThe spell fades. 🐉"]


def test_each_passage_carries_its_neighbours_as_context_within_its_note():
    body = "# Session Start\n## Tunnels\n" + "".join(f"- Bullet {n} " + "word " * 30 + "\n" for n in "ABCD")
    chunks = chunk_note(note(body), "demo", CFG)
    texts = [c.text for c in chunks]
    assert len(chunks) == 4
    assert chunks[0].context == "\n".join(texts[:2])  # the first has only a next neighbour
    assert chunks[2].context == "\n".join(texts[1:4])
    assert chunks[3].context == "\n".join(texts[2:])
    wider = chunk_note(note(body), "demo", ChunkingConfig(context_window=2, min_chars=120))
    assert wider[0].context == "\n".join(texts[:3])
    alone = chunk_note(note(body), "demo", ChunkingConfig(context_window=0, min_chars=120))
    assert [c.context for c in alone] == [""] * 4 and [c.text for c in alone] == texts
    assert alone[1].id == chunks[1].id and alone[1].content_hash != chunks[1].content_hash  # same passage, re-indexed

    other = chunk_notes([note(body), note(body.replace("Bullet", "Line"), "Session 2.md")], "demo", CFG)
    assert "Line" not in other[3].context and "Bullet" not in other[4].context  # never across notes


def test_a_lead_in_paragraph_keeps_the_list_it_introduces():
    text = (
        "# Session Start\n## The Shop\nAfter the fight in the market she went back to the shop of the old gnome "
        "and later inspected her new magic item in the light. It is cursed with the following effects:\n"
        "- Your hair turns white\n- You cannot lie\n"
    )
    note = parse_note(text, "Session 16.md", NotesConfig())
    chunks = chunk_note(note, "demo", CFG)
    cursed = next(c for c in chunks if "cursed" in c.text)
    assert "Your hair turns white" in cursed.text and "You cannot lie" in cursed.text
    apart = chunk_note(note, "demo", ChunkingConfig(lead_in=False, min_chars=120))
    assert "Your hair turns white" not in next(c for c in apart if "cursed" in c.text).text


def test_a_lead_in_whose_list_does_not_fit_after_earlier_paragraphs_starts_a_passage_with_it():
    """vault-carminus: the paragraph "He mentions a few items that he would need to burn…:" was packed after two
    paragraphs, its list had room for one item, and the other three opened the next passage. Neither passage said
    what the ritual needs."""
    earlier = "Edgar heads back to Castella after the team went their separate ways, and talks to Rorax. " * 6
    text = (
        f"{earlier}\n\n{earlier}\n\nKarael talks about a ritual that would make the flame stronger. He mentions a few "
        "items that he would need to burn to conduct the ritual:\n\n - A bone from a devil (in Cedrik's collection "
        "already!)\n - A pinch of black powder (something he can get from Vetri)\n - A ruby\n - Ash from a dead evil "
        "humanoid's body\n\nThe only item he lacks is the ash.\n"
    )
    chunks = chunk_note(parse_note(text, "Session 4.md", NotesConfig()), "demo", ChunkingConfig(max_chars=800))
    ritual = next(c for c in chunks if "need to burn" in c.text)
    assert all(item in ritual.text for item in ("A bone from a devil", "A ruby", "Ash from a dead evil"))
    assert any(c.text.startswith("Edgar heads back") and "ritual" not in c.text for c in chunks)  # nothing lost


def test_an_unpunctuated_line_right_above_a_list_keeps_it():
    """Typed at the table: the list finishes the sentence. With a blank line between, it may be a list of its own."""
    prose = (
        "Right before sunrise, Brysh uses the veil and sees no one spying on the camp or the boat, and the party "
        "packs up to leave the jungle.\n\nWe discussed passphrases to convey that Valindra is watching\n"
    )
    items = '- "Conversation beyond the veil": use the veil to talk\n- "The weather isn\'t good tonight": she watches\n'
    for gap, together in (("", True), ("\n", False)):
        note = parse_note(f"# Session 17\n## Returning\n{prose}{gap}{items}", "Session 17.md", NotesConfig())
        passphrases = next(c for c in chunk_note(note, "demo", CFG) if "passphrases" in c.text)
        assert ("The weather isn't good tonight" in passphrases.text) is together
    bullets = "".join(
        f"- met the barmaid number {n} of the tavern, who had a lot to say about the pterafolk\n" for n in range(6)
    )
    note = parse_note(f"Open in the tavern in Port Nyanzaru, level 2\n{bullets}", "Session 2.md", NotesConfig())
    opener = next(c for c in chunk_note(note, "demo", CFG) if "Open in the tavern" in c.text)
    assert "number 1" not in opener.text  # a session's own bullets under its opening line stay passages of their own


def test_short_bullets_are_merged_until_a_passage_says_who_and_where():
    """Bullets typed at the table ("Worth 500-600 gold") say neither who nor where; by default a passage takes in
    the bullets after it until it holds 500 characters, so the one that answers comes with its scene."""
    body = (
        "## Archie's shop\n"
        "- Archie, the blind old dwarf, hires us: his shop was ransacked last night\n"
        "- At night people came in and stole a shipment\n"
        "- Shipment: 4 crates, stamped, various herbs, nice bottles, powdered magnesium\n"
        "- Worth 500-600 gold\n"
        "- Backroom: cold, damp, a rectangle on the floor\n"
    )
    merged = chunk_note(note(body), "c", ChunkingConfig())
    worth = next(c for c in merged if "Worth 500-600 gold" in c.text)
    assert "Archie" in worth.text and "Archie's shop" in worth.text
    apart = chunk_note(note(body), "c", ChunkingConfig(min_chars=120))
    assert "Archie, the blind" not in next(c for c in apart if "Worth 500-600 gold" in c.text).text
