"""One note's text → a ``Note``: front matter, the narrative header, the title and the session number.

Kept apart from the folder walk (``rag.ingest.notes``) because the readers of other formats
(``rag.ingest.formats``) parse the Markdown they produce with it too: both depend on this module, and it
on neither.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from pathlib import PurePosixPath

import yaml

from rag.config import NotesConfig
from rag.errors import ConfigError
from rag.ingest.credentials import credentials_note, hide_credentials
from rag.ingest.markdown import clean_inline, linked_alone
from rag.ingest.secrets import folder_has_word
from rag.models import SESSION_PART, Note, Session, format_session, page_kind

# "date: …", "world date:[[…]]": a key of a front matter block, at the start of its line
_KEY_LINE = re.compile(r"^([A-Za-z_][\w .-]*?)\s*:(?!//)(.*)$")
_H1 = re.compile(r"^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
# "Session 20.5 (Bonus Session)", "Session 12 - The Heist": the number is still the session.
_NAME_SUFFIX = re.compile(r"^(.*?\S)\s*(?:[-–—:]\s+.*|[(\[].*)$")
# "01", "12 - The Heist", "20.5 Bonus" in a sessions folder; never a date ("2023-04-01", "12-05-2023")
_NUMBERED = re.compile(r"^(?P<session>\d{1,3}(?:\.\d+)?)(?=$|[\s_]|\s*[-–—:]\s)")


def parse_note(text: str, source: str, config: NotesConfig, titles: Sequence[tuple[str, str]] = ()) -> Note:
    """Split one file's text into front matter, title and narrative body (see ``Note``).

    ``titles``: more ``(text, origin)`` places a session number may be found in when the file name has
    none, tried after the front matter and the note's own title (a document title, an e-mail subject)."""
    text, hidden = hide_credentials(text.lstrip("\ufeff"))  # before anything reads it
    if "\r" in text and "\n" not in text:  # CR-only line ends (classic Mac editors), else the note is one line
        text = text.replace("\r", "\n")
    lines = [line.rstrip("\r") for line in text.split("\n")]  # a stray CR inside a line is cleaned later
    warnings: list[str] = [credentials_note(hidden)] if hidden else []
    front, start, unread = _front_matter(lines, warnings)
    header_at = find_header(lines, start, config.narrative_header)
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
    stem = strip_extension(stem, config)
    front_title = str(front["title"]).strip() if isinstance(front.get("title"), str | int | float) else ""
    title = title or front_title
    session, campaign_no = session_from_name(source, config)
    session_from = ""
    said, _, _ = session_from_text(front, [], config) if session is not None else (None, None, "")
    if said is not None and said not in (session, session - config.session_offset):  # a renumbered note
        warnings.append(
            f"its front matter says session {format_session(said)}; it is Session {format_session(session)}, "
            "as its file name says"
        )
    if session is None:
        # last, "Session N" anywhere in the file name, as in a title: an Obsidian note's name is its title, and
        # players write it as they like ("2023-04-01 Session 12", "Session 3 The Heist", "session 3 notes")
        candidates = [(title, "title"), (front_title, "title"), *titles, (stem, "")]
        session, campaign_no, session_from = session_from_text(front, candidates, config)
    is_session = session is not None
    if session is not None and session < 0:
        warnings.append(f"session number {session} is below 0 after notes.session_offset; stored without one")
        session = None
    return Note(
        source=source,
        title=title or stem,
        about=_about(front, lines[:start]),
        body="\n".join(lines[body_start:]),
        body_line=body_start + 1,
        session=session,
        campaign_no=campaign_no,
        kind="session" if is_session else page_kind(source),
        front_matter=front,
        warnings=tuple(warnings),
        session_from=session_from if session is not None else "",
        unread_front_matter=unread,
    )


# The front matter keys that hold a note's summary in prose: templates for session notes and wiki pages ask for one
# ("summary: The party was inducted into a conspiracy…", "description: Inn in Vogler"), and Obsidian Publish and
# static-site generators show a page's "description:" as its summary
ABOUT_KEYS = ("summary", "description", "synopsis", "tldr", "tl;dr")


def _about(front: dict, front_lines: list[str]) -> tuple[tuple[int, str], ...]:
    """(file line, text) of each prose value the front matter gives under ``ABOUT_KEYS``, in its order: the player's
    own summary of the evening or the page is text of the note, which search must find and answers may quote."""
    out = []
    for key, value in front.items():
        if key.casefold().strip() in ABOUT_KEYS and isinstance(value, str) and any(ch.isalpha() for ch in value):
            at = next((i for i, line in enumerate(front_lines) if line.split(":", 1)[0].strip() == key), 0)
            out.append((at + 1, " ".join(value.split())))
    return tuple(out)


def _front_matter(lines: list[str], warnings: list[str]) -> tuple[dict, int, tuple[str, ...] | None]:
    """``(front matter, index of the first line after it, the block's lines when it could not be read)``; a block
    never closed, or one that is no mapping of keys, stays in the text; one that is not valid YAML is read key by
    key (``_key_by_key``). The lines of a block not read as YAML go to the GM rules (``Note.unread_front_matter``:
    a GM key named there fails closed); an unclosed block ends at its first blank line."""
    if not lines or lines[0].strip() != "---":
        return {}, 0, None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        warnings.append("front matter starts with '---' on line 1 but is never closed; read it as text")
        blank = next((i for i in range(1, len(lines)) if not lines[i].strip()), len(lines))
        return {}, 0, tuple(lines[1:blank])
    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        warnings.append(f"front matter is not valid YAML ({problem}{where}); its keys were read one by one")
        return _key_by_key(lines[1:end]), end + 1, tuple(lines[1:end])
    if data is None:
        return {}, end + 1, None
    if not isinstance(data, dict):
        warnings.append(f"front matter is a YAML {type(data).__name__}, not a mapping of keys; read it as text")
        return {}, 0, tuple(lines[1:end])
    return {str(k): v for k, v in data.items()}, end + 1, None


def _key_by_key(block: list[str]) -> dict:
    """A closed front matter block that is not valid YAML, read key by key: each line opening a key ("date:
    [[2024-05-10]]", "date:[[2024-08-23]]", with or without its space) with the lines under it, as YAML where that
    part parses, else the key's own line's text. Obsidian shows such a block as properties, never as the note's
    text: kept as text, "type: session world: krynn date: …" was quoted as a passage and a mention."""
    parts: list[tuple[str, list[str]]] = []
    for line in block:
        if (m := _KEY_LINE.match(line)) and not line[:1].isspace():
            parts.append((m.group(1).strip(), [m.group(2)]))
        elif parts:
            parts[-1][1].append(line)
    out: dict = {}
    for key, (first, *rest) in parts:
        try:
            value = yaml.safe_load("\n".join([f"k: {first.strip()}", *rest]))["k"]
        except (yaml.YAMLError, TypeError, KeyError):
            value = first.strip().strip("\"'") or None
        out.setdefault(key, value)
    return out


def find_header(lines: list[str], start: int, header: str) -> int | None:
    want = " ".join(header.split()).casefold()
    if not want:
        return None
    for i in range(start, len(lines)):
        if " ".join(lines[i].split()).casefold() == want:
            return i
    return None


def strip_extension(name: str, config: NotesConfig) -> str:
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
    if part := m.groupdict().get("part"):  # "Session 0A", "Session 12b": a part of that evening, told in order
        number = round(number + (ord(part.casefold()) - ord("a") + 1) * SESSION_PART, 2)
    session: Session = int(number) if number.is_integer() else number
    campaign = m.groupdict().get("campaign")
    return session, int(campaign) if campaign else None


def session_from_text(
    front: dict, titles: Sequence[tuple[str, str]], config: NotesConfig
) -> tuple[Session, int | None, str]:
    """``(session, campaign_no, origin)`` for a file whose name has no session number.

    A front matter ``session: 12`` is taken as written (it is explicit, so no offset); else the first title
    (``(text, origin)`` pairs, origin "title", "subject", or "" for the file name) in which
    ``notes.title_session_pattern`` finds a number, with ``session_offset`` added as for file names.
    ``(None, None, "")`` when there is none."""
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
    and the pattern tried again, because real vaults name files that way; in a sessions folder
    (``in_session_folder``) a name that is a number is one too.
    """
    stem = strip_extension(PurePosixPath(source).name, config).strip()
    pattern = _pattern(config.session_pattern)
    m = pattern.search(stem)
    if m is None and (short := _NAME_SUFFIX.match(stem)):
        m = pattern.search(short.group(1))
    if m is None and in_session_folder(source, config):
        m = _NUMBERED.match(stem)
    return _number(m, config)


def in_session_folder(source: str, config: NotesConfig) -> bool:
    """The note is in a folder kept for session notes ("Sessions", "Session Notes", "Episodes"), where players
    often name each note by its number alone. Folder words are read as the GM-folder rule reads its own."""
    words = tuple(config.session_folder_words)
    return bool(words) and folder_has_word(PurePosixPath(source).parent.parts, words)


def front_matter_text(note: Note, *keys: str) -> str:
    """A Markdown note's front matter value under any of ``keys`` (any case), as written: the timeline shows
    "the 3rd of Mirtul" as is and parses "2023-12-1" itself. E-mail headers are not front matter here."""
    if note.file_type != "markdown":
        return ""
    wanted = {k.casefold() for k in keys}
    value = next((v for k, v in note.front_matter.items() if k.casefold().strip() in wanted), None)
    while isinstance(value, list) and len(value) == 1:  # "date: [[2024-05-10]]" is a list in a list to YAML
        value = value[0]
    if isinstance(value, str):  # a property that links a page ("[[2024-05-10]]", "[[Mirtul 3|the 3rd]]") names it
        value = linked_alone(value) or value
    return str(value).strip() if isinstance(value, str | int | float) or hasattr(value, "isoformat") else ""
