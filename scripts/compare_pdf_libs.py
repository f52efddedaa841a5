"""pypdf or PyMuPDF for reading PDF notes? Measured, not guessed.

Quality on PDFs generated with known text (tests/docfiles.py): the 3-page handout (are its sentences found,
on the right page?), its price table (is every row read as delimited cells?), and a page set in two columns
(is each column's text read in order?). Speed in ms per page on a generated 50-page PDF and on the PDFs that
Debian's libtasn1-doc and shared-mime-info packages ship, when present; on those, "words kept" is the share
of PyMuPDF's words that each way of reading finds too (nothing dropped). Prints Markdown tables for
docs/BENCHMARKS.md.

    .venv/bin/pip install pymupdf==2.0   # only for this comparison; not a project dependency
    .venv/bin/python scripts/compare_pdf_libs.py [--pages 50] [--repeat 3]
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib.metadata
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import docfiles  # noqa: E402

SYSTEM_PDFS = [
    Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"),
]


# -- four ways of reading a PDF: each returns one text per page ------------------------------------------


def pypdf_chronicler(path: Path) -> list[str]:
    """What rag/formats/pdf.py does: layout mode, aligned columns → table rows, paragraphs reflowed."""
    from pypdf import PdfReader

    from rag.ingest.formats.pdf import page_lines

    return ["\n".join(page_lines(p.extract_text(extraction_mode="layout"))) for p in PdfReader(path).pages]


def pypdf_plain(path: Path) -> list[str]:
    from pypdf import PdfReader

    return [p.extract_text() for p in PdfReader(path).pages]


def pymupdf_plain(path: Path) -> list[str]:
    import pymupdf

    with pymupdf.open(path) as doc:
        return [p.get_text() for p in doc]


def pymupdf_tables(path: Path) -> list[str]:
    """PyMuPDF's table finder for the tables (cells joined by " | "), its text blocks for the rest."""
    import pymupdf

    out = []
    with pymupdf.open(path) as doc:
        for page in doc:
            tables = page.find_tables().tables
            boxes = [pymupdf.Rect(t.bbox) for t in tables]
            items = [
                (b[1], b[4])
                for b in page.get_text("blocks")
                if not any(pymupdf.Rect(b[:4]).intersects(box) for box in boxes)
            ]
            for t in tables:
                rows = "\n".join(" | ".join(c or "" for c in row) for row in t.extract())
                items.append((t.bbox[1], rows))
            out.append("\n".join(text for _, text in sorted(items, key=lambda x: x[0])))
    return out


WAYS = {
    "pypdf, layout mode + Chronicler's table/column rules": pypdf_chronicler,
    "pypdf, plain extract_text()": pypdf_plain,
    "PyMuPDF, get_text()": pymupdf_plain,
    "PyMuPDF, get_text() + find_tables()": pymupdf_tables,
}


# -- scoring ------------------------------------------------------------------------------------------------


def norm(text: str) -> str:
    """Whitespace collapsed; a Markdown table row "| a | b |" read as "a | b"."""
    rows = [r.strip() for r in text.splitlines()]
    rows = [r[1:-1].strip() if r.startswith("|") and r.endswith("|") else r for r in rows]
    return " ".join(" ".join(rows).split())


def quality(way, folder: Path) -> dict[str, str]:
    handout = way(docfiles.handout_pdf(folder / "handout.pdf"))
    expected = [(n, s) for n, (h, ps) in enumerate(docfiles.HANDOUT_PAGES) for s in [h, *ps]]
    on_page = sum(norm(s) in norm(handout[n]) for n, s in expected)
    rows = [" | ".join(r) for r in docfiles.HANDOUT_TABLE]
    delimited = sum(r in norm(handout[1]) for r in rows)
    columns = norm(way(docfiles.two_column_pdf(folder / "columns.pdf"))[0])
    in_order = sum(norm(s) in columns for s in docfiles.TWO_COLUMNS)
    return {
        "sentences on the right page": f"{on_page}/{len(expected)}",
        "table rows as delimited cells": f"{delimited}/{len(rows)}",
        "two-column text in reading order": f"{in_order}/{len(docfiles.TWO_COLUMNS)}",
    }


def ms_per_page(way, path: Path, repeat: int) -> tuple[float, list[str]]:
    best, pages = float("inf"), []
    for _ in range(repeat):
        t0 = time.perf_counter()
        pages = way(path)
        best = min(best, time.perf_counter() - t0)
    return 1000 * best / max(len(pages), 1), pages


def words(text: str) -> collections.Counter:
    return collections.Counter(re.findall(r"\w+", text.casefold()))


def kept(reference: list[str], pages: list[str]) -> float:
    ref, got = words(" ".join(reference)), words(" ".join(pages))
    return sum((ref & got).values()) / max(sum(ref.values()), 1)


def installed_mb(*dists: str) -> float:
    total = 0
    for dist in dists:
        for f in importlib.metadata.distribution(dist).files or []:
            with contextlib.suppress(OSError):
                total += f.locate().stat().st_size
    return total / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=50, help="pages of the generated timing PDF")
    parser.add_argument("--repeat", type=int, default=3, help="timing runs per file (best is kept)")
    args = parser.parse_args()
    try:
        import pymupdf  # noqa: F401
    except ImportError:
        print("PyMuPDF is not installed: .venv/bin/pip install pymupdf==2.0 (only for this script)", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="compare-pdf-"))
    long = docfiles.long_pdf(folder / "long.pdf", args.pages)
    speed_files = [(f"generated, {args.pages} pages", long)] + [
        (f"{p.name} ({len(pymupdf_plain(p))} pages)", p) for p in SYSTEM_PDFS if p.exists()
    ]
    references = {name: pymupdf_plain(path) for name, path in speed_files}

    quality_rows, speed_rows = [], []
    for label, way in WAYS.items():
        print(f"measuring: {label}", file=sys.stderr)
        quality_rows.append({"way of reading": label, **quality(way, folder)})
        row = {"way of reading": label}
        for name, path in speed_files:
            ms, pages = ms_per_page(way, path, args.repeat)
            row[f"ms/page: {name}"] = f"{ms:.1f}"
            if path != long:
                row[f"words kept: {name}"] = f"{kept(references[name], pages):.3f}"
        speed_rows.append(row)

    versions = ", ".join(f"{d} {importlib.metadata.version(d)}" for d in ("pypdf", "pymupdf"))
    print(f"{versions}; Python {platform.python_version()}, {platform.machine()}\n")
    print(table(quality_rows))
    print()
    print(table(speed_rows))
    print()
    sizes = [
        {"library": "pypdf", "licence": "BSD-3-Clause", "installed MB (with dependencies)":
            f"{installed_mb('pypdf'):.0f}"},
        {"library": "PyMuPDF", "licence": "AGPL-3.0 (or commercial)", "installed MB (with dependencies)":
            f"{installed_mb('pymupdf', 'pymupdf-layout', 'pymupdf4llm', 'onnxruntime'):.0f}"},
    ]  # fmt: skip
    print(table(sizes))
    return 0


def table(rows: list[dict[str, str]]) -> str:
    head = list(rows[0])
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(r.get(h, "")) for h in head) + " |" for r in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
