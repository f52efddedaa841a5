"""``Note`` → ``Chunk``s: the passages that are embedded, searched and cited.

Session notes are written one event per top-level bullet, so a bullet (with its nested children) is
the natural passage: it is what a player remembers and what evidence spans sit in. Prose (pages, story
sections, paragraphs between bullets) is packed by whole paragraphs for the same reason. Every chunk
keeps the file lines it came from, so a citation can point back into the note.

Other files (``rag.ingest.formats``) arrive as Notes with Markdown-like bodies and take the same path, with two
differences: a PDF's pages are never mixed in one chunk (each chunk keeps its page, and is named
"Handout 3, p. 4"), and an e-mail is cut by paragraph, since a recap mail is written one event per paragraph
the way session notes are written one event per bullet.

Sizes: a piece never exceeds ``max_chars`` (heading prefix included, unless the heading alone is huge);
long text is cut on sentence boundaries with overlap; a tiny bullet ("- Group Investigation") is merged
with its neighbours under the same heading, because alone it would match nothing useful.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import PurePosixPath

from rag.config import ChunkingConfig, SecretsConfig
from rag.ingest.blocks import Piece, join, parse_sections
from rag.ingest.dated_sessions import played_on_by_link, played_on_by_name
from rag.ingest.markdown import entities_of
from rag.ingest.parse import front_matter_text
from rag.models import Chunk, Note, format_session
from rag.names import norm, sentence_spans

_WORD = re.compile(r"\S+")
MAX_HEADING = 60  # characters of a heading in a passage name
SHORT_LIST = 4  # items a list may have to finish an unpunctuated line above it


def _fit(spans: list[tuple[int, int]], text: str, budget: int) -> list[tuple[int, int]]:
    """Break any span longer than ``budget`` on whitespace (or, for one huge word, anywhere)."""
    out = []
    for s, e in spans:
        if e - s <= budget:
            out.append((s, e))
            continue
        words = [(m.start() + s, m.end() + s) for m in _WORD.finditer(text, s, e)]
        words = [(a + k, min(a + k + budget, b)) for a, b in words for k in range(0, b - a, budget)]
        cur = words[0]
        for a, b in words[1:]:
            if b - cur[0] <= budget:
                cur = (cur[0], b)
            else:
                out.append(cur)
                cur = (a, b)
        out.append(cur)
    return out


def _split(piece: Piece, budget: int, overlap: int) -> list[Piece]:
    """Cut a long piece into runs of whole sentences ≤ budget, each repeating ``overlap`` sentences."""
    spans = _fit(sentence_spans(piece.text), piece.text, budget)
    out, i, n = [], 0, len(spans)
    while i < n:
        j = i
        while j + 1 < n and spans[j + 1][1] - spans[i][0] <= budget:
            j += 1
        out.append(piece.cut(spans[i][0], spans[j][1]))
        if j == n - 1:
            break
        nxt = j + 1
        for k in range(overlap, 0, -1):
            cand = j + 1 - k
            if cand > i and spans[j + 1][1] - spans[cand][0] <= budget:
                nxt = cand
                break
        i = nxt
    return out


def introduces(paragraph: Piece, item: Piece, items: int) -> bool:
    """Whether a list (``items`` long, starting with ``item``) finishes the paragraph before it: the paragraph's
    last line ends in ":" ("It is cursed with the following effects:"), or a short list stands on the very next
    line of a paragraph that stops short of any sentence punctuation ("We discussed passphrases to convey that
    Valindra is watching" typed at the table). A long list under an unpunctuated line ("Open in the tavern,
    level 2") is the session's own bullets: each stays a passage of its own."""
    last = paragraph.text.rstrip().rsplit("\n", 1)[-1].rstrip("\"'”’)]*_ ")
    if last.endswith(":"):
        return True
    unpunctuated = bool(last) and not last.endswith((".", "!", "?", "…"))
    return unpunctuated and items <= SHORT_LIST and item.line_start == paragraph.line_end + 1


def _items(units: list[Piece], start: int) -> int:
    """How many list items run on from ``units[start]``."""
    end = start
    while end < len(units) and not units[end].prose:
        end += 1
    return end - start


def _pack(units: list[Piece], budget: int, min_chars: int, lead_in: bool = True) -> list[Piece]:
    """Pack consecutive prose paragraphs up to ``budget``; a piece under ``min_chars`` takes in the next.

    ``lead_in``: a paragraph that introduces a list (``introduces``) takes in the list items after it, as far as
    they fit: apart, the list says nothing of what it lists. When the list does not fit after the paragraphs the
    lead-in was packed with, and those make a passage of their own (``min_chars``), the lead-in starts a passage
    with its list: "Corrin finds:" ending one passage and what he finds opening the next says in neither what was
    found."""
    out: list[Piece] = []
    lead: Piece | None = None  # the paragraph the last piece ends with, while no list item has followed it
    packed: Piece | None = None  # the last piece as it was before ``lead`` was packed onto it
    opened = False  # the last piece ends with a lead-in paragraph and is taking in list items
    for i, unit in enumerate(units):
        if out and out[-1].secret == unit.secret:  # GM-only text never shares a passage with open text
            prev = out[-1]
            sep = "\n\n" if prev.prose or unit.prose else "\n"
            fits = len(prev.text) + len(sep) + len(unit.text) <= budget
            introduced = not unit.prose and lead is not None and introduces(lead, unit, items := _items(units, i))
            if introduced and packed is not None and len(packed.text) >= min_chars:
                listed = sum(len(u.text) + 1 for u in units[i : i + items])
                if len(prev.text) + listed > budget:  # the lead-in goes with its list
                    out[-1:] = [packed, lead]
                    prev = lead
                    fits = len(prev.text) + 1 + len(unit.text) <= budget
            if not unit.prose and fits and (opened or introduced):
                out[-1] = join([prev, unit], ["\n"])
                opened, lead, packed = True, None, None
                continue
            if fits and (len(prev.text) < min_chars or (prev.prose and unit.prose)):
                packed = prev
                out[-1] = join([prev, unit], [sep], prose=prev.prose and unit.prose)
                opened, lead = False, unit if lead_in and unit.prose else None
                continue
        out.append(unit)
        opened, lead, packed = False, unit if lead_in and unit.prose else None, None
    # A tiny *last* piece stays alone: "Herris gives them a map." glued onto a long bullet before it
    # drowns in that bullet's embedding (measured on CRD3: no gain, and the fact stops ranking first).
    return out


def chunk_note(note: Note, campaign: str, config: ChunkingConfig, secrets: SecretsConfig | None = None) -> list[Chunk]:
    """The note's chunks in reading order, positions 0, 1, 2, …; GM-only ones marked (``secrets``: the
    marking rules, default ones when None; a note already marked GM-only is GM-only throughout)."""
    chunks: list[Chunk] = []
    named: dict[tuple, int] = {}  # passages so far per (page, heading), for "Session 5 · The Tavern (2)"
    own_names = front_matter_aliases(note)
    for section in parse_sections(note, secrets):
        prefix = _prefix(note, section.heading, config)
        budget = max(config.max_chars - (len(prefix.text) + 1 if prefix else 0), config.max_chars // 2)
        units: list[Piece] = []
        for unit in section.units:
            units += _split(unit, budget, config.overlap_sentences) if len(unit.text) > budget else [unit]
        for piece in _pack(units, budget, config.min_chars, config.lead_in):
            if not piece.text.strip():
                continue
            full = join([prefix, piece], ["\n"]) if prefix else piece
            entities, aliases = entities_of(full.links)
            aliases += [pair for pair in own_names if pair not in aliases]
            heading = section.heading.text if section.heading else ""
            secret_by = note.secret_by or piece.secret
            summary = piece.line_end < note.body_line  # read from the front matter (``Note.about``)
            called = heading or (SUMMARY_NAME if summary else "")  # "Session 6 · Summary", and "Session 6" after it
            named[section.page, called] = nth = named.get((section.page, called), 0) + 1
            chunks.append(
                Chunk(
                    campaign=campaign,
                    source=note.source,
                    position=len(chunks),
                    text=full.text,
                    name=_name(note, called, section.page, nth),
                    heading=heading,
                    session=note.session,
                    campaign_no=note.campaign_no,
                    kind=note.kind,
                    title=note.title,
                    entities=tuple(entities),
                    aliases=tuple(aliases),
                    line_start=piece.line_start,
                    line_end=piece.line_end,
                    page=section.page,
                    file_type=note.file_type,
                    sender=note.sender,
                    subject=note.subject,
                    date=note.date,
                    session_from=note.session_from,
                    note_date=front_matter_text(note, "date") or played_on_by_name(note) or played_on_by_link(note),
                    world_date=front_matter_text(note, "world date", "world_date", "in-game date", "ingame date"),
                    summary=summary,
                    visibility="gm" if secret_by else "player",
                    secret_by=secret_by,
                )
            )
    return with_context(chunks, config.context_window)


def with_context(chunks: list[Chunk], window: int) -> list[Chunk]:
    """Give each chunk of one note the text of its ``window`` neighbours on each side, as ``context``.

    Notes tell one event across several bullets, and the name a player asks about is often in the bullet
    before the one that answers ("It is a scarred, filthy, desperate illithid" follows the bullet naming
    Clarota). Keyword search over the passage with its neighbours finds such passages; the passage shown
    and cited stays the bullet itself. Measured in docs/experiments/history.md (the ``context`` stage).

    A player passage's context holds player passages only: GM-only words must not make it findable."""
    if window <= 0:
        return chunks
    out = []
    for i, c in enumerate(chunks):
        near = chunks[max(0, i - window) : i + window + 1]
        texts = [n.text for n in near if c.visibility == "gm" or n.visibility == "player"]
        out.append(replace(c, context="\n".join(texts), content_hash=""))
    return out


def _prefix(note: Note, heading: Piece | None, config: ChunkingConfig) -> Piece | None:
    """Scene heading; pages (not sessions) also get their name and title, since "Goal" alone says whose
    goal. So do PDFs, mails and documents, whose title ("Handout 3") is how players refer to them."""
    if not config.heading_prefix:
        return None
    parts: list[Piece] = []
    if note.kind != "session" or note.file_type != "markdown":
        said = {norm(heading.text)} if heading else set()
        for text in (note_label(note), note.title):  # "Ras Nsi", then its first heading "Character Profile"
            if text and norm(text) not in said:
                parts.append(Piece(text, [(0, heading.line_start if heading else note.body_line)]))
                said.add(norm(text))
    if heading and heading.text:
        parts.append(heading)
    return join(parts, ["\n"] * (len(parts) - 1)) if parts else None


def note_label(note: Note) -> str:
    """What a note is called in passage names and citations: "Session 5" ("C2 Session 20") for a session
    note; else its own name, the front-matter title or the file name, rather than its first heading (NPC
    pages made from one template all start "# Character Profile"); documents by their title.

    Other files than Markdown are named by their title even when they hold a session number: an e-mailed
    "Session 12 recap" must not share names with ``Session 12.md``, or a citation could not tell them apart."""
    if note.file_type != "markdown":
        return note.title
    if note.kind == "session" and note.session is not None:
        label = f"Session {format_session(note.session)}"
        return f"C{note.campaign_no} {label}" if note.campaign_no is not None else label
    front = note.front_matter.get("title")
    return front.strip() if isinstance(front, str) and front.strip() else PurePosixPath(note.source).stem


SUMMARY_NAME = "Summary"  # what a passage of the front matter's summary is called after its note's name
ALIAS_KEYS = ("aliases", "alias", "aka", "a.k.a.", "also known as")


def front_matter_aliases(note: Note) -> list[tuple[str, str]]:
    """(alias, the note's name) for each of its front matter ``aliases:`` ("The Professor" for Locke Hancock),
    kept on every passage like a link's shown text, so the alias table knows the note's other names. A wiki's
    ``AKA:`` field says the same ("AKA: Lonely Shore City" on a city page named in Rokugani), in any case. Written
    on one line, "aliases: Nox, Vox, Vox Nita" is three names, as Obsidian reads it."""
    keys = {str(k).casefold(): v for k, v in note.front_matter.items()}
    value = next((keys[k] for k in ALIAS_KEYS if keys.get(k)), None)
    values = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    label = note_label(note)
    names = dict.fromkeys(str(v).strip() for v in values if isinstance(v, str | int | float))
    return [(name, label) for name in names if name and name != label]


def _name(note: Note, heading: str, page: int | None, nth: int) -> str:
    """A passage's name: "Session 5 · The Sunken Tavern", "Ras Nsi · Personality", "Handout 3, p. 4"; the
    second passage under one heading (or page) gets "(2)", and so on."""
    label = f"{note.title}, p. {page}" if page is not None else note_label(note)
    if heading and page is None and norm(heading) != norm(label):
        label = f"{label} · {heading if len(heading) <= MAX_HEADING else heading[: MAX_HEADING - 1] + '…'}"
    return label if nth == 1 else f"{label} ({nth})"


def chunk_notes(
    notes: Iterable[Note], campaign: str, config: ChunkingConfig, secrets: SecretsConfig | None = None
) -> list[Chunk]:
    """All notes' chunks, in the order of ``notes`` (``load_notes`` sorts them by source)."""
    return [chunk for note in notes for chunk in chunk_note(note, campaign, config, secrets)]
