"""The sessions in order: number, the real and the in-world date when the notes give them, its scenes, and who
first appears in it. Dates are the note's front matter as written; the real date is also read as a date when
it can be ("2023-12-1", "1 Dec 2023", "12/1/2023"), so a player can see when a session was played."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rag.campaign.entities import Entity, SessionKey, session_key, session_label
from rag.campaign.evening import retells
from rag.campaign.table_talk import TableTalk
from rag.config import TableTalkConfig
from rag.models import Chunk
from rag.models.dates import first_day, is_day

# A title's session number, as notes write it before what they call the evening: "Session 12:", "Session Zero -",
# "Episode 3", "C1E001", "Ep. 4 |", or a date ("2023-04-01 -")
_NUMBERED = re.compile(
    r"^\s*(?:(?:session|episode|ep\.?|part|chapter)\s*(?:\d+(?:\.\d+)?|zero)|c\d+\s*e\d+|\d+(?:[.-]\d+)*)"
    r"\b[\s:.|#–—-]*",
    re.I,
)


@dataclass
class SessionEntry:
    key: SessionKey  # (campaign number or 0, session)
    title: str = ""  # what its note calls the evening, past its number ("Nightstone - Arrival"), when it does
    sources: list[str] = field(default_factory=list)  # its notes
    date: str = ""  # as written
    played: dt.date | None = None  # the date, when it could be read
    world_date: str = ""
    scenes: list[str] = field(default_factory=list)  # scene headings in note order
    first_seen: list[str] = field(default_factory=list)  # entities whose first session this is
    passages: int = 0

    @property
    def label(self) -> str:
        return session_label(self.key)


def evening_title(title: str) -> str:
    """What a session note's title calls the evening past its number ("Session 1: Nightstone - Arrival" →
    "Nightstone - Arrival", "C1E001 Arrival at Kraghammer" → "Arrival at Kraghammer"), or "" when it says no more
    than the number or a date ("Session 4", "2023-04-01", "Session 0 and 1")."""
    rest = "" if is_day(title) else title.strip()
    while (m := _NUMBERED.match(rest)) and m.end():  # "2023-04-01 Session 3": a date, then the number
        rest = rest[m.end() :].strip(" -–—:|.#")
    return rest if rest[:1].isupper() and not is_day(rest) else ""


def _template_headings(entries: Iterable[SessionEntry]) -> set[str]:
    """Headings more than half the sessions have (three or more): the note template's sections ("Session Summary ·
    Key Events" on every row, "Notes", "Characters"), which tell nothing of one session's story."""
    entries = list(entries)
    uses = Counter(s for e in entries for s in set(e.scenes))
    return {s for s, n in uses.items() if n >= 3 and 2 * n > len(entries)}


def timeline(
    chunks: Iterable[Chunk], entities: Sequence[Entity] = (), table_talk: TableTalkConfig | None = None
) -> list[SessionEntry]:
    """One entry per numbered session note, in session order. With the campaign's ``entities`` and the
    ``table_talk`` settings, a session's scenes are those of the story, without the table talk around it
    (``rag.campaign.table_talk``) unless it has no other, and who first appears in it leaves out the people at
    the table (a cast list names the players in Session 1; they are not who the party met)."""
    chunks = list(chunks)
    talk = TableTalk(chunks, entities, table_talk) if entities and table_talk is not None else None
    by_session: dict[SessionKey, SessionEntry] = {}
    around: dict[SessionKey, list[str]] = {}
    written: dict[SessionKey, set[str]] = {}  # every date its notes give (two players' notes of one evening)
    for c in sorted(chunks, key=lambda c: (c.source, c.position)):
        key = session_key(c)
        if key is None or c.kind != "session":
            continue
        entry = by_session.setdefault(key, SessionEntry(key))
        entry.passages += 1
        if c.source not in entry.sources:
            entry.sources.append(c.source)
            entry.title = entry.title or evening_title(c.title)
        entry.date = entry.date or c.note_date
        if c.note_date:
            written.setdefault(key, set()).add(c.note_date)
        entry.world_date = entry.world_date or c.world_date
        aside = retells(c) or (talk is not None and talk.passage(c))  # the last session retold, or around the game
        scenes = around.setdefault(key, []) if aside else entry.scenes
        if c.heading and c.heading not in scenes:
            scenes.append(c.heading)
    for key, entry in by_session.items():
        entry.scenes = entry.scenes or around.get(key, [])
    template = _template_headings(by_session.values())
    for entry in by_session.values():
        entry.scenes = [s for s in entry.scenes if s not in template]
    for key, entry in by_session.items():  # the earliest day its notes give, as the sidebar's "As of session"
        entry.played = first_day(written.get(key, ()))
    table = talk.table_people | talk.off_stage if talk is not None else set()  # the players, the GM: no one met
    for e in entities:
        if e.first_session in by_session and e.name not in table:
            by_session[e.first_session].first_seen.append(e.name)
    return [by_session[s] for s in sorted(by_session)]
