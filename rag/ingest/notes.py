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
import functools
import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

import yaml

from rag.ingest import formats
from rag.config import NotesConfig
from rag.errors import ConfigError, NotesError
from rag.ingest.markdown import clean_inline
from rag.models import Note, Session

_H1 = re.compile(r"^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
# "Session 20.5 (Bonus Session)", "Session 12 - The Heist": the number is still the session.
_NAME_SUFFIX = re.compile(r"^(.*?\S)\s*(?:[-–—:]\s+.*|[(\[].*)$")


@dataclasses.dataclass(frozen=True)
class Skipped:
    """A file that was not indexed, and why (shown to the player as is)."""

    source: str
    reason: str


def load_notes(folder: str | Path, config: NotesConfig) -> tuple[list[Note], list[Skipped]]:
    """Every note under ``folder`` (sorted by source) and every file that had to be left out."""
    root = Path(folder).expanduser()
    if not root.exists():
        raise NotesError(f"The notes folder {root} does not exist.")
    if not root.is_dir():
        raise NotesError(f"{root} is a file, not a folder: point the notes setting at the folder holding it.")
    root = root.resolve()
    extensions = {e.lower() if e.startswith(".") else "." + e.lower() for e in config.extensions}
    notes: list[Note] = []
    skipped: list[Skipped] = []

    def unreadable(err: OSError) -> None:
        where = _rel(Path(err.filename), root) if err.filename else "."
        skipped.append(Skipped(where or ".", f"folder cannot be read: {(err.strerror or str(err)).lower()}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):  # folder links are reported
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in list(dirnames):
            if (here / name).is_symlink():
                dirnames.remove(name)
                skipped.append(Skipped(_rel(here / name, root), _folder_link_reason(here / name, root)))
        for name in sorted(filenames):
            path = here / name
            if name.startswith(".") or path.suffix.lower() not in extensions:
                continue
            source = _rel(path, root)
            result = _read(path, source, root, config)
            (skipped if isinstance(result, Skipped) else notes).append(result)
    notes.sort(key=lambda n: n.source)
    skipped.sort(key=lambda s: s.source)
    return notes, skipped


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _folder_link_reason(path: Path, root: Path) -> str:
    target = path.resolve()
    if target != root and root not in target.parents:
        return "link outside the notes folder"
    return "folder link not followed (its target inside the notes folder is read directly)"


def _read(path: Path, source: str, root: Path, config: NotesConfig) -> Note | Skipped:
    target = path.resolve()
    if root not in target.parents:
        return Skipped(source, "link outside the notes folder")
    suffix = path.suffix.lower()
    try:
        if not target.is_file():
            return Skipped(source, "not a regular file")
        mb = config.max_document_mb if suffix in formats.DOCUMENTS else config.max_file_mb
        if target.stat().st_size > mb * 1024 * 1024:
            return Skipped(source, f"larger than {mb:g} MB limit")
        data = target.read_bytes()
    except OSError as err:
        return Skipped(source, f"cannot be read: {(err.strerror or str(err)).lower()}")
    if formats.reader(suffix) is not None:
        return _read_document(data, source, suffix, config)
    text, problem, warning = decode(data)
    if problem:
        return Skipped(source, problem)
    if suffix == ".txt" and formats.looks_like_mail(text):  # a plain-text mail export
        return _read_document(data, source, ".eml", config)
    note = parse_note(text, source, config)
    if not note.body.strip():
        header = config.narrative_header.strip()
        if note.body_line > 1 and _find_header(text.split("\n"), 0, header) is not None:
            return Skipped(source, f"nothing after the '{header}' header")
        return Skipped(source, "no text besides the front matter and title")
    return note if not warning else _with_warning(note, warning)


def _read_document(data: bytes, source: str, suffix: str, config: NotesConfig) -> Note | Skipped:
    """A PDF, e-mail, HTML or Word file through its ``rag.ingest.formats`` reader; its reason when unreadable."""
    if not data.strip():
        return Skipped(source, "empty file")
    try:
        note = formats.read(data, source, suffix, config)
    except formats.Unreadable as err:
        return Skipped(source, err.reason)
    if not note.body.strip():
        return Skipped(source, "no text in the document")
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
        return "", "empty file", None
    return text, None, warning


def parse_note(text: str, source: str, config: NotesConfig, titles: Sequence[tuple[str, str]] = ()) -> Note:
    """Split one file's text into front matter, title and narrative body (see ``Note``).

    ``titles``: more ``(text, origin)`` places a session number may be found in when the file name has
    none, tried after the front matter and the note's own title (a document title, an e-mail subject)."""
    lines = [line.rstrip("\r") for line in text.lstrip("\ufeff").split("\n")]
    warnings: list[str] = []
    front, start = _front_matter(lines, warnings)
    header_at = _find_header(lines, start, config.narrative_header)
    title = ""
    if header_at is not None:
        for line in lines[start:header_at]:
            if m := _H1.match(line):
                title = clean_inline(m.group(1))[0]
                break
        body_start = header_at + 1
        if not any(line.strip() for line in lines[body_start:]):
            warnings.append(f"nothing follows the '{config.narrative_header.strip()}' header, so no text")
    else:
        body_start = start
        first = next((i for i in range(start, len(lines)) if lines[i].strip()), None)
        if first is not None and (m := _H1.match(lines[first])):
            title = clean_inline(m.group(1))[0]
            body_start = first + 1
    stem = PurePosixPath(source).name
    stem = _strip_extension(stem, config)
    front_title = str(front["title"]).strip() if isinstance(front.get("title"), str | int | float) else ""
    title = title or front_title
    session, campaign_no = session_from_name(source, config)
    session_from = ""
    if session is None:
        candidates = [(title, "title"), (front_title, "title"), *titles]
        session, campaign_no, session_from = session_from_text(front, candidates, config)
    is_session = session is not None
    if session is not None and session < 0:
        warnings.append(f"session number {session} is below 0 after notes.session_offset; stored without one")
        session = None
    # The top-level folder ("NPCs", "Locations") groups pages better than the immediate parent
    # ("NPCs/Port Nyanzaru") for filters and charts.
    folders = PurePosixPath(source).parent.parts
    parent = folders[0] if folders else ""
    return Note(
        source=source,
        title=title or stem,
        body="\n".join(lines[body_start:]),
        body_line=body_start + 1,
        session=session,
        campaign_no=campaign_no,
        kind="session" if is_session else (parent or "note"),
        front_matter=front,
        warnings=tuple(warnings),
        session_from=session_from if session is not None else "",
    )


def _front_matter(lines: list[str], warnings: list[str]) -> tuple[dict, int]:
    """``(front matter, index of the first line after it)``; a broken block stays in the text."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        warnings.append("front matter starts with '---' on line 1 but is never closed; read it as text")
        return {}, 0
    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        warnings.append(f"front matter is not valid YAML ({problem}{where}); read it as text")
        return {}, 0
    if data is None:
        return {}, end + 1
    if not isinstance(data, dict):
        warnings.append(f"front matter is a YAML {type(data).__name__}, not a mapping of keys; read it as text")
        return {}, 0
    return {str(k): v for k, v in data.items()}, end + 1


def _find_header(lines: list[str], start: int, header: str) -> int | None:
    want = " ".join(header.split()).casefold()
    if not want:
        return None
    for i in range(start, len(lines)):
        if " ".join(lines[i].split()).casefold() == want:
            return i
    return None


def _strip_extension(name: str, config: NotesConfig) -> str:
    lower = name.lower()
    for ext in config.extensions:
        ext = ext.lower() if ext.startswith(".") else "." + ext.lower()
        if lower.endswith(ext) and len(name) > len(ext):
            return name[: -len(ext)]
    return name


@functools.lru_cache(maxsize=16)
def _pattern(pattern: str, key: str = "session_pattern") -> re.Pattern:
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error as err:
        raise ConfigError(f"notes.{key} is not a valid regular expression: {err}.") from None
    if "session" not in compiled.groupindex:
        raise ConfigError(f"notes.{key} needs a named group (?P<session>...) for the number.")
    return compiled


def _number(m: re.Match | None, config: NotesConfig) -> tuple[Session, int | None]:
    if m is None or m.group("session") is None:
        return None, None
    number = float(m.group("session")) + config.session_offset
    session: Session = int(number) if number.is_integer() else number
    campaign = m.groupdict().get("campaign")
    return session, int(campaign) if campaign else None


def session_from_text(
    front: dict, titles: Sequence[tuple[str, str]], config: NotesConfig
) -> tuple[Session, int | None, str]:
    """``(session, campaign_no, origin)`` for a file whose name has no session number.

    A front matter ``session: 12`` is taken as written (it is explicit, so no offset); else the first title
    (``(text, origin)`` pairs, origin "title" or "subject") in which ``notes.title_session_pattern`` finds a
    number, with ``session_offset`` added as for file names. ``(None, None, "")`` when there is none."""
    value = front.get("session")
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            value = None
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < float("inf"):
        return (int(value) if float(value).is_integer() else float(value)), None, "front matter"
    pattern = _pattern(config.title_session_pattern, "title_session_pattern")
    for text, origin in titles:
        session, campaign_no = _number(pattern.search(text), config) if text else (None, None)
        if session is not None:
            return session, campaign_no, origin
    return None, None, ""


def session_from_name(source: str, config: NotesConfig) -> tuple[Session, int | None]:
    """``(session, campaign_no)`` from the file name, or ``(None, None)`` for non-session pages.

    ``Session 05`` is 5 and ``Session 20.5`` is 20.5 (a float only when not whole); the offset is
    added. When the name does not match, a trailing "(Bonus Session)" or " - subtitle" is dropped
    and the pattern tried again, because real vaults name files that way.
    """
    stem = _strip_extension(PurePosixPath(source).name, config).strip()
    pattern = _pattern(config.session_pattern)
    m = pattern.search(stem)
    if m is None and (short := _NAME_SUFFIX.match(stem)):
        m = pattern.search(short.group(1))
    return _number(m, config)
