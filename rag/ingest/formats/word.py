"""Word documents (.docx, also what Google Docs exports) as Markdown notes.

Why mammoth: it is maintained, BSD licensed, pure Python, and made for exactly this: it maps a document's
*styles* to meaning ("Heading 2" → ``<h2>``, list paragraphs → ``<ul>``, tables → ``<table>``) and ignores
the look. Its HTML then goes through the same converter as saved web pages (``rag.ingest.formats.web``), so
headings become chunk headings the same way. python-docx reads paragraphs and styles too, but leaves lists,
numbering and tables to be rebuilt by hand; it is only used by the tests, to write .docx files.

The document title for session numbers is the file's own title property, or a first paragraph in the
"Title" style (mapped to the note's H1 here).
"""

from __future__ import annotations

import io
import zipfile
from xml.etree import ElementTree

from rag.config import NotesConfig
from rag.ingest.formats import Unreadable, short_error
from rag.ingest.formats.web import html_to_markdown, markdown_note
from rag.models import Note

# Word and Google Docs mark a document's title with the "Title" style: that is the H1 (the note's title),
# and "Heading N" moves one level down, so a document's sections are never taken for its title.
_STYLE_MAP = "\n".join(
    ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => p:fresh"]
    + [f"p.Heading{n} => h{min(n + 1, 6)}:fresh" for n in range(1, 7)]
    + [f"p[style-name='Heading {n}'] => h{min(n + 1, 6)}:fresh" for n in range(1, 7)]
)
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # old .doc files and password-protected Office files
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"


def read_docx(data: bytes, source: str, config: NotesConfig) -> Note:
    import mammoth

    if data.startswith(_OLE):
        raise Unreadable("password-protected or old-format Word file: save it as .docx without a password")
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise Unreadable("not a valid Word file: it is not a .docx (zip) package")
    try:
        result = mammoth.convert_to_html(io.BytesIO(data), style_map=_STYLE_MAP)
    except Exception as err:  # mammoth raises whatever the broken part raises (KeyError, XML errors, ...)
        raise Unreadable(f"not a valid Word file: {short_error(err)}") from None
    markdown, _ = html_to_markdown(result.value)
    return markdown_note(markdown, source, config, "docx", core_title(data))


def core_title(data: bytes) -> str:
    """The title in the document's properties (``docProps/core.xml``), or ""."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            root = ElementTree.fromstring(archive.read("docProps/core.xml"))
    except (KeyError, zipfile.BadZipFile, ElementTree.ParseError, OSError):
        return ""
    node = root.find(_DC_TITLE)
    return " ".join((node.text or "").split()) if node is not None else ""
