"""What is indexed: a ``Note`` (one file, parsed) and its ``Chunk``s (the passages embedded, searched, cited).

They validate themselves when constructed so a bad object fails where it is made,
not three stages later inside Qdrant or a chart.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

Session = int | float | None  # "Session 20.5.md" exists in real vaults
_ID_NAMESPACE = uuid.UUID("6f1c2d1e-6a55-4c8e-9d3b-6d2f0b9a7c11")


# What a file was read as. Markdown and .txt notes are "markdown"; the others come from rag.ingest.formats.
FILE_TYPES = ("markdown", "pdf", "email", "html", "docx")
# Where a session number came from when not from the file name ("" = the file name, or no number).
DATE_ORDER = "date order"  # notes named by the day they were played, numbered in that order (rag.ingest.dated_sessions)
SESSION_ORIGINS = ("", "front matter", "title", "subject", DATE_ORDER)
_WORD = re.compile(r"\w+")
# Who may read a note or passage: every player, or the game master only (rag/ingest/secrets.py decides).
VISIBILITIES = ("player", "gm")

# Fields added for non-Markdown files, with their unset value. ``Chunk.payload`` leaves a field out while it
# is unset, so a Markdown note's payload and content hash are what they were before these fields existed
# (no re-embedding of existing indexes).
OPTIONAL_FIELDS = {
    "page": None,
    "file_type": "markdown",
    "sender": "",
    "subject": "",
    "date": "",
    "session_from": "",
    "visibility": "player",
    "secret_by": "",
    "note_date": "",
    "world_date": "",
    "summary": False,
}
# Stored, but not part of the content hash: a note moved into a GM folder changes its passages' visibility
# in place (Store.relabel), without embedding them again.
_UNHASHED = ("content_hash", "id", "visibility", "secret_by")


def same_words(text: str) -> str:
    """A passage's words as two copies of one note compare: case and spacing aside."""
    return " ".join(text.lower().split())


def page_kind(source: str) -> str:
    """The kind of a note that is no session: its top-level folder ("NPCs", "Locations"), which groups pages
    better than the immediate parent ("NPCs/Port Nyanzaru") for filters and charts; "note" at the top level."""
    folders = source.split("/")[:-1]
    return folders[0] if folders else "note"


SESSION_PART = 0.01  # "Session 0A" is session 0.01, "0B" 0.02: parts a to i of an evening, in order


def format_session(session: Session) -> str:
    """A session's number as the notes write it: "12", "20.5", and "0A" for a part of an evening."""
    if session is None:
        return ""
    if isinstance(session, float) and session.is_integer():
        session = int(session)
    part = round((session - int(session)) / SESSION_PART) if isinstance(session, float) else 0
    if 1 <= part <= 9 and abs(session - int(session) - part * SESSION_PART) < 1e-9:
        return f"{int(session)}{chr(ord('A') + part - 1)}"
    return str(session)


@dataclass(frozen=True)
class Note:
    """One file of the vault, parsed but not yet chunked."""

    source: str  # path relative to the notes folder, with forward slashes
    title: str
    body: str  # the narrative part, Markdown as written (front matter removed)
    body_line: int = 1  # 1-based line number of the first line of ``body`` in the file
    session: Session = None
    campaign_no: int | None = None  # the ``C2`` of ``C2 Session 20.md``
    kind: str = "session"  # "session", else the note's folder (or "note" at the top level)
    front_matter: dict[str, Any] = field(default_factory=dict)  # e-mail: from, to, cc, subject, date
    # (file line, text): what the front matter says of the note in prose ("summary:"), read as its first paragraph
    about: tuple[tuple[int, str], ...] = ()
    warnings: tuple[str, ...] = ()
    file_type: str = "markdown"  # see FILE_TYPES
    # PDF: (first body line, page number) of every page that has text, ascending; () for other files.
    pages: tuple[tuple[int, int], ...] = ()
    page_count: int | None = None  # PDF: pages in the file, with or without text
    sender: str = ""  # e-mail From, "Name <address>"
    subject: str = ""  # e-mail Subject, as written
    date: str = ""  # e-mail Date as an ISO date (YYYY-MM-DD): the day the recap was sent
    session_from: str = ""  # see SESSION_ORIGINS
    visibility: str = "player"  # see VISIBILITIES: "gm" for a note marked GM-only as a whole
    secret_by: str = ""  # the rule that made it GM-only ("GM folder", "front matter", …); "" for player notes
    # the lines of a front-matter block the parser could not read (not YAML, never closed, not a mapping), which
    # the GM rules still look into (``rag.ingest.secrets.decide``); None when the note opens with no such block
    unread_front_matter: tuple[str, ...] | None = None

    def __post_init__(self):
        if not self.source or self.source.startswith("/") or ".." in self.source.split("/"):
            raise ValueError(f"Note.source must be a relative path inside the vault, got {self.source!r}")
        if self.session is not None and self.session < 0:
            raise ValueError(f"Note.session must be >= 0, got {self.session}")
        object.__setattr__(self, "pages", tuple((int(line), int(page)) for line, page in self.pages))
        if any(page < 1 for _, page in self.pages) or list(self.pages) != sorted(set(self.pages)):
            raise ValueError(f"Note.pages must be ascending (line, page >= 1) pairs, got {self.pages}")
        if self.page_count is not None and self.page_count < len(self.pages):
            raise ValueError("Note.page_count must not be below the number of pages with text")
        _check_common(self, "Note")

    def page_at(self, line: int) -> int | None:
        """The page a body line is on (None for files without pages)."""
        if not self.pages:
            return None
        page = self.pages[0][1]
        for first, number in self.pages:
            if first > line:
                break
            page = number
        return page


def _check_common(obj: Any, what: str) -> None:
    """Validation shared by Note and Chunk: the fields of non-Markdown files, and visibility."""
    if obj.visibility not in VISIBILITIES:
        raise ValueError(f"{what}.visibility must be one of {', '.join(VISIBILITIES)}, got {obj.visibility!r}")
    if (obj.visibility == "gm") != bool(obj.secret_by):
        raise ValueError(f"{what}.secret_by names the rule of a GM-only {what.lower()}, and only of one")
    if obj.file_type not in FILE_TYPES:
        raise ValueError(f"{what}.file_type must be one of {', '.join(FILE_TYPES)}, got {obj.file_type!r}")
    if obj.session_from not in SESSION_ORIGINS:
        raise ValueError(f"{what}.session_from must be one of {SESSION_ORIGINS}, got {obj.session_from!r}")
    if obj.date:
        try:
            dt.date.fromisoformat(obj.date)
        except ValueError:
            raise ValueError(f"{what}.date must be an ISO date (YYYY-MM-DD), got {obj.date!r}") from None


def match_words(text: str) -> list[str]:
    """Lower-cased words, in order, without repeats: how subjects and senders are matched by filters."""
    return list(dict.fromkeys(w.casefold() for w in _WORD.findall(text)))


def sender_keys(sender: str) -> list[str]:
    """What a sender filter can name: the address, its local part, the display name and its words."""
    from email.utils import parseaddr

    name, address = parseaddr(sender)
    keys = [address.casefold(), address.split("@", 1)[0].casefold(), " ".join(name.split()).casefold()]
    return [k for k in dict.fromkeys(keys + match_words(name)) if k]


@dataclass(frozen=True)
class Chunk:
    """A passage as indexed. ``text`` is what is embedded, searched and matched against evidence."""

    campaign: str
    source: str
    position: int  # 0-based order of the chunk inside its note
    text: str
    name: str  # "Session 5 · The Sunken Tavern (2)": note · heading, n-th passage under it
    heading: str = ""
    session: Session = None
    campaign_no: int | None = None
    kind: str = "session"
    title: str = ""
    entities: tuple[str, ...] = ()  # canonical page names of [[wikilinks]]
    aliases: tuple[tuple[str, str], ...] = ()  # (shown text, page name) pairs where they differ
    line_start: int = 0
    line_end: int = 0
    id: str = ""
    content_hash: str = ""
    # The passage with its neighbours in the note (chunking.context_window), searched by the "context"
    # keyword stage; never shown, never stored as payload, read back as "". Empty when the window is 0.
    context: str = field(default="", compare=False, repr=False)
    # Set for PDF, e-mail, HTML and Word files only; left out of the payload while unset (see OPTIONAL_FIELDS).
    page: int | None = None  # PDF page the passage is on (1-based)
    file_type: str = "markdown"
    sender: str = ""
    subject: str = ""
    date: str = ""  # ISO date
    session_from: str = ""
    note_date: str = ""  # the note's front matter ``date:`` as written (the timeline parses what it can)
    world_date: str = ""  # front matter ``world date:`` / ``in-game date:``: the date in the story
    # the note's front matter summary (``Note.about``): tells in brief what the note tells in full
    summary: bool = False
    visibility: str = "player"  # "gm": never returned to the player view (Filters.view)
    secret_by: str = ""  # the rule that marked it ("GM folder", "#gm-only tag", "[!secret] callout", …)

    def __post_init__(self):
        if not self.campaign:
            raise ValueError("Chunk.campaign must not be empty")
        if not self.text.strip():
            raise ValueError(f"Chunk {self.source}#{self.position} has no text")
        if self.position < 0:
            raise ValueError("Chunk.position must be >= 0")
        if self.line_end < self.line_start:
            raise ValueError("Chunk.line_end must be >= line_start")
        if self.page is not None and (isinstance(self.page, bool) or int(self.page) != self.page or self.page < 1):
            raise ValueError(f"Chunk.page must be a page number >= 1, got {self.page!r}")
        _check_common(self, "Chunk")
        object.__setattr__(self, "entities", tuple(self.entities))
        object.__setattr__(self, "aliases", tuple(tuple(a) for a in self.aliases))
        if not self.id:
            object.__setattr__(self, "id", chunk_id(self.campaign, self.source, self.position))
        if not self.content_hash:
            object.__setattr__(self, "content_hash", self._hash())

    def _hash(self) -> str:
        """Covers ``context`` too, so a neighbour's edit re-indexes the passage whose context it changes."""
        data = self.payload()
        for key in _UNHASHED:
            data.pop(key, None)
        if self.context:
            data["context"] = self.context
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:32]

    def payload(self) -> dict[str, Any]:
        """The stored form. Unset optional fields are left out; a set sender or subject also stores the
        lower-cased keys the store filters match (``sender_keys``, ``subject_words``)."""
        # Field by field rather than dataclasses.asdict: its deep copies made hashing most of a no-change
        # re-index (every field is a scalar or a tuple, so the values are the same).
        data = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "context"}
        data["entities"] = list(self.entities)
        data["aliases"] = [list(a) for a in self.aliases]
        for key, unset in OPTIONAL_FIELDS.items():
            if data[key] == unset:
                del data[key]
        if self.sender:
            data["sender_keys"] = sender_keys(self.sender)
        if self.subject:
            data["subject_words"] = match_words(self.subject)
        return data

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Chunk:
        known = {k: v for k, v in payload.items() if k in cls.__dataclass_fields__}
        known["entities"] = tuple(known.get("entities") or ())
        known["aliases"] = tuple(tuple(a) for a in known.get("aliases") or ())
        return cls(**known)

    @property
    def story_key(self) -> tuple:
        """Where the passage comes in the story: campaign, then session, then note and place in it; passages
        without a session (reference pages) come last."""
        return (self.campaign_no or 0, self.session is None, self.session or 0.0, self.source, self.position)

    @property
    def label(self) -> str:
        """How a citation names this chunk: ``[Session 5 · The Sunken Tavern]``."""
        return f"[{self.name}]"

    @property
    def title_and_heading(self) -> str:
        """ "C1E001 Arrival at Kraghammer · First Night": what a language model's prompt shows beside the label
        (``rag.generators.build_context``), and so a name a model may cite it by (``rag.citations``)."""
        return " · ".join(x for x in (self.title, self.heading) if x)

    @property
    def is_reference(self) -> bool:
        """A passage of a reference page (a person, place or lore page): no session number, and not a mailed recap
        (mails tell events). Pages say who or what something is, never when it happened."""
        return self.session is None and self.file_type != "email"


def chunk_id(campaign: str, source: str, position: int) -> str:
    """Stable across runs and machines, so re-indexing updates points instead of duplicating them."""
    return str(uuid.uuid5(_ID_NAMESPACE, f"{campaign}\x1f{source}\x1f{position}"))
