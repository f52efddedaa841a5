"""PDF handouts and write-ups: text per page with pypdf, so every chunk keeps the page it is on.

Why pypdf (measured in docs/BENCHMARKS.md, "Reading other file types", by ``scripts/compare_pdf_libs.py``):
it is pure Python with no dependencies (4 MB, BSD licence) where PyMuPDF is AGPL and, in its 2.x line,
pulls in onnxruntime (~200 MB installed); PyMuPDF's plain text is ~20x faster, but a player's handouts are
tens of pages, and its table finder, the part that would beat pypdf on tables, costs ~0.5 s per page.

Text comes from pypdf's *layout* mode, which keeps the columns of a table apart with runs of spaces. Rows
whose cells line up over several lines become a Markdown table (``| Item | Price |``; the chunker turns
those into delimited cell text), unless every column holds sentences: then it is a page set in columns,
read one column after the other. Everything else is reflowed into one line per paragraph, so a passage
is not cut at the PDF's line wraps. Page headers and footers repeated on most pages are dropped.

A PDF with no text on any page is a scan: it is skipped as "no text layer (scanned?)", never indexed as
empty. Encrypted PDFs open when they only have an owner password (viewers open those too); a user
password is a skip reason, as is a broken file.
"""

from __future__ import annotations

import io
import logging
import re
from pathlib import PurePosixPath

from rag.config import NotesConfig
from rag.ingest.formats import Unreadable, short_error
from rag.ingest.parse import session_from_name, session_from_text
from rag.models import Note

_CELL_GAP = re.compile(r" {3,}")  # layout mode separates table columns by wide runs of spaces
_BULLET = re.compile(r"^[•◦▪‣●○■□–]\s*")
_DIGITS = re.compile(r"\d+")
_ALIGN = 3  # columns of one table start (or end) within this many characters of each other


def read_pdf(data: bytes, source: str, config: NotesConfig) -> Note:
    """The PDF's text as one Note; ``Note.pages`` records the body line each page starts on."""
    from pypdf import PdfReader
    from pypdf.errors import DependencyError, FileNotDecryptedError

    if b"%PDF-" not in data[:1024]:
        raise Unreadable("not a valid PDF: the file does not start like a PDF")
    logs = _Capture()
    logger = logging.getLogger("pypdf")
    logger.addHandler(logs)
    propagate, logger.propagate = logger.propagate, False  # pypdf logs every repair it makes
    try:
        try:
            reader = PdfReader(io.BytesIO(data))
            if reader.is_encrypted and not reader.decrypt(""):
                raise Unreadable("encrypted PDF (needs a password)")
            count = len(reader.pages)
        except Unreadable:
            raise
        except DependencyError:
            raise Unreadable("encrypted PDF: opening it needs the 'cryptography' package") from None
        except FileNotDecryptedError:
            raise Unreadable("encrypted PDF (needs a password)") from None
        except Exception as err:  # pypdf raises many types for broken files; any of them means "broken"
            raise Unreadable(f"not a valid PDF: {logs.first or short_error(err)}") from None
        if count == 0:
            raise Unreadable("not a valid PDF: it has no pages")
        texts, warnings = [], []
        for number, page in enumerate(reader.pages, start=1):
            texts.append(_page_text(page, number, warnings))
        title = _metadata_title(reader)
    finally:
        logger.removeHandler(logs)
        logger.propagate = propagate
    return build_note(texts, source, config, title, warnings)


class _Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.first = ""

    def emit(self, record: logging.LogRecord) -> None:
        self.first = self.first or short_error(Exception(record.getMessage()))


def _page_text(page, number: int, warnings: list[str]) -> str:
    try:
        return page.extract_text(extraction_mode="layout")
    except Exception:  # layout mode is stricter about odd fonts; plain mode still gets the words
        try:
            return page.extract_text()
        except Exception as err:
            warnings.append(f"page {number} could not be read ({short_error(err)})")
            return ""


def _metadata_title(reader) -> str:
    try:
        title = reader.metadata.title if reader.metadata else None
    except Exception:
        return ""
    return " ".join(str(title).split()) if title else ""


def build_note(
    page_texts: list[str], source: str, config: NotesConfig, doc_title: str = "", warnings: list[str] | None = None
) -> Note:
    """A Note from each page's layout text. Shared with the benchmark script, so both measure one thing."""
    warnings = list(warnings or [])
    repeated = _repeated_lines(page_texts)
    lines: list[str] = []
    pages: list[tuple[int, int]] = []
    empty: list[int] = []
    for number, text in enumerate(page_texts, start=1):
        block = page_lines(text, repeated)
        if not block:
            empty.append(number)
            continue
        pages.append((len(lines) + 1, number))
        lines += [*block, ""]
    if not pages:
        raise Unreadable("no text layer (scanned?)")
    if empty:
        which = ", ".join(str(n) for n in empty)
        warnings.append(f"no text on page{'s' if len(empty) > 1 else ''} {which} (scanned?)")
    name = PurePosixPath(source).name
    title = name[: -len(PurePosixPath(name).suffix)] or name
    session, campaign_no = session_from_name(source, config)
    origin = ""
    if session is None:
        session, campaign_no, origin = session_from_text({}, [(doc_title, "title"), (title, "")], config)
    if session is not None and session < 0:
        warnings.append(f"session number {session} is below 0 after notes.session_offset; stored without one")
        session, origin = None, ""
    folders = PurePosixPath(source).parent.parts
    return Note(
        source=source,
        title=title,
        body="\n".join(lines),
        session=session,
        campaign_no=campaign_no,
        kind="session" if session is not None else (folders[0] if folders else "note"),
        front_matter={"title": doc_title} if doc_title else {},
        warnings=tuple(warnings),
        file_type="pdf",
        pages=tuple(pages),
        page_count=len(page_texts),
        session_from=origin,
    )


def _repeated_lines(page_texts: list[str]) -> set[str]:
    """Running headers and footers: a first or last line that recurs (digits aside) on most pages."""
    if len(page_texts) < 5:  # a short handout's page titles ("Page 1 heading") are content
        return set()
    seen: dict[str, int] = {}
    for text in page_texts:
        rows = [" ".join(r.split()) for r in text.splitlines() if r.strip()]
        for row in {*rows[:1], *rows[-1:]}:
            key = _DIGITS.sub("#", row)
            seen[key] = seen.get(key, 0) + 1
    return {key for key, n in seen.items() if n >= max(3, len(page_texts) // 2)}


def page_lines(text: str, repeated: set[str] = frozenset()) -> list[str]:
    """One page's layout text as Markdown-like lines: tables as ``| a | b |`` rows, paragraphs reflowed,
    blank lines between blocks."""
    rows = [r.rstrip() for r in text.replace("\r", "").split("\n")]
    rows = [r if r.strip() and _DIGITS.sub("#", " ".join(r.split())) not in repeated else "" for r in rows]
    tables = _find_tables(rows)
    out: list[str] = []
    para: list[str] = []
    margin = _right_margin(rows)
    prev_indent = bullet_indent = prev_end = 0

    def flush() -> None:
        if para:
            out.extend([_reflow(para), ""])
            para.clear()

    i = 0
    while i < len(rows):
        if i in tables:
            flush()
            end, cells = tables[i]
            if _is_columns(cells):  # text set in columns: read each column top to bottom
                for column in zip(*cells, strict=True):
                    out.extend([_reflow(list(column)), ""])
            else:
                out.extend("| " + " | ".join(row) + " |" for row in cells)
                out.append("")
            i = end
            continue
        row = rows[i]
        i += 1
        if not row.strip():
            flush()
            continue
        indent = len(row) - len(row.lstrip())
        content = " ".join(row.split())
        bullet = _BULLET.match(content)
        if bullet:
            content = "- " + content[bullet.end() :]
        if para:
            # The previous line ended a paragraph if this line's first word would have fitted on it.
            short = prev_end + 1 + len(content.split(" ", 1)[0]) < margin - 2
            # A bullet goes on in lines indented past its glyph; a paragraph starts with a first-line indent.
            new = indent <= bullet_indent if para[0].startswith("- ") else indent > prev_indent + 1
            if bullet or short or new:
                flush()
        if bullet:
            bullet_indent = indent
        para.append(content)
        prev_indent, prev_end = indent, len(row)
    flush()
    while out and not out[-1]:
        out.pop()
    return out


def _right_margin(rows: list[str]) -> int:
    """Where full lines end. Layout mode places text by its position on the page, so a justified line ends
    at the same column however many characters it has; the 80th percentile ignores a stray long line."""
    ends = sorted(len(r) for r in rows if r.strip())
    return ends[int(0.8 * (len(ends) - 1))] if ends else 0


def _reflow(lines: list[str]) -> str:
    """Join a paragraph's lines, mending words hyphenated at a line end ("exam-" + "ple")."""
    text = lines[0]
    for line in lines[1:]:
        if len(text) > 1 and text[-1] == "-" and text[-2].isalpha() and line[:1].islower():
            text = text[:-1] + line
        else:
            text = f"{text} {line}"
    return text


def _is_columns(cells: list[list[str]]) -> bool:
    """Layout mode sets two columns of prose side by side, which looks like a table of long cells. A real
    table has short cells in at least one column (names, prices); columns hold sentences in all of them."""
    return all(sum(len(c.split()) for c in column) / len(column) >= 5 for column in zip(*cells, strict=True))


def _cells(row: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each cell of a layout line, split at runs of 3+ spaces."""
    cells, start = [], len(row) - len(row.lstrip())
    for m in _CELL_GAP.finditer(row, start):
        cells.append((start, m.start(), row[start : m.start()]))
        start = m.end()
    cells.append((start, len(row), row[start:]))
    return [c for c in cells if c[2].strip()]


def _find_tables(rows: list[str]) -> dict[int, tuple[int, list[list[str]]]]:
    """Row index where a table starts → (row index after it, its cells). A table is 2+ rows (3+ when it
    has only two columns) with the same number of cells whose columns line up: justified prose also has
    wide gaps, but never in the same places on consecutive lines."""
    found: dict[int, tuple[int, list[list[str]]]] = {}
    i = 0
    while i < len(rows):
        first = _cells(rows[i])
        if len(first) < 2 or _BULLET.match(first[0][2].strip()):
            i += 1
            continue
        members, j, last = [first], i + 1, i + 1
        while j < len(rows):
            if not rows[j].strip():
                j += 1
                continue
            cells = _cells(rows[j])
            if len(cells) != len(first) or not all(
                abs(a[0] - b[0]) <= _ALIGN or abs(a[1] - b[1]) <= _ALIGN for a, b in zip(cells, first, strict=True)
            ):
                break
            members.append(cells)
            j += 1
            last = j
        if len(members) >= (2 if len(first) > 2 else 3):
            found[i] = (last, [[" ".join(c[2].split()) for c in row] for row in members])
            i = last
        else:
            i += 1
    return found
