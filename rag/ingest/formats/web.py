"""HTML pages (a wiki page saved from the browser, a Google Docs "Web page" export) as Markdown notes.

Why markdownify (on BeautifulSoup with the standard library's ``html.parser``): it is maintained, MIT
licensed, and writes the Markdown this project already reads: ATX ``#`` headings, which become chunk
headings, ``-`` bullets, which become one passage per bullet, and pipe tables, which the chunker reads as
delimited cells. html2text does the same job but is GPL-3 and wraps lines at 78 characters by default.
Word files go through here too (``rag.ingest.formats.word`` turns them into HTML first), so both kinds of
export get one converter and one set of rules.

Scripts, styles, navigation and forms are dropped before converting: they are page furniture, not notes.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import PurePosixPath

from rag.config import NotesConfig
from rag.ingest.formats import Unreadable, short_error
from rag.ingest.parse import parse_note
from rag.models import Note

_ATX = re.compile(r"^(#{1,6})[ \t]")
_FURNITURE = ["script", "style", "noscript", "template", "head", "svg", "iframe", "form", "nav", "button", "img"]


def html_to_markdown(html: bytes | str) -> tuple[str, str]:
    """``(markdown, document title)``; the title is the page's ``<title>``, or "" when it has none."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = " ".join(soup.title.get_text(" ").split()) if soup.title else ""
    for tag in soup(_FURNITURE):
        tag.decompose()
    converter = MarkdownConverter(heading_style="atx", bullets="-")
    markdown = converter.convert_soup(soup.body or soup)
    # markdownify leaves runs of blank lines between blocks; one is enough for the chunker.
    lines = [line.rstrip() for line in markdown.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n") + "\n", title


def read_html(data: bytes, source: str, config: NotesConfig) -> Note:
    try:
        markdown, title = html_to_markdown(data)
    except Exception as err:  # a parser failure on one odd page must not stop the run
        raise Unreadable(f"not readable as HTML: {short_error(err)}") from None
    return markdown_note(markdown, source, config, "html", title)


def markdown_note(markdown: str, source: str, config: NotesConfig, file_type: str, doc_title: str = "") -> Note:
    """A converted document as a Note: its first H1 is the title (else ``doc_title``, else the file name),
    its other headings are scene headings, and a session number may come from either title."""
    note = parse_note(_one_title(markdown), source, config, titles=[(doc_title, "title")])
    name = PurePosixPath(source).name
    stem = name[: -len(PurePosixPath(name).suffix)] or name
    title = note.title if note.title != stem or not doc_title else doc_title
    return dataclasses.replace(note, title=title, file_type=file_type)


def _one_title(markdown: str) -> str:
    """A page with several H1s uses them as section headings (Google Docs exports do): move every heading
    one level down, so none is mistaken for the document's title and each still starts a section."""
    lines = markdown.split("\n")
    fence = False
    headings = []
    for i, line in enumerate(lines):
        if line.startswith(("```", "~~~")):
            fence = not fence
        elif not fence and (m := _ATX.match(line)):
            headings.append((i, len(m.group(1))))
    if sum(level == 1 for _, level in headings) <= 1:
        return markdown
    for i, level in headings:
        if level < 6:
            lines[i] = "#" + lines[i]
    return "\n".join(lines)
