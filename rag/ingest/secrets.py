"""Which text is for the game master only: decided once, at index time, and stored on every passage.

A GM's vault mixes what the table knows with what it must not know yet, and marks the difference the way
real vaults do (docs/SECRETS.md):

- a whole note: it sits in a GM folder ("GM/", "DM Notes/", "Session Prep/", "Secrets/"), or its front matter
  says so (``public: false``, ``gm-only: true``, ``visibility: gm``, ``secret: true``, a ``gm-only`` tag);
- a block inside a note: a ``#gm-only`` / ``#secret`` tag in a bullet, paragraph or heading, or an Obsidian
  callout ``> [!secret]`` (also ``[!gm]``, ``[!dm]``). ``%% … %%`` comments never reach a passage at all.

Each rule answers with its name, which is stored as ``secret_by`` so the Ingest page can show a GM what each
rule marked before the app is shared. The rules err towards hiding: a tagged bullet hides its nested
bullets too, and a tagged heading hides its whole section.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any

from rag.config import SecretsConfig
from rag.models import Note

GM_FOLDER, GM_FRONT_MATTER, GM_TAG, GM_CALLOUT = "GM folder", "front matter", "#gm-only tag", "[!secret] callout"
RULES = (GM_FOLDER, GM_FRONT_MATTER, GM_TAG, GM_CALLOUT)
_TRUE = {True, "true", "yes", "on", "1"}  # True == 1: a YAML 1 counts too
_FALSE = {False, "false", "no", "off", "0"}
_GM_VALUES = {"gm", "dm", "gm-only", "gm_only", "private", "secret", "hidden"}


def note_rule(note: Note, config: SecretsConfig, outer: tuple[str, ...] = ()) -> str:
    """The rule that makes the whole note GM-only, or "" when players may read it. ``outer``: the names of the
    folders above the note's own path that count too (the synced folder's own name: a "Session Prep" folder
    read on its own is still a prep folder)."""
    if gm_folder(PurePosixPath(note.source).parts[:-1], config, outer):
        return GM_FOLDER
    front = note.front_matter
    if config.front_matter and _front_matter_says_gm(front):
        return GM_FRONT_MATTER
    if config.tags and set(_front_matter_tags(front)) & {t.casefold().lstrip("#") for t in config.tags}:
        return GM_TAG
    return ""


def gm_folder(folders: tuple[str, ...], config: SecretsConfig, outer: tuple[str, ...] = ()) -> bool:
    """Whether a note in ``folders`` (below ``outer``) sits in a GM folder, by folder word or by glob. Globs
    are matched against the note's own folder path, and against it with ``outer`` in front."""
    named = (*outer, *folders)
    if not named:
        return False
    if config.folder_words and folder_has_word(named, tuple(config.folder_words)):
        return True
    return _folder_glob(folders, config.folders) or bool(outer and _folder_glob(named, config.folders))


def folder_has_word(folders: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """A folder name holds one of ``words`` as a word, its plural, or joined to another ("GM Notes", "gmnotes",
    "Sessions", "SessionNotes"); also how the parser finds a folder kept for session notes."""
    wanted = _word_tokens(words)
    return bool(wanted) and any(_names_a_word(_tokens(folder), wanted) for folder in folders)


# Words a GM joins to a folder word without a space or a capital ("gmnotes", "dmstuff"): a two-letter word
# like "dm" cannot match the start of any word ("Dmitri"), only the start of one of these.
_COMPANIONS = ("notes", "note", "stuff", "only", "files", "docs", "screen", "plans", "ideas", "info", "lore")
_MIN_SUFFIX = 4  # "sessionprep", "topsecret": a folder word this long may end a joined word ("paradigm" ≠ gm)


def _tokens(name: str) -> list[str]:
    """A folder name's words, lower-cased: split on anything but letters, and between the words of a joined
    name ("SessionPrep" → session, prep; "DMNotes" → dm, notes; "GMs" stays one word)."""
    out: list[str] = []
    for run in re.findall(r"[^\W\d_]+", name):
        out += re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]{2,})", " ", run).casefold().split()
    return out


@lru_cache(maxsize=8)
def _word_tokens(words: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """Each configured word as its own words ("dungeon master" → dungeon, master), lower-cased."""
    return tuple(t for w in words if (t := tuple(_tokens(w))))


def _names_a_word(tokens: list[str], wanted: tuple[tuple[str, ...], ...]) -> bool:
    singles = {w[0] for w in wanted if len(w) == 1}
    for i, token in enumerate(tokens):
        for word in wanted:
            if len(word) > 1:  # several words: consecutive words of the name, the last one maybe plural
                got = tokens[i : i + len(word)]
                if len(got) == len(word) and got[:-1] == list(word[:-1]) and _plural_of(got[-1], word[-1]):
                    return True
            elif _joined_word(token, word[0], singles):
                return True
    return False


def _plural_of(token: str, word: str) -> bool:
    return token in (word, word + "s", word + "es")


def _joined_word(token: str, word: str, words: set[str]) -> bool:
    """The word itself (or its plural), or joined to another word: at the end of a longer word when it is
    long enough ("sessionprep"), at the start when what follows is a companion or another folder word
    ("gmnotes", "dmprep"). "Preparations", "Admin" and "Secretary" are not GM folders."""
    if _plural_of(token, word):
        return True
    if len(word) >= _MIN_SUFFIX and any(token.endswith(form) for form in (word, word + "s")):
        return True
    rest = token[len(word) :] if token.startswith(word) else ""
    joined = {r for r in (rest, rest.removeprefix("s")) if r}  # "gmnotes", "gmsnotes"
    return any(_plural_of(r, other) for r in joined for other in (*_COMPANIONS, *words))


def _folder_glob(folders: tuple[str, ...], globs: list[str]) -> bool:
    """A glob matches the note's folder path or any folder above it ("Campaign/Hidden*", "**/Spoilers")."""
    paths = ["/".join(folders[: i + 1]) for i in range(len(folders))]
    return any(fnmatch.fnmatchcase(p.casefold(), g.strip("/").casefold()) for g in globs for p in paths)


def decide(note: Note, config: SecretsConfig, outer: tuple[str, ...] = ()) -> Note:
    """The note with its visibility decided, and the decisions a player could not guess written into its
    warnings (the Ingest report's note column): a GM folder known only by the name of the folder read, and a
    front-matter block the parser could not read (``Note.unread_front_matter``),
    which is GM-only when it names a GM key or tag: a broken block must not open a note its GM closed."""
    rule, warnings = note_rule(note, config, outer), list(note.warnings)
    if rule == GM_FRONT_MATTER and (unclear := front_matter_mark(note.front_matter)[1]):
        warnings.append(f"GM only: its front matter says '{unclear}', which is not a value Chronicler knows")
    if rule == GM_FOLDER and outer and not gm_folder(PurePosixPath(note.source).parts[:-1], config):
        warnings.append(f"GM only: the folder it was read from ('{outer[-1]}') is named like a GM folder")
    if note.unread_front_matter is not None:  # said after the parser's own warning about the block, which says why
        named = unread_marks(note.unread_front_matter, config)
        if named:
            rule = rule or GM_FRONT_MATTER
            decision = f"it names {', '.join(named)}, so the whole note is GM only"
        else:
            decision = "it names no GM mark, so players can read the note"
        at = next((i for i in range(len(warnings) - 1, -1, -1) if warnings[i].startswith("front matter")), None)
        if at is None:
            warnings.append(f"front matter could not be read: {decision}")
        else:
            warnings[at] += f": {decision}"
    if not rule:  # the same object when nothing changed: a document's parse is cached (rag.ingest.formats)
        return note if warnings == list(note.warnings) else replace(note, warnings=tuple(warnings))
    return replace(note, visibility="gm", secret_by=rule, warnings=tuple(warnings))


GM_KEYS = ("public", "gm-only", "gm_only", "gmonly", "visibility", "secret", "private")
_KEY = re.compile(r"^[ \t]*(?:-[ \t]+)?[\"']?([^\"':#]+?)[\"']?[ \t]*:(.*)$")
_LIST_ITEM = re.compile(r"^[ \t]*-[ \t]*(.*)$")


def unread_marks(lines: Sequence[str], config: SecretsConfig) -> list[str]:
    """The GM keys (``public``, ``gm-only``, ``visibility``…) and GM tags named in a front-matter block that
    could not be read, whatever their values say: unreadable, a value cannot be trusted to open the note."""
    named: list[str] = []
    tags = {t.casefold().lstrip("#") for t in config.tags}
    in_tags = False
    for line in lines:
        key = _KEY.match(line)
        if key:
            name, rest = key.group(1).strip(), key.group(2)
            in_tags = name.casefold() in ("tags", "tag")
            if config.front_matter and name.casefold() in GM_KEYS and f"'{name}'" not in named:
                named.append(f"'{name}'")
            words = rest if in_tags else ""
        else:
            item = _LIST_ITEM.match(line)
            words = item.group(1) if item and in_tags else ""
        for word in re.split(r"[\s,\[\]'\"]+", words):
            word = word.strip().casefold().lstrip("#")
            if word in tags and f"the tag '{word}'" not in named:
                named.append(f"the tag '{word}'")
    return named


# Values of ``visibility`` that open a note; any other (not a GM value either) is not understood, and hides it.
_OPEN_VISIBILITY = {"player", "players", "public", "party", "everyone", "all", "open", "table"}


def _front_matter_says_gm(front: dict[str, Any]) -> bool:
    return front_matter_mark(front)[0]


def front_matter_mark(front: dict[str, Any]) -> tuple[bool, str]:
    """(whether the front matter makes the note GM-only, the "key: value" it did not understand when that is
    why). ``public: false``, ``gm-only: true``, ``visibility: gm`` mark it; ``public: true``, ``secret: no``,
    ``visibility: players`` leave it open; a value it does not know (``public: maybe``, ``visibility: party
    only``) hides the note rather than guess. A list or a mapping as a value says nothing (``secret: [a, b]``)."""
    for key, raw in front.items():
        name = key.casefold()
        if name not in GM_KEYS or raw is None or not isinstance(raw, str | int | float | bool):
            continue
        v = raw.strip().casefold() if isinstance(raw, str) else raw
        if v == "":
            continue
        if name == "public":
            gm, known = v in _FALSE, v in _FALSE or v in _TRUE
        elif name == "visibility":
            gm, known = v in _GM_VALUES, v in _GM_VALUES or v in _OPEN_VISIBILITY
        else:
            gm, known = v in _TRUE, v in _TRUE or v in _FALSE
        if gm:
            return True, ""
        if not known:
            return True, f"{key}: {raw}"
    return False, ""


def _front_matter_tags(front: dict[str, Any]) -> list[str]:
    """``tags: [a, b]``, ``tags: a, b``, ``tags: "#a #b"`` and ``tag:``, lower-cased, without "#"."""
    out: list[str] = []
    for key in ("tags", "tag"):
        value = front.get(key)
        values = value if isinstance(value, list) else [value] if isinstance(value, str) else []
        for v in values:
            if isinstance(v, str):
                out += [t.casefold().lstrip("#") for t in re.split(r"[\s,]+", v) if t.strip("#")]
    return out


@lru_cache(maxsize=8)
def tag_pattern(tags: tuple[str, ...]) -> re.Pattern | None:
    """An inline ``#gm-only`` (or ``#secret/plot``, a nested tag under it); not ``#secret-door``, not a URL's
    ``#anchor``, not a heading's ``#``."""
    names = "|".join(re.escape(t.strip().lstrip("#")) for t in tags if t.strip().lstrip("#"))
    return re.compile(rf"(?<![\w/#&])#(?:{names})(?![\w-])", re.IGNORECASE) if names else None


@lru_cache(maxsize=8)
def callout_pattern(callouts: tuple[str, ...]) -> re.Pattern | None:
    """The first line of a GM callout: ``> [!secret]``, ``> [!GM]- Folded title``, ``> [!secret | wide]`` (its
    look after the bar, which the passages leave out as they do any callout's: ``rag.ingest.blocks``)."""
    names = "|".join(re.escape(c.strip()) for c in callouts if c.strip())
    return re.compile(rf"^[ \t]*>[ \t]*\[!(?:{names})(?:[ \t]*\|[^\]]*)?\]", re.IGNORECASE) if names else None


def has_tag(text: str, config: SecretsConfig) -> bool:
    pattern = tag_pattern(tuple(config.tags))
    return bool(pattern and pattern.search(text))


def opens_callout(line: str, config: SecretsConfig) -> bool:
    pattern = callout_pattern(tuple(config.callouts))
    return bool(pattern and pattern.match(line))
