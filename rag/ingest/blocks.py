"""A note's body → sections of pieces: the Markdown structure chunking cuts along.

One pass over the lines: headings open sections, a top-level bullet with its nested children is one piece,
paragraphs, quotes, callouts and table rows are prose pieces, code fences of plugins are dropped. Every
piece keeps the file lines its text came from (``marks``) and its ``[[links]]``, so a passage can be cited
back into the note. ``rag.ingest.chunking`` sizes, merges and names the pieces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rag.ingest.markdown import Link, clean, strip_comments
from rag.models import Note

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


_BULLET = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")


_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")


_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)")


_TABLE_RULE = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*(?::?-+:?[ \t]*)?$")


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+")


_CALLOUT = re.compile(r"^\[![\w-]+\][+-]?[ \t]*")


_TASK = re.compile(r"^\[[ xX/-]\][ \t]+")


# Diagrams and queries are code for a plugin, not narrative.
_DROPPED_FENCES = {"mermaid", "dataview", "dataviewjs", "query", "tasks", "chart", "excalidraw"}


@dataclass
class Piece:
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

    def cut(self, start: int, end: int) -> Piece:
        marks = [(max(o, start) - start, no) for o, no in self.marks if o < end]
        first = max(i for i, (o, _) in enumerate(marks) if o == 0) if marks else 0
        links = shift_links([k for k in self.links if k.start < end and k.end > start], -start)
        return Piece(self.text[start:end], marks[first:], links)


def shift_links(links: list[Link], by: int) -> list[Link]:
    return [Link(k.start + by, k.end + by, k.page, k.shown) for k in links] if by else list(links)


def join(parts: list[Piece], seps: list[str], prose: bool = False) -> Piece:
    if len(parts) == 1:
        return Piece(parts[0].text, list(parts[0].marks), list(parts[0].links), prose)
    text, marks, links, size = [], [], [], 0
    for i, part in enumerate(parts):
        if i:
            text.append(seps[i - 1])
            size += len(seps[i - 1])
        text.append(part.text)
        marks += [(o + size, no) for o, no in part.marks]
        links += shift_links(part.links, size)
        size += len(part.text)
    return Piece("".join(text), marks, links, prose)


@dataclass
class Section:
    heading: Piece | None
    units: list[Piece] = field(default_factory=list)
    page: int | None = None


def _line(text: str, no: int, prefix: str = "", raw: bool = False) -> Piece:
    cleaned, links = (text.strip(), []) if raw else clean(text)
    return Piece(prefix + cleaned, [(0, no)], shift_links(links, len(prefix)))


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _indent(ws: str) -> int:
    return len(ws.expandtabs(4))


def parse_sections(note: Note) -> list[Section]:
    """Walk the body once, grouping lines into sections of bullet items and paragraphs.

    A new PDF page opens a new section under the same heading, so no chunk straddles two pages."""
    page = note.page_at(note.body_line)
    sections = [Section(None, page=page)]
    by_paragraph = note.file_type == "email"
    item: list[Piece] = []
    stack: list[int] = []  # indents of the open bullets of the current item; [0] is the top-level one
    para: list[Piece] = []
    fence: tuple[str, bool] | None = None  # (marker, dropped)

    def close_item() -> None:
        kept = [p for p in item if p.text.strip()]
        if any(_has_words(p.text) for p in kept):  # "- ." or "- 🐉" alone is nothing to search for
            sections[-1].units.append(join(kept, ["\n"] * (len(kept) - 1)))
        item.clear()
        stack.clear()

    def close_para() -> None:
        kept = [p for p in para if p.text.strip()]
        if any(_has_words(p.text) for p in kept):
            sections[-1].units.append(join(kept, ["\n"] * (len(kept) - 1), prose=not by_paragraph))
        para.clear()

    for i, raw in enumerate(strip_comments(note.body).split("\n")):
        no, line = note.body_line + i, raw.rstrip("\r")
        if note.pages and (now := note.page_at(no)) != page:
            close_item()
            close_para()
            page = now
            sections.append(Section(sections[-1].heading, page=page))
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
            item.append(_line(text, no, prefix) if text.strip() else Piece("", [(0, no)]))
            continue
        close_item()
        if m := _FENCE.match(line):
            close_para()
            fence = (m.group(1), m.group(2).lower() in _DROPPED_FENCES)
        elif _RULE.match(line):
            close_para()
        elif m := _HEADING.match(line):
            close_para()
            sections.append(Section(_line(m.group(2), no)))
        else:
            para.append(_prose_line(line, no))
    close_item()
    close_para()
    return sections


def _prose_line(line: str, no: int, prefix: str = "") -> Piece:
    """A text line: quote and callout markers dropped, table rows read as cells."""
    text = _QUOTE.sub("", line)
    text = _CALLOUT.sub("", text)
    if text.lstrip().startswith("|"):
        if _TABLE_RULE.match(text):
            return Piece("", [(0, no)])
        cells = [c.strip() for c in _CELL_SPLIT.split(text.strip().strip("|"))]
        text = " | ".join(c for c in cells if c)
    return _line(text, no, prefix)
