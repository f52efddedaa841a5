"""Session notes named by the day they were played ("Sessions/2023-04-01.md", "2023-04-08 Session.md"): numbered
in date order, so that they are sessions like "Session 12.md" is (story order, "In Session 3", the "as of
session" cap, the timeline) instead of reference pages.

Obsidian's daily notes and many session templates name a note by its date and never by a number. A date says
which session only beside the others, so this reads the whole folder at once, after each note was parsed
alone (``rag.ingest.parse``). The rule:

- a Markdown note without a session number whose file name holds a year-first date (``rag.models.dates``), or, in a
  folder kept for sessions, whose front matter ``date:`` is one; and that is in such a folder
  (``notes.session_folder_words``) or says "session" in its name;
- numbered 1, 2, 3… by date; notes of one date are one session (two players' write-ups of one evening);
- when player notes of the vault have session numbers already, dates cannot say where the dated ones fall between
  them, and a wrong number would move a session in the story. A dated note then takes the number of the session
  played on its day, where a numbered note gives that day (its name or front matter ``date:``) and no other
  numbered session was played on it (one player numbers, another dates her write-up of the same evening); the
  other dated notes stay pages;
- never a GM-only note: a prep note dated for the next session is no session the players had.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from pathlib import PurePosixPath

from rag.config import NotesConfig
from rag.ingest.markdown import linked_day
from rag.ingest.parse import front_matter_text, in_session_folder, strip_extension
from rag.ingest.secrets import folder_has_word
from rag.models import DATE_ORDER, Note
from rag.models.dates import date_in_name, is_day, parse_date


def played_on(note: Note, config: NotesConfig) -> dt.date | None:
    """The day a dated session note was played, or None when the note is no such note (see the module)."""
    if note.session is not None or note.file_type != "markdown" or note.visibility != "player":
        return None
    stem = strip_extension(PurePosixPath(note.source).name, config)
    in_folder = in_session_folder(note.source, config)
    if not (in_folder or folder_has_word((stem,), tuple(config.session_folder_words))):
        return None
    return _day_written(note, stem, front_matter=in_folder)


def _day_written(note: Note, stem: str, front_matter: bool) -> dt.date | None:
    """The year-first date in the note's name, else (``front_matter``) its front matter ``date:``."""
    day = date_in_name(stem)
    if day is None and front_matter and (written := front_matter_text(note, "date")):
        day = parse_date(written)
    return day


def played_on_by_name(note: Note) -> str:
    """The day a session note numbered by its date was played, from its file name, so that the timeline shows it
    as it shows a front matter ``date:``; "" for every other note."""
    if note.session_from != DATE_ORDER:
        return ""
    day = date_in_name(PurePosixPath(note.source).name)
    return day.isoformat() if day else ""


def played_on_by_link(note: Note) -> str:
    """The day a session note opens with, on a line of its own before its text: linked ("[[2025-02-04]]", the
    daily note Obsidian's calendar links) or typed ("2022-Jan-15", as a note-taker heads the evening's notes), so
    that the timeline shows when it was played as it shows a front matter ``date:``; "" for a note that opens
    otherwise, and for every note that is no session."""
    if note.session is None or note.file_type != "markdown":
        return ""
    first = next((line for line in note.body.splitlines() if line.strip() and line[0] != "#"), "").strip()
    day = linked_day(first) or (parse_date(first) if is_day(first) else None)
    return day.isoformat() if day else ""


def number_dated_sessions(notes: Sequence[Note], config: NotesConfig) -> list[Note]:
    """``notes`` with every dated session note numbered (see the module); the others as they are."""
    days = {n.source: day for n in notes if (day := played_on(n, config)) is not None}
    numbered = [n for n in notes if n.session is not None and n.visibility == "player"]  # a GM's prep is no clue
    if numbered:
        number = _numbered_on(numbered, config)
    else:
        number = {day: (i, None) for i, day in enumerate(sorted(set(days.values())), start=1)}
    found = {source: number[day] for source, day in days.items() if day in number}  # (session, campaign)
    return [
        dataclasses.replace(
            n, session=found[n.source][0], campaign_no=found[n.source][1], kind="session", session_from=DATE_ORDER
        )
        if n.source in found
        else n
        for n in notes
    ]


def _numbered_on(numbered: Sequence[Note], config: NotesConfig) -> dict[dt.date, tuple[float, int | None]]:
    """Day → the one numbered session played on it (session, campaign), from the numbered notes that give their
    day; a day two numbered sessions share says nothing of a dated note's."""
    on: dict[dt.date, set[tuple[float, int | None]]] = {}
    for note in numbered:
        day = _day_written(note, strip_extension(PurePosixPath(note.source).name, config), front_matter=True)
        if day is not None:
            on.setdefault(day, set()).add((note.session, note.campaign_no))
    return {day: next(iter(sessions)) for day, sessions in on.items() if len(sessions) == 1}
