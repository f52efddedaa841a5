"""Notes that are not Markdown: PDF handouts, e-mailed recaps, HTML pages, Word exports and Obsidian canvases.

Groups keep notes in more places than Obsidian. Each module here turns one file's bytes into a ``Note``
whose body is Markdown-like text, so everything after reading (cleaning, chunking, embedding, citing) is
the code path every Obsidian note takes, and a citation can still point back to a page or a mail.

A reader raises ``Unreadable`` with a reason a player understands ("encrypted PDF (needs a password)");
``rag.ingest.notes`` turns it into a ``Skipped`` so one bad file never stops an index run. Parsing libraries
are imported inside the readers: a vault of Markdown never loads a PDF parser.
"""

from __future__ import annotations

import hashlib
import importlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from email.parser import HeaderParser
from email.policy import compat32

from rag.config import NotesConfig
from rag.models import Note

# suffix → (module in this package, function(data, source, config) -> Note)
_READERS = {
    ".pdf": ("pdf", "read_pdf"),
    ".eml": ("mail", "read_mail"),
    ".html": ("web", "read_html"),
    ".htm": ("web", "read_html"),
    ".docx": ("word", "read_docx"),
    ".canvas": ("canvas", "read_canvas"),
}
# Containers whose size is mostly images or attachments: they get notes.max_document_mb, not max_file_mb.
DOCUMENTS = frozenset({".pdf", ".docx", ".eml"})
_CACHE: OrderedDict[tuple, Note | Unreadable] = OrderedDict()  # see read()
_CACHE_SIZE = 256  # documents; a handout's Note is its text, so this stays in the tens of MB
_LOCK = threading.Lock()
# What a plain-text mail export starts with: at least From and one of these.
_MAIL_HEADERS = ("subject", "date", "to")


class Unreadable(Exception):
    """A file that cannot become a note; ``reason`` is shown to the player as is."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def reader(suffix: str) -> Callable[[bytes, str, NotesConfig], Note] | None:
    """The reader for a file name suffix, or None when the file is read as Markdown/text."""
    found = _READERS.get(suffix.lower())
    if found is None:
        return None
    module = importlib.import_module(f"{__name__}.{found[0]}")
    return getattr(module, found[1])


def read(data: bytes, source: str, suffix: str, config: NotesConfig) -> Note:
    """One file's bytes as a Note, or ``Unreadable``.

    Every sync reads every file again (only embedding is incremental). That is nothing for Markdown, but a
    PDF costs 7-80 ms a page and a .docx ~0.7 s (docs/BENCHMARKS.md), so results are kept in memory by
    content: the app, which syncs in one long-lived process, parses an unchanged document once."""
    read_file = reader(suffix)
    if read_file is None:
        raise ValueError(f"no reader for {suffix!r} files")
    key = (hashlib.sha256(data).digest(), source, suffix, config.model_dump_json())
    with _LOCK:
        found = _CACHE.get(key)
        if found is not None:
            _CACHE.move_to_end(key)
    if found is None:
        try:
            found = read_file(data, source, config)
        except Unreadable as err:
            found = err
        with _LOCK:
            _CACHE[key] = found
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    if isinstance(found, Unreadable):
        raise Unreadable(found.reason)
    return found


def looks_like_mail(text: str) -> bool:
    """Whether a .txt file is a plain-text mail export: it opens with a header block holding ``From:``
    and a ``Subject:``, ``Date:`` or ``To:``. Headers are parsed by the standard library, which stops at
    the first line that is not a header; a note that merely mentions "From:" later on is not mail."""
    head = text.lstrip("\ufeff").lstrip("\r\n")[:8192]
    first = head.split("\n", 1)[0]
    if ":" not in first or " " in first.split(":", 1)[0]:  # the first line must already be a header
        return False
    headers = HeaderParser(policy=compat32).parsestr(head, headersonly=True)
    names = {k.lower() for k in headers}
    return "from" in names and any(h in names for h in _MAIL_HEADERS)


def short_error(err: BaseException) -> str:
    """A library's exception as one short line for a skip reason."""
    text = " ".join(str(err).split()) or type(err).__name__
    return text if len(text) <= 120 else text[:117] + "…"
