"""The campaign as players remember it (rag.campaign): the cast, the timeline and recaps, on the shared dev
vaults and on small vaults of our own, through the Pipeline (player view, session cap) and the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rag.campaign.entities import Entity, entity_index, mentions, resolve, session_label
from rag.campaign.recap import MAX_LINES, coverage, recap_session, tells
from rag.campaign.table_talk import TableTalk
from rag.campaign.timeline import evening_title, timeline
from rag.cli import main
from rag.config import load_config
from rag.ingest.indexing import prepare_chunks
from rag.ingest.markdown import strip_comments
from rag.ingest.parse import parse_note
from rag.models import Filters
from rag.models.dates import date_in_name, parse_date
from rag.pipeline import Pipeline
from tests.helpers import SHARED, needs_shared, write_notes
from tests.secret_vault import canaries_in, write_secret_vault

LINK = re.compile(r"(?<!!)\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")
VAULTS = {"vault-toa": SHARED / "vault-toa", "crd3": SHARED / "crd3-notes"}
DEMO = Path(__file__).resolve().parent.parent / "data" / "demo" / "notes"


def plain_scan(folder) -> dict[str, tuple]:
    """Each [[link]] target's first session, read straight from the session notes' text."""
    config = load_config()
    first: dict[str, tuple] = {}
    for path in sorted(folder.rglob("*.md")):
        note = parse_note(path.read_text(encoding="utf-8"), path.relative_to(folder).as_posix(), config.notes)
        if note.kind != "session" or note.session is None:
            continue
        key = (note.campaign_no or 0, note.session)
        for target in LINK.findall(strip_comments(note.body)):
            name = " ".join(target.split("/")[-1].split()).casefold()
            if name and (name not in first or key < first[name]):
                first[name] = key
    return first


@pytest.mark.parametrize("vault", VAULTS)
def test_every_linked_entitys_first_session_is_what_the_files_say(vault):
    folder = VAULTS[vault]
    if not folder.is_dir():
        pytest.skip(f"{folder} is not beside this checkout")
    chunks, _, _ = prepare_chunks(load_config(), folder, vault)
    entities = entity_index(chunks)
    scanned = plain_scan(folder)
    assert len(scanned) > 50
    wrong = {}
    owner = {name: resolve(entities, name) for name in scanned}
    by_id = {c.id: c for c in chunks}
    for e in entities:  # an entity appears where any name that means it is linked first, or named before that
        expected = min((key for name, key in scanned.items() if owner[name] is e), default=None)
        named = {(by_id[i].campaign_no or 0, by_id[i].session) for i in e.passages if by_id[i].kind == "session"}
        if expected is not None and (
            e.first_session is None or e.first_session > expected or e.first_session not in named
        ):
            wrong[e.name] = (expected, e.first_session)
    missing = [n for n in scanned if owner[n] is None]  # every linked name has its entry
    assert (wrong, missing) == ({}, [])


@needs_shared
def test_other_names_are_one_entity():
    chunks, _, _ = prepare_chunks(load_config(), SHARED / "vault-toa", "toa")
    entities = entity_index(chunks)
    locke = resolve(entities, "The Professor")  # a front matter alias
    assert locke is not None and locke.name == "Locke Hancock" and "Locke" in locke.aliases
    assert locke.kind == "PCs" and locke.page == "PCs/Locke Hancock.md"
    assert resolve(entities, "locke") is locke  # any case
    crd3, _, _ = prepare_chunks(load_config(), SHARED / "crd3-notes", "crd3")
    scanlan = resolve(entity_index(crd3), "Scanlan")  # from [[Scanlan Shorthalt|Scanlan]] links
    assert scanlan is not None and scanlan.name == "Scanlan Shorthalt"


@needs_shared
@pytest.mark.parametrize("vault", ["vault-toa", pytest.param("crd3", marks=pytest.mark.long)])  # 159 episodes: ~30 s
def test_recaps_cite_only_their_session_and_cover_its_scenes(vault):
    config = load_config()
    chunks, _, _ = prepare_chunks(config, VAULTS[vault], vault)
    by_id = {c.id: c for c in chunks}
    talk = TableTalk(chunks, entity_index(chunks), config.table_talk)
    entries = timeline(chunks)
    covered = []
    for entry in entries:
        lines = recap_session(chunks, entry.key, talk)
        assert len(lines) <= MAX_LINES
        for line in lines:  # citation precision 1.0: the line is that session's passage's own words
            cited = by_id[line.chunk_id]
            assert line.text in cited.text and (cited.campaign_no or 0, cited.session) == entry.key
            assert line.label == cited.name
        order = [(by_id[x.chunk_id].source, by_id[x.chunk_id].position) for x in lines]
        assert order == sorted(order)  # story order
        if any(not talk.passage(c) for c in chunks if (c.campaign_no or 0, c.session) == entry.key):
            assert not [x.text for x in lines if talk.line(by_id[x.chunk_id], x.text)], entry.label  # the story only
        covered.append(coverage(chunks, entry.key, lines, talk))
    assert sum(covered) / len(covered) > 0.95  # of the story's scenes: 0.988 vault-toa, 0.991 CRD3 (2026-11-27)


def test_the_demos_last_session_recap_tells_the_story_not_the_show():
    """Session 10 of the demo is mostly the show around the game: a cake, donations, shirts, a long Q&A."""
    chunks, _, _ = prepare_chunks(load_config(), DEMO, "demo")
    pipeline = Pipeline(load_config(), passages_loader=lambda campaign, view: chunks)
    lines = pipeline.recap([(1, 10)], "demo")
    assert len(lines) >= 3 and {x.scene for x in lines} == {"Part I", "Part II"}  # the game's two halves
    said = " ".join(x.text for x in lines).casefold()
    for word in ("cake", "donat", "shirt", "q&a", "matt ", "zac"):
        assert word not in said
    everything = pipeline.recap([(1, s) for s in range(1, 11)], "demo")
    assert everything and all(x.scene not in SHOW for x in everything)


def test_a_recap_is_told_in_sentences_from_a_summarys_points_else_its_paragraphs_openings(tmp_path):
    """A "Session Summary" is often the whole evening written up, a paragraph of many sentences each; a list of
    "Key Events" beside it says the same shortly. The recap tells the list; a summary only in prose is told by each
    paragraph's opening sentence, not paragraph by paragraph ("Every line is a sentence of your notes")."""
    prose = (
        "The party questions the captured man at the gate. He admits the raiders camp to the south. Garus binds him."
        " He tries to run. Edgewyn stops him.\n\n"
        "The party moves on and reaches the temple. A stone wall surrounds it. Kobolds work a battering ram there."
    )
    events = (
        "- The captured man reveals that the raiders camp four hours to the south.\n"
        "- The party reaches the temple under attack by kobolds and cultists.\n"
        "- Thora hides the party in fog while a patrol passes by."
    )
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": f"## Session Summary\n{prose}\n\n## Key Events\n{events}\n",
            "Session 2.md": f"## Session Summary\n{prose}\n",
        },
    )
    chunks, _ = timeline_of(vault)
    talk = TableTalk(chunks, entity_index(chunks), load_config().table_talk)
    first, second = (recap_session(chunks, (0, n), talk) for n in (1, 2))
    assert [x.text for x in first] == [line.removeprefix("- ") for line in events.split("\n")]
    assert [x.text for x in second] == [
        "The party questions the captured man at the gate.",
        "The party moves on and reaches the temple.",
    ]


def test_a_recap_tells_the_front_matters_summary_sentence_by_sentence(tmp_path):
    """A session template's "summary:" is the note-taker's own choice of what mattered (a real vault's recap of
    such a session had quoted a sword's description and skipped the kill)."""
    summary = "We joined the conspiracy against Haruhisa. Nagitane offered papers through Scorpion lands."
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": f"---\nsummary: {summary}\n---\n## Road\n- It is a very nice sword, nothing special.\n"
            "## Camp\n- We make camp by the river and keep watch.\n## Castle\n- The castle gates are shut to us.\n"
        },
    )
    chunks, _ = timeline_of(vault)
    talk = TableTalk(chunks, entity_index(chunks), load_config().table_talk)
    lines = recap_session(chunks, (0, 1), talk)
    assert [(x.text, x.label) for x in lines][:2] == [
        ("We joined the conspiracy against Haruhisa.", "Session 1 · Summary"),
        ("Nagitane offered papers through Scorpion lands.", "Session 1 · Summary"),
    ]
    assert "It is a very nice sword, nothing special." not in [x.text for x in lines]


def test_an_aside_in_parentheses_is_no_line_of_a_recap():
    """ "(sorry I didn't take good notes)", "(Note, the circlet was not something she made with him)": the note-taker
    talking to the reader, not the story; a sentence with a parenthesis inside it still tells."""
    assert not tells("(sorry I didn't take good notes)")
    assert not tells("(Note, the circlet was not something that she made with him.)")
    assert tells("All (except Klepto) meet in the Nightmare Stables Inn and have breakfast.")


def test_a_recap_of_many_sessions_tells_of_every_one(tmp_path):
    """Sessions 1 to 11 of notes typed as one scene each: a short session's three lines once filled the recap, which
    stopped at session 4 without a word about the rest."""
    story = "The party rides north to the {0} ford. A troll named Grisk {1} there. They camp under the old oaks."
    vault = write_notes(
        tmp_path / "v",
        {f"Session {n}.md": "- " + story.format(f"{n}th", "waits" if n % 2 else "sleeps") for n in range(1, 12)},
    )
    pipeline = Pipeline(load_config(overrides={"data_dir": str(tmp_path / "data")}))
    pipeline.index(vault, "long")
    lines = pipeline.recap([(0, n) for n in range(1, 12)], "long")
    assert [x.session_label for x in lines] == [f"Session {n}" for n in range(1, 12)]  # each once, in order
    assert len(pipeline.recap([(0, 1), (0, 2)], "long")) == 6  # two sessions still get their three lines each


def test_a_session_of_few_scenes_is_told_by_more_of_its_passages_and_not_its_dice(tmp_path):
    """A real vault's session 11 (kingmaker, training): two headings over eighty lines once gave three recap lines,
    the third a line of dice ("sickle strike ducim, 27 crit for 10 s."). A session with fewer scenes than lines is
    told by more of its passages, the longer scene by more; the game's arithmetic is no line of its story."""
    chasm = [f"The party crosses chasm number {n} on a rope, and the mitflits watch them go." for n in "ABCDEF"]
    fight = ["sickle strike ducim, 27 crit for 10 s.", "strat tartuk, 18 would miss. cast shield."]
    cave = ["We reach the cave of the kobolds, and the old chief is glad to see us again."]
    body = "## Chasm\n\n" + "\n\n".join(chasm) + "\n\n## Cave\n\n" + "\n\n".join(fight + cave) + "\n"
    vault = write_notes(tmp_path / "v", {"Session 11.md": body})
    config = load_config(overrides={"chunking": {"max_chars": 120, "min_chars": 60}})  # a passage a paragraph
    chunks, _, _ = prepare_chunks(config, vault, "v")
    talk = TableTalk(chunks, entity_index(chunks), config.table_talk)
    lines = recap_session(chunks, (0, 11.0), talk)
    said = [x.text for x in lines]
    assert cave[0] in said and not {*fight} & set(said) and not any("27 crit" in x for x in said)
    assert 5 <= len(lines) <= MAX_LINES and sum(x.scene == "Chasm" for x in lines) == len(lines) - 1


def test_a_last_session_recap_box_is_no_line_of_this_sessions_recap(tmp_path):
    """A real vault (vault-nova, training) opens each note with a "Last Session Recap" box: the recap of sessions 7
    to 17 told each by the box, so each line was the session before's and the sessions' own events were left out."""
    box = "```ad-summary\ntitle: Last Session Recap\ncollapse: open\n\nWe blasted the wizard in his manor cellar.\n```\n\n"
    notes = "#### Notes\n- Corrin smashes Klarg to death with the hammer in the cave.\n- The party loots the cave.\n"
    vault = write_notes(tmp_path / "v", {"Session 17.md": box + notes})
    chunks, entries = timeline_of(vault)
    lines = [x.text for x in recap_session(chunks, (0, 17.0), TableTalk(chunks, [], load_config().table_talk))]
    assert lines and not [x for x in lines if "wizard" in x] and any("Klarg" in x for x in lines)
    assert entries[0].scenes == ["Notes"]  # the box is no scene of this evening


SHOW = {"Pre-Show", "Announcements", "Previously on Critical Role", "Recap", "Break", "Post-Show", "Q&A", "Afterword"}


def test_table_talk_is_left_out_unless_nothing_else_is_left(tmp_path):
    table = "## Announcements\n- [[Matthew Mercer|Matt]] thanks [[Zac Eubank|Zac]] for the new cloak and the shirts.\n"
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": table + "## Harbour\n- The party meets [[Reyes]] at the harbour of Brightwater.\n",
            "Session 2.md": table
            + "## Break\n- [[Zac Eubank|Zac]] brings a cake for [[Matthew Mercer|Matt]] and the tenth episode.\n"
            "## Docks\n- [[Reyes]] and [[Bram]] argue about the stolen cargo on the docks.\n"
            "- [[Matthew Mercer|Matt]] reminds the chat that shirts are on sale until Friday.\n"
            "## Night\n- A fire breaks out in the warehouse and the party saves the cargo.\n",
            "Session 3.md": '## Recap\n- "Last time, our heroes reached the harbour of Brightwater."\n'
            '- "There they met a captain named Reyes."\n' + table,
        },
    )
    chunks, _, _ = prepare_chunks(load_config(), vault, "v")
    pipeline = Pipeline(load_config(), passages_loader=lambda campaign, view: chunks)
    two = " ".join(x.text for x in pipeline.recap([(0, 2)], "v"))
    assert "cargo" in two and "cake" not in two and "cloak" not in two  # the break and the announcements
    assert "shirts" not in two  # a line about the players, in a scene of the story
    three = [x.text for x in pipeline.recap([(0, 3)], "v")]  # a read-out and announcements: nothing else is left
    assert three and any("Brightwater" in t for t in three)
    first_seen = {e.label: e.first_seen for e in pipeline.timeline("v")}  # the story's people, not the table's
    assert first_seen == {"Session 1": ["Reyes"], "Session 2": ["Bram"], "Session 3": []}


def test_who_first_appears_leaves_out_a_cast_list_linked_once_around_the_game(tmp_path):
    """ "[[Taliesin Jaffe]] plays Percy" in the announcements is linked once: too seldom to make a line naming him
    table talk, yet never in the story, so not someone the party met. Allura, linked around the game too but told
    of in a read-out recap, is in the story."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "## Announcements\n- [[Taliesin Jaffe]] plays [[Percy]].\n- [[Allura]] fan art tonight.\n"
            '## Recap\n- "The party was hired by [[Allura]]."\n- "They went north."\n'
            "## Road\n- [[Percy]] meets [[Reyes]] on the road.\n",
        },
    )
    chunks, entries = timeline_of(vault)
    assert sorted(entries[0].first_seen) == ["Allura", "Percy", "Reyes"]


def timeline_of(vault):
    """The vault's passages and its timeline, as the Story page builds it (the default settings)."""
    config = load_config()
    chunks, _, _ = prepare_chunks(config, vault, "v")
    return chunks, timeline(chunks, entity_index(chunks), config.table_talk)


def test_the_timelines_scenes_leave_out_the_headings_of_the_note_template(tmp_path):
    """Notes written from one template have its headings in every session ("Session Summary · Key Events" on each
    row tells nothing); a heading of one session's own is its scene."""
    notes = {
        f"Session {n}.md": f"## Session Summary\nWe ride on, day {n}.\n## Key Events\n- A thing happens.\n"
        for n in range(1, 5)
    }
    notes["Session 3.md"] += "## The Ambush at the Ford\nGoblins leap from the reeds.\n"
    _, entries = timeline_of(write_notes(tmp_path / "v", notes))
    assert [e.scenes for e in entries] == [[], [], ["The Ambush at the Ford"], []]


@pytest.mark.parametrize(
    ("title", "called"),
    [
        ("Session 1: Nightstone - Arrival", "Nightstone - Arrival"),
        ("C1E001 Arrival at Kraghammer", "Arrival at Kraghammer"),
        ("Session Zero: Trickity's Traveling Troop", "Trickity's Traveling Troop"),
        ("2023-04-01 - The Heist", "The Heist"),
        ("Shimmer Down Now", "Shimmer Down Now"),
        ("Session 04", ""),
        ("2023-04-01 Session 3", ""),
        ("4 Dec 2023", ""),
        ("Session 0 and 1", ""),
        ("session 3 notes", ""),
    ],
)
def test_the_timeline_shows_what_a_session_notes_title_calls_the_evening(title, called):
    assert evening_title(title) == called


def test_timeline_reads_dates_as_written_and_who_first_appears(tmp_path):
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "---\ndate: 2023-12-1\nworld date: 3rd of Mirtul\n---\n## Harbour\n- We meet [[Reyes]].\n",
            "Session 2.md": "---\ndate: sometime in spring\n---\n## Docks\n- [[Reyes]] and [[Bram]] argue.\n",
            "Session 3.md": "## Road\n- We leave town.\n",
        },
    )
    chunks, entries = timeline_of(vault)
    assert [e.label for e in entries] == ["Session 1", "Session 2", "Session 3"]
    assert (entries[0].played.isoformat(), entries[0].world_date) == ("2023-12-01", "3rd of Mirtul")
    assert (entries[1].date, entries[1].played) == ("sometime in spring", None)  # shown as written
    assert entries[0].first_seen == ["Reyes"] and entries[1].first_seen == ["Bram"]
    assert [e.scenes for e in entries] == [["Harbour"], ["Docks"], ["Road"]]
    assert parse_date("Dec 1st, 2023").isoformat() == "2023-12-01" and parse_date("31/31/2023") is None


def test_a_misspelt_link_is_the_same_entity_but_two_pages_stay_two(tmp_path):
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "## Village\n- Ismark's father was [[Kolyan]]. [[Koylan]] tried to do his best.\n"
            "- We reach [[Valaki]] and meet [[Norda]] and [[Yorda]] at [[Esa Manor]].\n",
            "Session 2.md": "## Burial\n- We bury [[Koylan]] by the church. [[Koylan]] is at peace.\n",
            "Places/Vallaki.md": "A walled town in the valley.\n",
            "Places/Esa Minor.md": "A small village in the wilds.\n",
            "Places/The Cleave.md": "A rift in the mountains.\n",
            "Places/The Cleve.md": "A cliffside town.\n",
        },
    )
    chunks, entries = timeline_of(vault)
    entities = entity_index(chunks)
    koylan = resolve(entities, "Kolyan")
    assert koylan is not None and koylan.name == "Koylan" and koylan.aliases == ["Kolyan"]
    assert koylan.first_seen == "Session 1" and koylan.mentions == 2
    assert resolve(entities, "Valaki").name == "Vallaki"  # a misspelt link to a page is the page's
    apart = ["Norda", "Yorda", "Esa Manor", "Esa Minor", "The Cleave", "The Cleve"]
    assert [resolve(entities, n).name for n in apart] == apart
    assert entries[0].first_seen.count("Koylan") == 1 and "Kolyan" not in entries[0].first_seen


def test_a_name_written_without_its_link_is_a_mention(tmp_path):
    """Players link a name once, or never: the host linked in Session 2 is named (lower case, as typed at the table)
    in Sessions 1 and 3, and those passages are his mentions. An ordinary word is a name only as a name is written
    ("Trinket growls", not "a cheap trinket" nor a sentence's first word); a surname two people share is neither's;
    his trading post holds his name, not one of its own; his own page is not a mention."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "## Road\n- we hear of oleg's trading post from a merchant: oleg is fair, and Trinket growls at him.\n",
            "Session 2.md": "## Post\n- We reach [[Oleg's Trading Post]] and meet [[Oleg Leveton]] and [[Trinket]].\n"
            "- The Cimber twins, [[Artus Cimber]] and [[Mara Cimber]], wait there.\n",
            "Session 3.md": "## Post\n- oleg pays us while Trinket sleeps. We buy a cheap trinket.\n"
            "## Later\n- A cheap trinket again. Trinket? No. Cimber, they say, is an old name.\n",
            "NPCs/Oleg Leveton.md": "Oleg Leveton runs the post. Oleg is gruff.\n",
        },
    )
    chunks, _ = timeline_of(vault)
    entities = entity_index(chunks)
    oleg, trinket = resolve(entities, "Oleg Leveton"), resolve(entities, "Trinket")
    assert (oleg.first_seen, oleg.last_seen, oleg.mentions) == ("Session 1", "Session 3", 3)
    assert (trinket.first_seen, trinket.last_seen, trinket.mentions) == ("Session 1", "Session 3", 3)
    assert [c.heading for c in mentions(chunks, trinket)] == ["Road", "Post", "Post"]  # not "Later"
    assert [resolve(entities, n).mentions for n in ("Artus Cimber", "Mara Cimber")] == [1, 1]
    assert resolve(entities, "Oleg's Trading Post").sessions == [(0, 1.0), (0, 2.0)]


def test_names_the_notes_write_without_links_are_entries_of_their_own(tmp_path):
    """A vault without links listed only its pages: the notes' own capitals say who else is there. A run of words
    capitalised in mid-sentence is a name, with its particles ("Adrian von Brahm", who is also "Brahm"; but "Waterdeep" is not the Blackstaff of Waterdeep) and an
    abbreviated title ("Prof. Mink", never "Prof" alone); not a dictionary word ("the Inn"), a name said in one
    passage, a name in the evening's own business ("Gen Con") nor a known entity's other words ("Rolo" of the
    linked Percy de Rolo). A sentence's end parts two names ("Mme Arlette. Brahm")."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "## Arrival\n- We meet Mme Arlette at the Inn. She works for Adrian von Brahm.\n"
            "- Prof. Mink sends us to [[Percy de Rolo]]; the Rolo house is shut.\n"
            "## Announcements\n- See you all at Gen Con next month!\n",
            "Session 2.md": "## The Job\n- We are paid by Mme Arlette. Brahm is angry, and so is Prof. Mink.\n"
            "- we sleep at the Inn and talk of the Rolo house. Zander waves once.\n"
            "## Break\n- Pizza, and more about Gen Con.\n",
            "Session 3.md": "## The Factory\n- Brahm's factory burns and Adrian von Brahm flees.\n"
            "- We sail to Waterdeep, where the Blackstaff of Waterdeep waits.\n- We ask Vundus, who smiles.\n",
            "Session 4.md": "## Home\n- In Waterdeep at last. The Blackstaff of Waterdeep is gone.\n"
            "- the cult of [[Varkanus]] Vundus hinted at. Vundus leaves.\n",
            "Session 5.md": "## Later\n- [[Edgar]] shows us Edgars house, and Edgars sword.\n",
            "Session 6.md": "## Later\n- We sleep at Edgars place.\n",
        },
    )
    chunks, _ = timeline_of(vault)
    entities = entity_index(chunks)
    unlinked = {e.name: e for e in entities if e.unlinked}
    assert set(unlinked) == {
        "Mme Arlette",
        "Adrian von Brahm",
        "Prof. Mink",
        "Blackstaff of Waterdeep",
        "Waterdeep",
        "Vundus",  # once beside a linked name ("Varkanus Vundus hinted"), more often alone: a name of its own
    }  # not "Edgars", the linked Edgar's possessive typed without its apostrophe
    brahm = unlinked["Adrian von Brahm"]
    assert (brahm.aliases, brahm.first_seen, brahm.last_seen, brahm.mentions) == (
        ["Brahm"],
        "Session 1",
        "Session 3",
        3,
    )
    assert resolve(entities, "Brahm") is brahm
    assert resolve(entities, "Arlette") is unlinked["Mme Arlette"]  # never written without her title
    assert resolve(entities, "Mink") is unlinked["Prof. Mink"]
    assert resolve(entities, "Waterdeep") is unlinked["Waterdeep"]  # its own name first
    kima, hammer, vord = Entity("Lady Kima"), Entity("Kima's Hammer"), Entity("Kima of Vord")
    assert resolve([kima, hammer], "Kima") is kima  # the hammer is hers, not her
    assert resolve([kima, hammer, vord], "Kima") is None  # two names hold her name: neither is sure
    assert not resolve(entities, "Percy de Rolo").unlinked


def test_notes_typed_in_lower_case_still_list_the_names_they_capitalise_as_often_as_their_linked_ones(tmp_path):
    """A real vault typed at the table in lower case writes its linked "Izaya" capitalised one time in five, and
    "linzi" and "amiri" as often: People & places listed none of the NPCs it names in every session (vault-kingmaker
    walk). A name is a word capitalised about as often as the notes capitalise the names they link; in notes that
    capitalise their names, a word capitalised now and then is still none ("Grell" once beside "grell")."""
    lines = [
        "we talk to izaya and amiri. linzi sings. izaya waves. [[Izaya]] nods. izaya and Amiri leave the tavern.",
        "izaya sleeps; amiri and linzi talk. izaya rests and Linzi hums. izaya, [[Izaya]] again, meets Amiri.",
        "izaya walks with linzi to the tavern. Linzi sings of amiri. izaya and Izaya's friends rest.",
    ]
    notes = {f"Session {i}.md": f"## Day\n{line}\n" for i, line in enumerate(lines, 1)}
    entities = entity_index(timeline_of(write_notes(tmp_path / "lower", notes))[0])
    assert {e.name for e in entities if e.unlinked} == {"Amiri", "Linzi"}
    cased = {name: text.replace("izaya", "Izaya").replace("amiri", "Amiri") for name, text in notes.items()}
    cased = {
        name: text.replace("linzi", "Linzi").replace("the tavern", "the Tavern", 1) for name, text in cased.items()
    }
    entities = entity_index(timeline_of(write_notes(tmp_path / "cased", cased))[0])
    assert {e.name for e in entities if e.unlinked} == {"Amiri", "Linzi"}  # not "Tavern", once in three


def test_a_name_whose_common_nouns_are_written_in_lower_case_is_still_a_mention(tmp_path):
    """A real vault wrote "the Hare clan" six times and "Hare Clan" never: its page said "on no session note yet".
    The name's capital in mid-sentence marks it; at a sentence's start, or all in lower case, it does not."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "## Court\n- Recently he defiled the Hare clan and its lands.\n",
            "Session 2.md": "## Road\n- Hare clan armor, say the guards. We see the hare clan crest.\n",
            "Session 3.md": "## Road\n- They wore Hare clan armor on the road north.\n",
            "Clans/Hare Clan.md": "A minor clan of the north.\n",
        },
    )
    chunks, _ = timeline_of(vault)
    hare = resolve(entity_index(chunks), "Hare Clan")
    assert (hare.first_seen, hare.last_seen, hare.mentions) == ("Session 1", "Session 3", 2)


def test_a_vaults_readme_or_index_page_is_no_ones_entry_and_a_folders_is_the_folders(tmp_path):
    """A vault's README ("This is a vault for our sessions") or the index of a folder of a kind (the list of places)
    is about the notes, not a person or place of the story; the index page of a place's own folder (an Obsidian
    folder note) is that place's page."""
    vault = write_notes(
        tmp_path / "v",
        {
            "README.md": "# Nova-Sessions\n\nThis is a vault for the notes taken during our sessions.\n",
            "Locations/index.md": "# Welcome\n\nEvery place we went: [[Goldenfields]].\n",
            "Locations/Cities/Helm's Hold/Index.md": "## Helm's Hold Locations\n- [[Shrine of Tyr]]\n",
            "Session 1.md": "## Road\n- We ride to [[Goldenfields]], then on to Helm's Hold.\n",
            "Locations/Goldenfields.md": "A walled farming town.\n",
        },
    )
    chunks, _ = timeline_of(vault)
    cast = {e.name: (e.mentions, e.aliases) for e in entity_index(chunks)}
    assert cast == {"Goldenfields": (2, []), "Helm's Hold": (1, []), "Shrine of Tyr": (1, [])}


def test_a_quest_named_for_someone_is_not_called_by_their_first_name(tmp_path):
    """ "Naxene Drathkala's Quest" is hers: a session writing "Naxene" names her, not the quest, which is first seen
    where the notes give it."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Quests/Naxene's Quest.md": "---\naliases: [Naxene Drathkala's Quest]\n---\nSeek out a good dragon.\n",
            "Session 1.md": "## Goldenfields\n- Naxene tells us of the giants. We rest.\n",
            "Session 2.md": "## Goldenfields\n- Naxene gives us [[Naxene's Quest|her quest]].\n",
        },
    )
    chunks, _ = timeline_of(vault)
    quest = resolve(entity_index(chunks), "Naxene's Quest")
    assert (quest.first_seen, quest.mentions) == ("Session 2", 1)


def test_a_title_several_names_begin_with_is_nobodys_other_name(tmp_path):
    """A note-taker links a title to the one it means there ("the [[Burgomaster Vargas|Burgomaster]]"); the notes'
    other burgomasters keep their own scenes, and Vargas is first seen where the notes first name him. A name
    that begins several names ("Velakki Orphanage", "Velakki Gate"), never written in lower case, is its own."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "## Barovia\n- We meet [[Burgomaster Ismark Koylanovich]], the burgomaster here.\n"
            "- Burgomaster Ismark sends us to [[Town of Velakki|Velakki]].\n",
            "Session 2.md": "## Velakki\n- The [[Burgomaster Vargas Velokovich|Burgomaster]] has us arrested.\n"
            "- We visit the [[Velakki Orphanage]] and the [[Velakki Gate]].\n",
            "Session 3.md": "## Kresk\n- [[Burgomaster Dimitri Kreskov]] lets us in.\n",
        },
    )
    chunks, _ = timeline_of(vault)
    cast = {e.name: (e.first_seen, e.mentions, e.aliases) for e in entity_index(chunks)}
    assert cast["Burgomaster Vargas Velokovich"] == ("Session 2", 1, [])
    assert cast["Burgomaster Ismark Koylanovich"][:2] == ("Session 1", 1)
    assert cast["Town of Velakki"][2] == ["Velakki"]


def test_a_quests_done_or_failed_mark_is_no_part_of_its_name(tmp_path):
    """Note-takers mark a quest's file done or failed ("✓ Find Leosin", "✗ The Greenest Mill"); People & places
    names the quest, and still finds the sessions linking its file."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Quests/✓ Find Leosin.md": "Find the monk Leosin, taken by the raiders.\n",
            "Quests/✗ The Greenest Mill.md": "Save the mill from the raiders.\n",
            "Session 1.md": "## Greenest\n- We take on [[✓ Find Leosin]] and [[✗ The Greenest Mill|the mill]].\n",
        },
    )
    chunks, _ = timeline_of(vault)
    entities = entity_index(chunks)
    assert sorted(e.name for e in entities) == ["Find Leosin", "The Greenest Mill"]
    assert [e.first_seen for e in entities] == ["Session 1", "Session 1"]


def test_a_session_linking_its_day_was_played_that_day_and_the_day_is_no_one_seen(tmp_path):
    """Obsidian's calendar links the day's note at the top of a session's notes: the timeline shows the date, and
    neither the day, a handout's file nor a session linked is listed among who first appears."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "[[2025-02-04]]\n\n### Notes\n- We meet [[Jonah]], who reads [[Letter.pdf|a letter]].\n",
            "Session 2.md": "### Notes\n- [[Jonah]] leaves on [[2025-02-10]], as he said in [[Session 1|the first]].\n",
            "Session 3.md": "2025-Feb-18\n\nJonah is back.\n",  # typed, as a real vault heads its evenings
            "Session 4.md": "Pharast 27\n\nWe wake on the 2025-02-25.\n",  # a date of the world, a day in the text
            "Session 5.md": "Wednesday, 19th of November, 2025\n\nJonah leaves.\n",  # as another vault writes it
            "Session 6.md": "Jonah waves.\n\nNext session: [[Session 7]]\n",  # an evening whose note is unwritten
        },
    )
    chunks, entries = timeline_of(vault)
    assert [e.name for e in entity_index(chunks)] == ["Jonah"]  # a session is no one either
    assert [(e.label, e.played and e.played.isoformat()) for e in entries] == [
        ("Session 1", "2025-02-04"),
        ("Session 2", None),  # a day linked in the text is no date of play
        ("Session 3", "2025-02-18"),
        ("Session 4", None),
        ("Session 5", "2025-11-19"),
        ("Session 6", None),
    ]
    assert [e.first_seen for e in entries] == [["Jonah"], [], [], [], [], []]


@pytest.mark.parametrize(
    ("name", "day"),
    [
        ("2023-04-01", "2023-04-01"),
        ("2023_04_01 - The Heist", "2023-04-01"),
        ("Session 2023.4.1", "2023-04-01"),
        ("20230401 notes", "2023-04-01"),
        ("04-01-2023", None),  # day or month first depends on the country: not read
        ("2023-13-01", None),
        ("Session 12", None),
        ("2023411", None),
    ],
)
def test_a_year_first_date_is_read_from_a_name(name, day):
    found = date_in_name(name)
    assert (found.isoformat() if found else None) == day


def test_sessions_named_by_date_are_told_in_date_order_on_the_day_played(tmp_path):
    vault = write_notes(
        tmp_path / "v",
        {
            "Sessions/2024-01-13.md": "## Docks\n- [[Reyes]] and [[Bram]] argue.\n",
            "Sessions/2023-12-02 The Harbour.md": "## Harbour\n- We meet [[Reyes]].\n",
        },
    )
    chunks, entries = timeline_of(vault)
    assert [(e.label, e.played.isoformat(), e.first_seen) for e in entries] == [
        ("Session 1", "2023-12-02", ["Reyes"]),
        ("Session 2", "2024-01-13", ["Bram"]),
    ]
    assert {c.name for c in chunks} == {"Session 1 · Harbour", "Session 2 · Docks"}


def test_a_session_two_players_wrote_up_on_different_days_was_played_on_the_first(tmp_path):
    from app.tables import session_days

    vault = write_notes(
        tmp_path / "v",
        {
            "Mira/Session 4.md": "---\ndate: 2023-12-09\n---\n## Docks\n- We meet [[Reyes]].\n",
            "Tom/Session 4.md": "---\ndate: 2023-12-08\n---\n## Docks\n- [[Reyes]] shows us the ship.\n",
        },
    )
    chunks, entries = timeline_of(vault)
    assert [(e.label, e.played.isoformat()) for e in entries] == [("Session 4", "2023-12-08")]
    assert session_days(chunks) == {4: "2023-12-08"}  # the sidebar's "As of session" says the same day


def test_the_views_keep_to_the_player_view_and_the_session_cap(tmp_path):
    config = load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake"})
    pipeline = Pipeline(config)
    try:
        pipeline.index(write_secret_vault(tmp_path / "vault"), "secrets")
        shown = [json.dumps([vars(e) for e in pipeline.entities("secrets")], default=str)]
        shown.append(json.dumps([vars(e) for e in pipeline.timeline("secrets")], default=str))
        shown.append(json.dumps([vars(x) for x in pipeline.recap([(0, 1)], "secrets")], default=str))
        assert canaries_in("\n".join(shown)) == []
        assert "Captain Reyes" in shown[0] and "Arrival in Harbortown" in shown[1]
        capped = pipeline.timeline("secrets", Filters(session_max=1))
        assert [e.label for e in capped] == ["Session 1"]
        assert pipeline.recap([(0, 2)], "secrets", Filters(session_max=1)) == []
        gm = pipeline.with_settings({"view": "gm"})
        assert "Glimmerfen" not in json.dumps([vars(e) for e in gm.entities("secrets")], default=str)  # no page
        assert resolve(gm.entities("secrets"), "Nightbloom").name == "Baron"  # a GM page's alias
        assert resolve(pipeline.entities("secrets"), "Nightbloom") is None
    finally:
        pipeline.close()


def test_a_page_with_nothing_written_in_it_yet_is_an_entry_but_a_gm_ones_only_for_the_gm(tmp_path):
    """Obsidian makes an empty note when a link is clicked, and a real vault had its whole party as empty pages:
    People & places lists them, with the passages that write their names. An empty page in a GM folder is the GM's,
    an empty session note no one's, and deleting the campaign deletes the list."""
    config = load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake", "data_dir": str(tmp_path)})
    vault = write_notes(
        tmp_path / "vault",
        {
            "Session 1.md": "## Nightstone\n- Haffyd and Adonis Jahran climb the walls of Nightstone at dusk.\n",
            "Sessions/Session 2.md": "## Road\n- Adonis sings while Haffyd keeps watch on the road north.\n",
            "Characters/Adonis Jahran.md": "",
            "Characters/Haffyd.md": "---\ntags: [pc]\n---\n",
            "Sessions/Session 3.md": "",
            "GM Prep/Baruda the Devil.md": "",
        },
    )
    pipeline = Pipeline(config)
    try:
        pipeline.index(vault, "v")
        cast = {e.name: (e.kind, e.mentions, e.first_seen) for e in pipeline.entities("v")}
        assert cast == {"Adonis Jahran": ("Characters", 2, "Session 1"), "Haffyd": ("Characters", 2, "Session 1")}
        gm = pipeline.with_settings({"view": "gm"})
        assert "Baruda the Devil" in {e.name for e in gm.entities("v")}
        pipeline.drop("v")
        assert pipeline.entities("v") == []
    finally:
        pipeline.close()


def test_the_cli_lists_entities_a_timeline_and_a_recap(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "## Harbour\n- The party meets [[Captain Reyes|Reyes]] at the harbour of Brightwater.\n",
            "Session 2.md": "## Docks\n- [[Reyes]] and [[Bram]] argue about the stolen cargo on the docks.\n"
            "## Night\n- A fire breaks out in the warehouse and the party saves the cargo.\n",
        },
    )
    assert main(["index", "--notes", str(vault), "--campaign", "v"]) == 0
    capsys.readouterr()
    assert main(["entities", "--campaign", "v", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    reyes = next(r for r in rows if r["name"] == "Captain Reyes")
    assert reyes["aliases"] == ["Reyes"] and reyes["first_session"] == "Session 1" and reyes["mentions"] == 2
    assert main(["timeline", "--campaign", "v", "--json"]) == 0
    assert [e["session"] for e in json.loads(capsys.readouterr().out)] == ["Session 1", "Session 2"]
    assert main(["recap", "--campaign", "v"]) == 0  # the last session by default
    out = capsys.readouterr().out
    assert out.startswith("Previously on Session 2:") and "[Session 2 · Night]" in out
    assert main(["recap", "--campaign", "v", "--session", "7"]) == 1
    assert "No session 7" in capsys.readouterr().err
    assert session_label((2, 6)) == "C2 Session 6"


def test_questions_about_order_become_session_ranges():
    from rag.campaign.order import session_order
    from rag.question import read_question

    sessions = [1, 2, 3, 5, 8, 12]
    first = {"omu": 8.0}.get

    def ranged(question, filters=None):
        f = session_order(
            read_question(question).order, filters or Filters(), sessions, lambda name: first(name.casefold())
        )
        return f.session_min, f.session_max

    assert ranged("What happened between sessions 3 and 8?") == (3, 8)
    assert ranged("what happened in sessions 5-12") == (5, 12)
    assert ranged("What did we do last session?") == (12, 12)
    assert ranged("What did we do last session?", Filters(session_max=5)) == (5, 5)  # as of session 5
    assert ranged("What did we learn before we reached Omu?") == (None, 5)
    assert ranged("Who have we met since session 5?") == (5, None)
    assert ranged("Who is Brysh?") == (None, None)
    assert ranged("What happened between sessions 20 and 30?", Filters(session_max=12)) == (None, 12)  # the cap wins


def test_an_order_question_is_answered_from_those_sessions_and_says_so(tmp_path):
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "## Harbour\n- The party meets [[Captain Reyes]] at the harbour and buys a boat.\n",
            "Session 2.md": "## River\n- The party sails up the river towards [[Omu]] and fights crocodiles.\n",
            "Session 3.md": "## Omu\n- In [[Omu]] the party finds the shrine of the trickster gods and a boat.\n",
        },
    )
    config = load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake"})
    pipeline = Pipeline(config)
    try:
        pipeline.index(vault, "v")
        last = pipeline.answer("What did we do last session?", "v")
        assert last.trace["filters"] == {"session_min": 3.0, "session_max": 3.0}
        assert {h.chunk.session for h in last.hits} == {3}
        before = pipeline.answer("What did we buy before we reached Omu?", "v")
        assert before.trace["filters"] == {"session_max": 1.0}
        assert {h.chunk.session for h in before.hits} == {1}
        assert "never mention Omu" not in before.text  # the place tells when: the notes before it never name it
    finally:
        pipeline.close()


def test_what_happened_in_a_session_is_answered_with_its_recap_in_this_view(tmp_path):
    """ "What happened in session 1?" used to quote whichever lines best matched "what happened", or refuse
    ("the closest passages are about something else"): its answer is the session's recap, every line cited, for
    the player view only, and within the "as of session" cap."""
    config = load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake"})
    pipeline = Pipeline(config)
    try:
        pipeline.index(write_secret_vault(tmp_path / "vault"), "secrets")
        lines = pipeline.recap([(0, 1)], "secrets")
        answer = pipeline.answer("What happened in session 1?", "secrets")
        assert not answer.refused and answer.confidence == "high"
        title, *said = answer.text.splitlines()
        assert title == "Previously on Session 1:"
        assert [line.removeprefix("- ").rsplit(" [", 1)[0] for line in said] == [x.text for x in lines]
        assert len(answer.citations) == len(lines) and all(c.chunk_id for c in answer.citations)
        assert {h.chunk.session for h in answer.hits} == {1} and canaries_in(answer.text) == []
        assert pipeline.answer("What did we do last session?", "secrets", Filters(session_max=1)).text == answer.text
        asked_beyond = pipeline.answer("What happened in session 2?", "secrets", Filters(session_max=1))
        assert asked_beyond.refused and asked_beyond.text == (  # the cap holds: not a recap of a later session
            "The notes don't say: you are reading as of Session 1, and Session 2 comes after it."
        )
        told = pipeline.answer("What happened to the boat in session 1?", "secrets")  # asks about something
        assert told.trace["generator"] != "recap"
    finally:
        pipeline.close()


def test_where_did_we_leave_off_is_answered_with_how_the_last_session_ended(tmp_path):
    """ "Where did we leave off?", asked at the start of every game, gets the last session's closing story lines,
    each cited: no GM secret, and "the last session" is the last one within the "as of session" cap."""
    config = load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake"})
    pipeline = Pipeline(config)
    try:
        pipeline.index(write_secret_vault(tmp_path / "vault"), "secrets")
        latest = pipeline.answer("Where did we leave off?", "secrets")
        title, *said = latest.text.splitlines()
        assert title == "Session 2 ended with:" and not latest.refused
        assert "The keeper says a storm wrecked it." in said[-1] and all(c.chunk_id for c in latest.citations)
        capped = pipeline.answer("Where did we leave off?", "secrets", Filters(session_max=1))
        title, *said = capped.text.splitlines()
        assert title == "Session 1 ended with:" and len(said) == len(capped.citations) == 3
        assert "rope and lanterns" in said[-1] and canaries_in(capped.text) == []
        assert pipeline.answer("How did session 1 end?", "secrets").text == capped.text
        assert pipeline.answer("Where are we now?", "secrets").text == latest.text
        recap = pipeline.answer("What happened last time?", "secrets").text  # "last time": the last session
        assert recap.startswith("Previously on Session 2:")
    finally:
        pipeline.close()


def test_a_short_name_linked_is_the_page_titled_with_its_epithet(tmp_path):
    """Players link "[[Harshnag]]" and title his page "Harshnag the Grimm" (a real vault's, still empty): one
    entry, called by its page. A page whose name only starts the same ("Waterdeep Harbor") is another place."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "## Road\n- [[Harshnag]] leads us north from [[Waterdeep]] past [[Waterdeep Harbor]].\n",
            "NPCs/Harshnag the Grimm.md": "",
            "Places/Waterdeep Harbor.md": "The docks of the city.\n",
        },
    )
    config = load_config()
    chunks, skipped, _ = prepare_chunks(config, vault, "v")
    blank = [s.source for s in skipped if s.blank]
    cast = {e.name: e for e in entity_index(chunks, blank)}
    assert set(cast) == {"Harshnag the Grimm", "Waterdeep", "Waterdeep Harbor"}
    assert cast["Harshnag the Grimm"].aliases == ["Harshnag"] and cast["Harshnag the Grimm"].first_seen == "Session 1"


def test_one_person_under_a_patronymic_a_nickname_or_an_alias_with_an_epithet_and_no_topic_link(tmp_path):
    """vault-krynn's People & places had "Durin" beside his page "Durin Son of Ingras", "Cudgel" beside
    '[[Ridomir "Cudgel" Ironsmile]]', "Silvanas" beside the page whose ``aliases:`` say "Silvanas the Elf", and a
    lower-case "[[dragon]]" link (no page) as the fourth most mentioned entry, counted by the word."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 1.md": "## Festival\n- [[Durin]] heals [[Silvanas]]; the [[dragon|Smaug]] circles.\n"
            '- [[Ridomir "Cudgel" Ironsmile]] invites us to the re-enactment.\n',
            "Session 2.md": "## Fight\n- [[Cudgel]] weeps by the dragon. [[Weisslogia]] and [[Durin]] stand guard.\n",
            "NPCs/Durin Son of Ingras.md": "A dwarf cleric of the Light.\n",
            "NPCs/Weisslogia.md": "---\naliases:\n - Silvanas the Elf\n---\nA dragonborn who goes by an elf's name.\n",
        },
    )
    chunks, skipped, _ = prepare_chunks(load_config(), vault, "v")
    cast = {e.name: e for e in entity_index(chunks)}
    assert set(cast) == {"Durin Son of Ingras", 'Ridomir "Cudgel" Ironsmile', "Weisslogia"}
    assert cast["Durin Son of Ingras"].aliases == ["Durin"]
    assert cast['Ridomir "Cudgel" Ironsmile'].aliases == ["Cudgel"]
    assert "Silvanas" in cast["Weisslogia"].aliases
    assert cast['Ridomir "Cudgel" Ironsmile'].sessions == [(0, 1.0), (0, 2.0)]


def test_a_heading_several_pages_share_is_their_templates_not_a_name(tmp_path):
    """A vault's Ogre and Bog Hag pages both open "# Template - Individual", the heading of the template they were
    made from: they had become one entry called by the template. A page's own title still names it."""
    vault_notes = {
        "Session 9.md": "## Fight\n- The [[Ogre]] smashes the cart; the [[Bog Hag]] watches from the reeds.\n",
        "Monsters/Ogre.md": "# Template - Individual\nA hungry ogre of the marsh.\n",
        "Monsters/Bog Hag.md": "# Template - Individual\nA hag who trades in names.\n",
        "NPCs/Hanzo.md": "# Togashi Hanzo\nA monk of the Dragon.\n",
    }
    chunks, _ = timeline_of(write_notes(tmp_path / "v", vault_notes))
    cast = {e.name: e for e in entity_index(chunks)}
    assert {"Ogre", "Bog Hag", "Hanzo"} <= set(cast) and "Template - Individual" not in cast
    assert cast["Ogre"].first_seen == cast["Bog Hag"].first_seen == "Session 9"
    assert cast["Hanzo"].aliases == ["Togashi Hanzo"]


def test_a_wiki_pages_aka_field_is_one_of_its_names(tmp_path):
    """A real vault's city pages are named in Rokugani with "AKA: Lonely Shore City" in their front matter, and
    the sessions write the other name: the city had been two entries, its page "on no session note yet"."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 2.md": "## Docks\n- We reach [[Lonely Shore City]] at twilight and find the ship.\n",
            "Locations/Mura Sabishii Toshi.md": "---\nAKA: Lonely Shore City\n---\nA busy port city of the Crane.\n",
        },
    )
    chunks, _ = timeline_of(vault)
    cast = {e.name: e for e in entity_index(chunks)}
    assert set(cast) == {"Mura Sabishii Toshi"}
    assert cast["Mura Sabishii Toshi"].aliases == ["Lonely Shore City"]
    assert cast["Mura Sabishii Toshi"].first_seen == "Session 2"


def test_aliases_written_on_one_line_are_each_a_name(tmp_path):
    """Obsidian reads "aliases: Nox, Vox Nita" as two names; read whole, neither was one the sessions write."""
    vault = write_notes(
        tmp_path / "v",
        {
            "Session 4.md": "## Tower\n- Vox Nita waits at the top of the tower and laughs.\n",
            "NPCs/Nox.md": "---\naliases: Noxie, Vox Nita\n---\nA shadow that speaks in two voices.\n",
        },
    )
    chunks, _ = timeline_of(vault)
    cast = {e.name: e for e in entity_index(chunks)}
    assert cast["Nox"].aliases == ["Noxie", "Vox Nita"] and cast["Nox"].first_seen == "Session 4"
