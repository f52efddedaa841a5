"""Offline alias expansion from the notes' own ``[[Page|Alias]]`` links.

Players write "the Keeper" in one session and "Osiris" in another; a small embedding model doesn't know
they are one person, and BM25 can't. The vault already says so, so a question that names any one of an
entity's names also searches the others.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from rag.campaign.capitals import Capitals
from rag.campaign.other_names import key as _key
from rag.campaign.spelling import Spellings
from rag.campaign.voice import we_per_thousand
from rag.files import INDEX_HINT, write_text
from rag.models import Chunk
from rag.names import norm_words

MIN_NAME = 3  # shorter "aliases" ("he", "Vi") match too much ordinary text
MAX_NAMES = 6  # per entity: a page linked under dozens of spellings would drown the question
FORMAT = 3  # how the table is read from the notes: a table saved by another version is rebuilt, not trusted


@dataclass
class AliasTable:
    """entity → every name the notes use for it (the page name first), the notes' spellings of names, and how
    often they say "we" (``rag.campaign.voice``: whether they tell of the party in the third person), and which
    words they write as names (``rag.campaign.capitals``: how to read a question typed without capitals)."""

    names: dict[str, list[str]] = field(default_factory=dict)
    spellings: Spellings = field(default_factory=lambda: Spellings({}))
    we_per_thousand: float = 0.0
    cased: dict[str, bool] = field(default_factory=dict)
    _pattern: re.Pattern | None = field(default=None, repr=False)
    _owner: dict[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def from_chunks(cls, chunks: Iterable[Chunk]) -> AliasTable:
        chunks = list(chunks)
        counts: dict[str, dict[str, int]] = {}
        for chunk in chunks:
            for entity in chunk.entities:
                counts.setdefault(entity, {}).setdefault(entity, 0)
            for shown, entity in chunk.aliases:
                per = counts.setdefault(entity, {entity: 0})
                per[shown] = per.get(shown, 0) + 1
        capitals = Capitals.count(chunk.text for chunk in chunks)
        table = cls(
            spellings=Spellings.from_capitals(capitals),
            we_per_thousand=we_per_thousand(chunk.text for chunk in chunks),
            cased=capitals.as_written(),
        )
        for entity, shown in counts.items():
            seen, ordered = {_key(entity)}, [entity]
            for name, _ in sorted(shown.items(), key=lambda kv: -kv[1]):
                if len(name) >= MIN_NAME and _key(name) not in seen:
                    seen.add(_key(name))
                    ordered.append(name)
            if len(ordered) > 1:
                table.names[entity] = ordered[:MAX_NAMES]
        table._compile()
        return table

    @classmethod
    def from_names(
        cls,
        names: dict[str, list[str]],
        spellings: dict[str, int] | None = None,
        we_per_thousand: float = 0.0,
        cased: dict[str, bool] | None = None,
    ) -> AliasTable:
        table = cls(
            names={k: list(v) for k, v in names.items()},
            spellings=Spellings(spellings or {}),
            we_per_thousand=we_per_thousand,
            cased=dict(cased or {}),
        )
        table._compile()
        return table

    @classmethod
    def load(cls, path: Path, count: int) -> AliasTable | None:
        """The table saved for a collection of ``count`` passages, or None (missing, stale, unreadable, or saved by
        a version that read the notes otherwise, ``FORMAT``: then it is rebuilt)."""
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            if saved.get("count") == count and saved.get("format") == FORMAT:
                return cls.from_names(
                    saved["names"], saved["spellings"], float(saved["we_per_thousand"]), saved["cased"]
                )
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return None

    def save(self, path: Path, count: int) -> None:
        saved = {
            "format": FORMAT,
            "count": count,
            "names": self.names,
            "spellings": self.spellings.names,
            "we_per_thousand": self.we_per_thousand,
            "cased": self.cased,
        }
        write_text(path, json.dumps(saved, ensure_ascii=False), INDEX_HINT)

    def _compile(self) -> None:
        self._owner = {}
        for entity, names in self.names.items():
            for name in names:
                self._owner.setdefault(_key(name), entity)
        if not self._owner:
            self._pattern = None
            return
        alternatives = sorted(self._owner, key=len, reverse=True)  # longest name wins
        self._pattern = re.compile(r"(?<!\w)(" + "|".join(re.escape(a) for a in alternatives) + r")(?!\w)")

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word of every name the table knows the notes to write (pages, aliases, capitalised words),
        case-folded: what ``rag.search.unknown_names`` looks a question's names up in first."""
        said = [n for names in self.names.values() for n in names] + list(self.spellings.names)
        return frozenset(w for name in said for w in norm_words(name))

    def mentions(self, text: str) -> dict[str, str]:
        """Names the table knows, found in a search text (a question or a phrasing of it) → their entity."""
        if self._pattern is None:
            return {}
        folded = _key(text)
        return {m.group(1): self._owner[m.group(1)] for m in self._pattern.finditer(folded)}

    def expand(self, text: str) -> list[str]:
        """The other names of every entity a search text names, in table order, without repeats."""
        found = self.mentions(text)
        out: list[str] = []
        said = set(found)
        for entity in dict.fromkeys(found.values()):
            for name in self.names[entity]:
                if _key(name) not in said:
                    said.add(_key(name))
                    out.append(name)
        return out
