"""A note's body → sections of pieces: the Markdown structure chunking cuts along.

One pass over the lines: headings open sections, a top-level bullet with its nested children is one piece,
paragraphs, quotes, callouts and table rows are prose pieces, code fences of plugins are dropped. Every
piece keeps the file lines its text came from (``marks``) and its ``[[links]]``, so a passage can be cited
back into the note. ``rag.ingest.chunking`` sizes, merges and names the pieces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rag.config import SecretsConfig
from rag.ingest.markdown import Link, clean, strip_comments
from rag.ingest.secrets import GM_CALLOUT, GM_TAG, has_tag, opens_callout
from rag.models import Note

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


BULLET = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")


_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")


_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)")


_TABLE_RULE = re.compile(r"^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*(?::?-+:?[ \t]*)?$")


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


_QUOTE = re.compile(r"^[ \t]*(?:>[ \t]?)+")


_CALLOUT = re.compile(r"^\[![\w-]+(?:[ \t]*\|[^\]]*)?\][+-]?[ \t]*")  # "[!info | wide-3]": its look after the bar


_TASK = re.compile(r"^\[[ xX/-]\][ \t]+")


# Diagrams and queries are code for a plugin, not narrative.
_DROPPED_FENCES = {"mermaid", "dataview", "dataviewjs", "query", "tasks", "chart", "excalidraw"}


# The Admonition plugin's box (```ad-summary): Markdown prose in a fence, opened by settings lines. Its title is
# what the box is called, as a heading names the text under it ("Last Session Recap"); collapse, icon and colour
# are the look.
_ADMONITION = re.compile(r"^ad-[\w-]+$", re.IGNORECASE)
_BOX_SETTING = re.compile(r"^[ \t]*(title|collapse|icon|color)[ \t]*:[ \t]*(.*?)[ \t]*$", re.IGNORECASE)


@dataclass
class Piece:
    """Cleaned text plus where it came from: ``marks`` maps text offsets to file lines."""

    text: str
    marks: list[tuple[int, int]]  # (offset in text, file line), ascending
    links: list[Link] = field(default_factory=list)
    prose: bool = False  # whole paragraphs: may be packed with the next prose piece
    secret: str = ""  # the rule (rag.ingest.secrets) that makes this text GM-only; never packed with other text

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
        return Piece(self.text[start:end], marks[first:], links, secret=self.secret)


def shift_links(links: list[Link], by: int) -> list[Link]:
    return [Link(k.start + by, k.end + by, k.page, k.shown) for k in links] if by else list(links)


def join(parts: list[Piece], seps: list[str], prose: bool = False) -> Piece:
    """One piece of several; it is GM-only when any part is (callers keep secret and open text apart)."""
    secret = next((p.secret for p in parts if p.secret), "")
    if len(parts) == 1:
        return Piece(parts[0].text, list(parts[0].marks), list(parts[0].links), prose, secret)
    text, marks, links, size = [], [], [], 0
    for i, part in enumerate(parts):
        if i:
            text.append(seps[i - 1])
            size += len(seps[i - 1])
        text.append(part.text)
        marks += [(o + size, no) for o, no in part.marks]
        links += shift_links(part.links, size)
        size += len(part.text)
    return Piece("".join(text), marks, links, prose, secret)


@dataclass
class Section:
    heading: Piece | None
    units: list[Piece] = field(default_factory=list)
    page: int | None = None
    secret: str = ""  # a heading tagged #gm-only hides its section, down to the next heading of its level


def _line(text: str, no: int, prefix: str = "", raw: bool = False) -> Piece:
    cleaned, links = (text.strip(), []) if raw else clean(text)
    return Piece(prefix + cleaned, [(0, no)], shift_links(links, len(prefix)))


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def indent_of(line: str) -> int:
    """How far a line is indented, a tab to the next multiple of four: how deep a list item nests."""
    return len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())


def parse_sections(note: Note, secrets: SecretsConfig | None = None) -> list[Section]:
    """Walk the body once, grouping lines into sections of bullet items and paragraphs.

    A new PDF page opens a new section under the same heading, so no chunk straddles two pages. GM-only
    blocks (``secrets``, default rules when None) become pieces of their own, marked ``secret``."""
    secrets = secrets or SecretsConfig()
    page = note.page_at(note.body_line)
    sections = [Section(None, page=page)]
    by_paragraph = note.file_type == "email"
    item: list[Piece] = []
    shape: list[tuple[int, bool]] = []  # per piece of the item: (indent of its bullet, opens a bullet)
    stack: list[int] = []  # indents of the open bullets of the current item; [0] is the top-level one
    para: list[Piece] = []
    fence: tuple[str, bool, bool] | None = None  # (marker, dropped, an admonition box: Markdown prose, not code)
    box_settings = False  # at the top of an admonition box, where its settings lines are
    around_box: Section | None = None  # the section an admonition with a title sits in, resumed after it
    callout = False  # inside a GM callout: its "> " lines are GM-only
    secret_level: int | None = None  # level of the open heading tagged GM-only

    def close_item() -> None:
        hidden = _secret_lines(item, shape)  # open lines first, then the GM-only ones as a piece of their own
        unit([p for p, h in zip(item, hidden, strict=True) if not h])
        unit([p for p, h in zip(item, hidden, strict=True) if h], GM_TAG)
        item.clear()
        shape.clear()
        stack.clear()

    def unit(pieces: list[Piece], secret: str = "") -> None:
        kept = [p for p in pieces if p.text.strip()]
        if any(_has_words(p.text) for p in kept):  # "- ." or "- 🐉" alone is nothing to search for
            joined = join(kept, ["\n"] * (len(kept) - 1))
            joined.secret = secret or sections[-1].secret
            sections[-1].units.append(joined)

    def close_para() -> None:
        kept = [p for p in para if p.text.strip()]
        if any(_has_words(p.text) for p in kept):
            joined = join(kept, ["\n"] * (len(kept) - 1), prose=not by_paragraph)
            joined.secret = joined.secret or sections[-1].secret
            sections[-1].units.append(joined)
        para.clear()

    if note.about:  # the front matter's summary of the note opens it, passages of its own
        for no, text in note.about:
            para.append(_marked(_prose_line(text, no), text, secrets))
            close_para()
        sections.append(Section(None, page=page))
    for i, raw in enumerate(strip_comments(note.body).split("\n")):
        no, line = note.body_line + i, raw.rstrip("\r")
        if note.pages and (now := note.page_at(no)) != page:
            close_item()
            close_para()
            page = now
            sections.append(Section(sections[-1].heading, page=page, secret=sections[-1].secret))
        if fence is not None:
            if line.strip().startswith(fence[0]) and not line.strip().strip(fence[0][0]):
                fence, box_settings = None, False
                close_para()
                if around_box is not None:  # the text after the box is the outer section's again
                    sections.append(Section(around_box.heading, page=page, secret=around_box.secret))
                    around_box = None
            elif box_settings and (setting := _BOX_SETTING.match(line)):
                if setting.group(1).lower() == "title" and _has_words(setting.group(2)):
                    around_box = sections[-1]
                    sections.append(Section(_line(setting.group(2), no), page=page, secret=around_box.secret))
            elif not fence[1] and line.strip():
                box_settings = False
                piece = _prose_line(line, no) if fence[2] else _line(line, no, raw=True)
                para.append(_marked(piece, line, secrets))
            elif fence[2]:  # a blank line ends a paragraph of the box, as outside it
                close_para()
            continue
        if callout and line.lstrip().startswith(">"):
            para.append(_prose_line(line, no, secret=GM_CALLOUT))
            continue
        if callout:  # a line without ">" ends the callout
            callout = False
            close_para()
        if opens_callout(line, secrets):
            close_item()
            close_para()
            callout = True
            para.append(_prose_line(line, no, secret=GM_CALLOUT))
            continue
        if not line.strip():
            close_para()  # a blank line ends a paragraph; a bullet item may go on (loose lists)
            continue
        m_bullet = None if _RULE.match(line) else BULLET.match(line)
        indent = indent_of(line)
        nested = bool(item) and indent >= 2 and indent > stack[0]  # nobody nests by a single space
        if nested and not m_bullet:  # continuation of a bullet
            item.append(_marked(_prose_line(line, no, "  " * (len(stack) - 1)), line, secrets))
            shape.append((stack[-1], False))
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
            item.append(_marked(_line(text, no, prefix) if text.strip() else Piece("", [(0, no)]), line, secrets))
            shape.append((indent, True))
            continue
        close_item()
        if m := _FENCE.match(line):
            close_para()
            box_settings = bool(_ADMONITION.match(m.group(2)))
            fence = (m.group(1), m.group(2).lower() in _DROPPED_FENCES, box_settings)
        elif _RULE.match(line):
            close_para()
        elif m := _HEADING.match(line):
            close_para()
            level = len(m.group(1))
            if secret_level is not None and level <= secret_level:
                secret_level = None
            if secret_level is None and has_tag(line, secrets):
                secret_level = level
            sections.append(Section(_line(m.group(2), no), secret=GM_TAG if secret_level is not None else ""))
        else:
            para.append(_marked(_prose_line(line, no), line, secrets))
    close_item()
    close_para()
    return sections


def _marked(piece: Piece, raw: str, secrets: SecretsConfig) -> Piece:
    """A line's piece, marked GM-only when the line carries a GM tag (``#gm-only``)."""
    if has_tag(raw, secrets):
        piece.secret = GM_TAG
    return piece


def _secret_lines(item: list[Piece], shape: list[tuple[int, bool]]) -> list[bool]:
    """Which lines of a bullet item are GM-only: a tagged line hides the bullet it belongs to with everything
    nested under it (a tag on the top-level bullet hides the whole item)."""
    hidden = [False] * len(item)
    owner = 0
    for i, (piece, (_, opens)) in enumerate(zip(item, shape, strict=True)):
        owner = i if opens else owner
        if not piece.secret:
            continue
        level = shape[owner][0]
        hidden[owner] = True
        for k in range(owner + 1, len(item)):
            if shape[k][1] and shape[k][0] <= level:
                break
            hidden[k] = True
    return hidden


def _prose_line(line: str, no: int, prefix: str = "", secret: str = "") -> Piece:
    """A text line: quote and callout markers dropped, table rows read as cells."""
    text = _QUOTE.sub("", line)
    text = _CALLOUT.sub("", text)
    if text.lstrip().startswith("|"):
        if _TABLE_RULE.match(text):
            return Piece("", [(0, no)])
        cells = [c.strip() for c in _CELL_SPLIT.split(text.strip().strip("|"))]
        text = " | ".join(c for c in cells if c)
    piece = _line(text, no, prefix)
    piece.secret = secret
    return piece
