"""Reading a notes folder into ``Note`` objects.

A vault is whatever players keep: Obsidian folders with images, hidden app folders, stubs, files
saved by Windows editors, the odd binary. One bad file must never stop an index run, so every file
that cannot be used becomes a ``Skipped`` with a reason a player understands, and the rest goes on.
Only the folder's own files are read: a link pointing elsewhere is reported, not followed.

PDF, e-mail, HTML and Word files are read by ``rag.ingest.formats`` into the same ``Note``; their reasons for
being skipped ("no text layer (scanned?)") come back here as ``Skipped`` like any other.
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path, PurePosixPath

from rag.config import NotesConfig, SecretsConfig
from rag.errors import NotesError
from rag.ingest import formats
from rag.ingest.dated_sessions import number_dated_sessions
from rag.ingest.parse import find_header, parse_note
from rag.ingest.secrets import decide, gm_folder
from rag.models import Note

# A folder named for its templates, however a vault sorts it: "Templates", "_templates", "z_Templates" (last in
# the file list), "99 - Templates", "Session Templates"; not "Templar Order".
_TEMPLATE_FOLDER = re.compile(r"(?<![^\W\d_])templates?(?![^\W\d_])", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"\{\{\s*(?:title|date|time)\b[^}]*\}\}|<%[*_-]?\s*tp\.", re.IGNORECASE)
EMPTY = "empty file"


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A file that was not indexed, and why (shown to the player as is). ``visibility`` is "gm" when what could
    be read of it (its folder, its front matter) marks it GM-only: its name is then left out of the player
    view too ("Session Prep/Session 0.md" says what the next session holds)."""

    source: str
    reason: str
    visibility: str = "player"
    blank: bool = False  # a note with nothing written in it yet: a page a player made ("Characters/Ti.md")


def load_notes(
    folder: str | Path,
    config: NotesConfig,
    secrets: SecretsConfig | None = None,
    outer: tuple[str, ...] | None = None,
) -> tuple[list[Note], list[Skipped]]:
    """Every note under ``folder`` (sorted by source) and every file that had to be left out; a note that
    ``secrets`` (default rules when None) marks GM-only as a whole says so in ``visibility``. Session notes named
    by a date are numbered here, in date order, as only the whole folder can (``rag.ingest.dated_sessions``).

    ``outer``: names of folders above the notes' own paths that the GM folder rule reads too; by default the
    folder's own name, so a "Session Prep" folder read (or unzipped) on its own is still a prep folder. The
    app's uploads folder, named after its campaign, passes ``()``."""
    secrets = secrets or SecretsConfig()
    root = Path(folder).expanduser()
    if not root.exists():
        raise NotesError(f"The notes folder {root} does not exist.")
    if not root.is_dir():
        raise NotesError(f"{root} is a file, not a folder: point the notes setting at the folder holding it.")
    root = root.resolve()
    outer = (root.name,) if outer is None else tuple(outer)
    decided = _decider(secrets, outer)

    def skip(source: str, reason: str, is_folder: bool = False, blank: bool = False) -> Skipped:
        folders = PurePosixPath(source).parts if is_folder else PurePosixPath(source).parts[:-1]
        return Skipped(source, reason, "gm" if gm_folder(tuple(folders), secrets, outer) else "player", blank)

    extensions = {e.lower() if e.startswith(".") else "." + e.lower() for e in config.extensions}
    notes: list[Note] = []
    skipped: list[Skipped] = []

    def unreadable(err: OSError) -> None:
        where = _rel(Path(err.filename), root) if err.filename else "."
        skipped.append(skip(where or ".", f"folder cannot be read: {(err.strerror or str(err)).lower()}", True))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):  # folder links are reported
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in list(dirnames):
            if (here / name).is_symlink():
                dirnames.remove(name)
                skipped.append(skip(_rel(here / name, root), _folder_link_reason(here / name, root), True))
        for name in sorted(filenames):
            path = here / name
            if name.startswith(".") or path.suffix.lower() not in extensions:
                continue
            source = _rel(path, root)
            result = _read(path, source, root, config, decided)
            if isinstance(result, Skipped):
                gm_only = result.visibility == "gm"
                skipped.append(result if gm_only else skip(result.source, result.reason, blank=result.blank))
            else:
                notes.append(result)
    notes = number_dated_sessions(sorted(notes, key=lambda n: n.source), config)
    skipped.sort(key=lambda s: s.source)
    return notes, skipped


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _folder_link_reason(path: Path, root: Path) -> str:
    target = path.resolve()
    if target != root and root not in target.parents:
        return "link outside the notes folder"
    return "folder link not followed (its target inside the notes folder is read directly)"


def _decider(secrets: SecretsConfig, outer: tuple[str, ...]):
    return lambda note: decide(note, secrets, outer)


def size_limit(config: NotesConfig, suffix: str) -> tuple[float, str]:
    """The largest file of this kind that is read, in MB, and the setting that says so: documents (PDF, Word,
    e-mail) hold images and attachments, so they get more room than Markdown or text."""
    if suffix.lower() in formats.DOCUMENTS:
        return config.max_document_mb, "notes.max_document_mb"
    return config.max_file_mb, "notes.max_file_mb"


def _read(path: Path, source: str, root: Path, config: NotesConfig, decided) -> Note | Skipped:
    """The note with its visibility decided by ``decided(note)``, or why it is skipped (a GM-only
    note that turns out empty is a GM-only skip)."""
    target = path.resolve()
    if root not in target.parents:
        return Skipped(source, "link outside the notes folder")
    suffix = path.suffix.lower()
    try:
        if not target.is_file():
            return Skipped(source, "not a regular file")
        mb = size_limit(config, suffix)[0]
        if target.stat().st_size > mb * 1024 * 1024:
            return Skipped(source, f"larger than {mb:g} MB limit")
        data = target.read_bytes()
    except OSError as err:
        return Skipped(source, f"cannot be read: {(err.strerror or str(err)).lower()}")
    if formats.reader(suffix) is not None:
        return _read_document(data, source, suffix, config, decided)
    text, problem, warning = decode(data)
    if problem:
        return Skipped(source, problem, blank=problem == EMPTY)
    if suffix == ".txt" and formats.looks_like_mail(text):  # a plain-text mail export
        return _read_document(data, source, ".eml", config, decided)
    if config.skip_templates and is_template(source, text):
        return Skipped(source, "a template, not a note ({{title}} placeholders or a templates folder)")
    note = decided(parse_note(text, source, config))
    if not note.body.strip() and not note.about:  # a page whose front matter describes it has that to read
        header = config.narrative_header.strip()
        if note.body_line > 1 and find_header(text.split("\n"), 0, header) is not None:
            return Skipped(source, f"nothing after the '{header}' header", note.visibility)
        return Skipped(source, "no text besides the front matter and title", note.visibility, blank=True)
    return note if not warning else _with_warning(note, warning)


def is_template(source: str, text: str) -> bool:
    """Obsidian's core templates and Templater: a file in a ``templates`` folder, or one whose text holds
    their placeholders. Indexed, a template's empty headings answer questions and show up as citations
    that look like a session's."""
    folders = PurePosixPath(source).parts[:-1]
    return any(_TEMPLATE_FOLDER.search(f) for f in folders) or bool(_PLACEHOLDER.search(text))


def _read_document(data: bytes, source: str, suffix: str, config: NotesConfig, decided) -> Note | Skipped:
    """A PDF, e-mail, HTML, Word or canvas file through its ``rag.ingest.formats`` reader; its reason when unreadable."""
    if not data.strip():
        return Skipped(source, EMPTY, blank=True)
    try:
        note = decided(formats.read(data, source, suffix, config))
    except formats.Unreadable as err:
        return Skipped(source, err.reason)
    if not note.body.strip():
        return Skipped(source, "no text in the document", note.visibility)
    return note


def _with_warning(note: Note, warning: str) -> Note:
    return dataclasses.replace(note, warnings=(warning, *note.warnings))


def decode(data: bytes) -> tuple[str, str | None, str | None]:
    """``(text, skip reason, warning)``. UTF-8 first; cp1252 is what Windows editors save instead.

    Python's cp1252 codec rejects its five undefined bytes, so a failure there really is "not text".
    UTF-16 is only recognised by its byte-order mark (Notepad writes one); other NUL bytes mean binary.
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return _nonempty(data.decode("utf-16"), None)
        except UnicodeDecodeError:
            return "", "not UTF-8 or cp1252 text", None
    if b"\x00" in data:
        return "", "binary file", None
    try:
        return _nonempty(data.decode("utf-8-sig"), None)
    except UnicodeDecodeError:
        pass
    try:
        return _nonempty(data.decode("cp1252"), "read as Windows-1252 text: the file is not valid UTF-8")
    except UnicodeDecodeError:
        return "", "not UTF-8 or cp1252 text", None


def _nonempty(text: str, warning: str | None) -> tuple[str, str | None, str | None]:
    text = text.lstrip("\ufeff")
    if not text.strip():
        return "", EMPTY, None
    return text, None, warning
