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
from dataclasses import dataclass, field, replace

from rag.config import ChunkingConfig
from rag.ingest.markdown import Link, clean, entities_of, strip_comments
from rag.models import Chunk, Note, format_session

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_BULLET = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)")
_TABLE_RULE = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*(?::?-+:?[ \t]*)?$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+")
_CALLOUT = re.compile(r"^\[![\w-]+\][+-]?[ \t]*")
_TASK = re.compile(r"^\[[ xX/-]\][ \t]+")
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|\n")
_WORD = re.compile(r"\S+")
# Diagrams and queries are code for a plugin, not narrative.
_DROPPED_FENCES = {"mermaid", "dataview", "dataviewjs", "query", "tasks", "chart", "excalidraw"}


@dataclass
class _Piece:
    """Cleaned text plus where it came from: ``marks`` maps text offsets to file lines."""

    text: str
    marks: list[tuple[int, int]]  # (offset in text, file line), ascending
    links: list[Link] = field(default_factory=list)
    prose: bool = False  # whole paragraphs: may be packed with the next prose piece

    @property
    def line_start(self) -> int:
        return self.marks[0][1]

    @property
    def line_end(self) -> int:
        return self.marks[-1][1]

    def cut(self, start: int, end: int) -> _Piece:
        marks = [(max(o, start) - start, no) for o, no in self.marks if o < end]
        first = max(i for i, (o, _) in enumerate(marks) if o == 0) if marks else 0
        links = _shift([k for k in self.links if k.start < end and k.end > start], -start)
        return _Piece(self.text[start:end], marks[first:], links)


def _shift(links: list[Link], by: int) -> list[Link]:
    return [Link(k.start + by, k.end + by, k.page, k.shown) for k in links] if by else list(links)


def _join(parts: list[_Piece], seps: list[str], prose: bool = False) -> _Piece:
    if len(parts) == 1:
        return _Piece(parts[0].text, list(parts[0].marks), list(parts[0].links), prose)
    text, marks, links, size = [], [], [], 0
    for i, part in enumerate(parts):
        if i:
            text.append(seps[i - 1])
            size += len(seps[i - 1])
        text.append(part.text)
        marks += [(o + size, no) for o, no in part.marks]
        links += _shift(part.links, size)
        size += len(part.text)
    return _Piece("".join(text), marks, links, prose)


@dataclass
class _Section:
    heading: _Piece | None
    units: list[_Piece] = field(default_factory=list)
    page: int | None = None


def _line(text: str, no: int, prefix: str = "", raw: bool = False) -> _Piece:
    cleaned, links = (text.strip(), []) if raw else clean(text)
    return _Piece(prefix + cleaned, [(0, no)], _shift(links, len(prefix)))


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _indent(ws: str) -> int:
    return len(ws.expandtabs(4))


def _parse(note: Note) -> list[_Section]:
    """Walk the body once, grouping lines into sections of bullet items and paragraphs.

    A new PDF page opens a new section under the same heading, so no chunk straddles two pages."""
    page = note.page_at(note.body_line)
    sections = [_Section(None, page=page)]
    by_paragraph = note.file_type == "email"
    item: list[_Piece] = []
    stack: list[int] = []  # indents of the open bullets of the current item; [0] is the top-level one
    para: list[_Piece] = []
    fence: tuple[str, bool] | None = None  # (marker, dropped)

    def close_item() -> None:
        kept = [p for p in item if p.text.strip()]
        if any(_has_words(p.text) for p in kept):  # "- ." or "- 🐉" alone is nothing to search for
            sections[-1].units.append(_join(kept, ["\n"] * (len(kept) - 1)))
        item.clear()
        stack.clear()

    def close_para() -> None:
        kept = [p for p in para if p.text.strip()]
        if any(_has_words(p.text) for p in kept):
            sections[-1].units.append(_join(kept, ["\n"] * (len(kept) - 1), prose=not by_paragraph))
        para.clear()

    for i, raw in enumerate(strip_comments(note.body).split("\n")):
        no, line = note.body_line + i, raw.rstrip("\r")
        if note.pages and (now := note.page_at(no)) != page:
            close_item()
            close_para()
            page = now
            sections.append(_Section(sections[-1].heading, page=page))
        if fence is not None:
            if line.strip().startswith(fence[0]) and not line.strip().strip(fence[0][0]):
                fence = None
                close_para()
            elif not fence[1] and line.strip():
                para.append(_line(line, no, raw=True))
            continue
        if not line.strip():
            close_para()  # a blank line ends a paragraph; a bullet item may go on (loose lists)
            continue
        m_bullet = None if _RULE.match(line) else _BULLET.match(line)
        indent = _indent(line[: len(line) - len(line.lstrip())])
        nested = bool(item) and indent >= 2 and indent > stack[0]  # nobody nests by a single space
        if nested and not m_bullet:  # continuation of a bullet
            item.append(_prose_line(line, no, "  " * (len(stack) - 1)))
            continue
        if m_bullet:
            close_para()
            if not nested:
                close_item()
            while stack and indent <= stack[-1]:
                stack.pop()
            depth = len(stack)
            stack.append(indent)
            marker, text = m_bullet.group(2), _TASK.sub("", m_bullet.group(3) or "")
            mark = f"{marker} " if marker[0].isdigit() else ("- " if depth else "")
            prefix = "  " * max(depth - 1, 0) + mark
            item.append(_line(text, no, prefix) if text.strip() else _Piece("", [(0, no)]))
            continue
        close_item()
        if m := _FENCE.match(line):
            close_para()
            fence = (m.group(1), m.group(2).lower() in _DROPPED_FENCES)
        elif _RULE.match(line):
            close_para()
        elif m := _HEADING.match(line):
            close_para()
            sections.append(_Section(_line(m.group(2), no)))
        else:
            para.append(_prose_line(line, no))
    close_item()
    close_para()
    return sections


def _prose_line(line: str, no: int, prefix: str = "") -> _Piece:
    """A text line: quote and callout markers dropped, table rows read as cells."""
    text = _QUOTE.sub("", line)
    text = _CALLOUT.sub("", text)
    if text.lstrip().startswith("|"):
        if _TABLE_RULE.match(text):
            return _Piece("", [(0, no)])
        cells = [c.strip() for c in _CELL_SPLIT.split(text.strip().strip("|"))]
        text = " | ".join(c for c in cells if c)
    return _line(text, no, prefix)


def _sentences(text: str) -> list[tuple[int, int]]:
    """Spans of sentences (and lines), whitespace trimmed, in order."""
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


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


def _split(piece: _Piece, budget: int, overlap: int) -> list[_Piece]:
    """Cut a long piece into runs of whole sentences ≤ budget, each repeating ``overlap`` sentences."""
    spans = _fit(_sentences(piece.text), piece.text, budget)
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


def _pack(units: list[_Piece], budget: int, min_chars: int) -> list[_Piece]:
    """Pack consecutive prose paragraphs up to ``budget``; a piece under ``min_chars`` takes in the next."""
    out: list[_Piece] = []
    for unit in units:
        if out:
            prev = out[-1]
            sep = "\n\n" if prev.prose or unit.prose else "\n"
            fits = len(prev.text) + len(sep) + len(unit.text) <= budget
            if fits and (len(prev.text) < min_chars or (prev.prose and unit.prose)):
                out[-1] = _join([prev, unit], [sep], prose=prev.prose and unit.prose)
                continue
        out.append(unit)
    # A tiny *last* piece stays alone: "Herris gives them a map." glued onto a long bullet before it
    # drowns in that bullet's embedding (measured on CRD3: no gain, and the fact stops ranking first).
    return out


def chunk_note(note: Note, campaign: str, config: ChunkingConfig) -> list[Chunk]:
    """The note's chunks in reading order, positions 0, 1, 2, …"""
    chunks: list[Chunk] = []
    on_page: dict[int | None, int] = {}  # chunks so far per page, for "p. 4 · Part 2"
    for section in _parse(note):
        prefix = _prefix(note, section.heading, config)
        budget = max(config.max_chars - (len(prefix.text) + 1 if prefix else 0), config.max_chars // 2)
        units: list[_Piece] = []
        for unit in section.units:
            units += _split(unit, budget, config.overlap_sentences) if len(unit.text) > budget else [unit]
        for piece in _pack(units, budget, config.min_chars):
            if not piece.text.strip():
                continue
            full = _join([prefix, piece], ["\n"]) if prefix else piece
            entities, aliases = entities_of(full.links)
            on_page[section.page] = on_page.get(section.page, 0) + 1
            chunks.append(
                Chunk(
                    campaign=campaign,
                    source=note.source,
                    position=len(chunks),
                    text=full.text,
                    name=_name(note, len(chunks), section.page, on_page[section.page]),
                    heading=section.heading.text if section.heading else "",
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
                )
            )
    return with_context(chunks, config.context_window)


def with_context(chunks: list[Chunk], window: int) -> list[Chunk]:
    """Give each chunk of one note the text of its ``window`` neighbours on each side, as ``context``.

    Notes tell one event across several bullets, and the name a player asks about is often in the bullet
    before the one that answers ("It is a scarred, filthy, desperate illithid" follows the bullet naming
    Clarota). Keyword search over the passage with its neighbours finds such passages; the passage shown
    and cited stays the bullet itself. Measured in docs/EVALUATION.md (the ``context`` stage)."""
    if window <= 0:
        return chunks
    texts = [c.text for c in chunks]
    return [
        replace(c, context="\n".join(texts[max(0, i - window) : i + window + 1]), content_hash="")
        for i, c in enumerate(chunks)
    ]


def _prefix(note: Note, heading: _Piece | None, config: ChunkingConfig) -> _Piece | None:
    """Scene heading; pages (not sessions) also get their title, since "Goal" alone says whose goal. So do
    PDFs, mails and documents, whose title ("Handout 3") is how players refer to them."""
    if not config.heading_prefix:
        return None
    parts = [heading] if heading and heading.text else []
    titled = note.kind != "session" or note.file_type != "markdown"
    if titled and note.title and not (heading and heading.text == note.title):
        parts.insert(0, _Piece(note.title, [(0, heading.line_start if heading else note.body_line)]))
    return _join(parts, ["\n"] * (len(parts) - 1)) if parts else None


def _name(note: Note, position: int, page: int | None = None, nth_on_page: int = 1) -> str:
    """How citations name a chunk: "Session 5 · Part 3", "Foreman Herris · Part 1", "Handout 3, p. 4".

    Other files than Markdown are named by their title even when they hold a session number: an e-mailed
    "Session 12 recap" must not share names with ``Session 12.md``, or a citation could not tell them apart."""
    if page is not None:
        label = f"{note.title}, p. {page}"
        return label if nth_on_page == 1 else f"{label} · Part {nth_on_page}"
    if note.kind == "session" and note.session is not None and note.file_type == "markdown":
        label = f"Session {format_session(note.session)}"
        if note.campaign_no is not None:
            label = f"C{note.campaign_no} {label}"
    else:
        label = note.title
    return f"{label} · Part {position + 1}"


def chunk_notes(notes: Iterable[Note], campaign: str, config: ChunkingConfig) -> list[Chunk]:
    """All notes' chunks, in the order of ``notes`` (``load_notes`` sorts them by source)."""
    return [chunk for note in notes for chunk in chunk_note(note, campaign, config)]
