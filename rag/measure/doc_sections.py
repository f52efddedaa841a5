"""Numbers live in documents: benchmark and evaluation sections are rewritten in place.

Each section sits between ``<!-- NAME -->`` and ``<!-- /NAME -->`` markers, so runs made at different
times (or of different benchmarks) don't erase each other, and hand-written prose around them stays.
"""

from __future__ import annotations

from pathlib import Path

from rag.config import PROJECT_ROOT

DOCS = PROJECT_ROOT / "docs"


def write_section(doc: Path, name: str, markdown: str, title: str) -> None:
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    text = doc.read_text(encoding="utf-8") if doc.exists() else f"# {title}\n"
    block = f"{start}\n{markdown.strip()}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + block + rest.split(end, 1)[1]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(text, encoding="utf-8")
