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


def note_rule(note: Note, config: SecretsConfig) -> str:
    """The rule that makes the whole note GM-only, or "" when players may read it."""
    folders = PurePosixPath(note.source).parts[:-1]
    if folders and (_folder_word(folders, tuple(config.folder_words)) or _folder_glob(folders, config.folders)):
        return GM_FOLDER
    front = note.front_matter
    if config.front_matter and _front_matter_says_gm(front):
        return GM_FRONT_MATTER
    if config.tags and set(_front_matter_tags(front)) & {t.casefold().lstrip("#") for t in config.tags}:
        return GM_TAG
    return ""


def _folder_word(folders: tuple[str, ...], words: tuple[str, ...]) -> bool:
    return bool(words) and any(_word_pattern(words).search(folder) for folder in folders)


@lru_cache(maxsize=8)
def _word_pattern(words: tuple[str, ...]) -> re.Pattern:
    """ "GM", "DM Notes", "Session Prep", "Secrets", "gm_stuff": the word alone, between non-letters."""
    alternatives = "|".join(re.escape(w.strip()) for w in words if w.strip())
    return re.compile(rf"(?<![^\W\d_])(?:{alternatives})s?(?![^\W\d_])", re.IGNORECASE)


def _folder_glob(folders: tuple[str, ...], globs: list[str]) -> bool:
    """A glob matches the note's folder path or any folder above it ("Campaign/Hidden*", "**/Spoilers")."""
    paths = ["/".join(folders[: i + 1]) for i in range(len(folders))]
    return any(fnmatch.fnmatchcase(p.casefold(), g.strip("/").casefold()) for g in globs for p in paths)


def _front_matter_says_gm(front: dict[str, Any]) -> bool:
    def value(*keys: str) -> Any:
        for key in keys:
            for name, v in front.items():
                if name.casefold() == key:
                    return v.strip().casefold() if isinstance(v, str) else v
        return None

    def among(v: Any, options: set) -> bool:  # a list or a mapping as a value says nothing here
        return isinstance(v, str | int | float | bool) and v in options

    return (
        among(value("public"), _FALSE)
        or among(value("gm-only", "gm_only", "gmonly", "secret", "private"), _TRUE)
        or among(value("visibility"), _GM_VALUES)
    )


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
    """The first line of a GM callout: ``> [!secret]``, ``> [!GM]- Folded title``."""
    names = "|".join(re.escape(c.strip()) for c in callouts if c.strip())
    return re.compile(rf"^[ \t]*>[ \t]*\[!(?:{names})\]", re.IGNORECASE) if names else None


def has_tag(text: str, config: SecretsConfig) -> bool:
    pattern = tag_pattern(tuple(config.tags))
    return bool(pattern and pattern.search(text))


def opens_callout(line: str, config: SecretsConfig) -> bool:
    pattern = callout_pattern(tuple(config.callouts))
    return bool(pattern and pattern.match(line))
