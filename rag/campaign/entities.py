"""People, places and things: one entry per entity, however many names the notes give it.

An entity is a ``[[link]]`` target or a reference page (a note outside the session notes: ``NPCs/Brysh.md``).
Its names come from the notes themselves: the page's file name and title, front matter ``aliases:``, and the
shown text of ``[[Page|Alias]]`` links; names that differ only in case are one. A mention is a passage that
links the entity (the notes' own statement that it is there), so the first session of an entity is the first
session note that links it, which a plain scan of the files gives too (tests/test_campaign.py checks that).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from rag.models import Chunk, format_session

MAX_RELATED = 8
SessionKey = tuple[int, float]  # (campaign number or 0, session): "C2 Session 6" is not "C1 Session 6"


def session_key(chunk: Chunk) -> SessionKey | None:
    return None if chunk.session is None else (chunk.campaign_no or 0, chunk.session)


def session_label(key: SessionKey) -> str:
    """How the notes name a session: "Session 6", "C2 Session 6"."""
    number, session = key
    return f"C{number} Session {format_session(session)}" if number else f"Session {format_session(session)}"


def _key(name: str) -> str:
    return " ".join(name.casefold().split())


@dataclass
class Entity:
    name: str
    aliases: list[str] = field(default_factory=list)  # other names, most used first
    kind: str = ""  # the folder of its own page ("NPCs", "Locations"), when it has one
    page: str = ""  # its own note's source, when it has one
    mentions: int = 0  # passages that link it
    sessions: list[SessionKey] = field(default_factory=list)  # ascending, where a session note links it

    @property
    def first_session(self) -> SessionKey | None:
        return self.sessions[0] if self.sessions else None

    @property
    def last_session(self) -> SessionKey | None:
        return self.sessions[-1] if self.sessions else None

    @property
    def first_seen(self) -> str:
        """The first session note that links it, as the notes name it ("C1 Session 3"); "" when none does."""
        return session_label(self.first_session) if self.sessions else ""

    @property
    def last_seen(self) -> str:
        return session_label(self.last_session) if self.sessions else ""


def _own(name: str) -> str:
    """ "Grog's" is Grog."""
    return re.sub(r"['’]s$", "", name.strip())


def is_name(shown: str) -> bool:
    """A link's shown text that names (capitalised: "the Professor"), rather than describes ("her father")."""
    return any(ch.isupper() for ch in shown)


def _page_name(chunk: Chunk) -> str:
    return PurePosixPath(chunk.source).stem


def entity_index(chunks: Iterable[Chunk]) -> list[Entity]:
    """Every entity the passages link or have a page for, most mentioned first (then by name)."""
    chunks = list(chunks)
    canonical: dict[str, str] = {}  # name key → the entity's name
    entities: dict[str, Entity] = {}
    counts: dict[str, Counter] = {}

    def entity(name: str) -> Entity:
        key = _key(name)
        found = canonical.get(key)
        if found is None:
            canonical[key] = found = name
            entities[found] = Entity(found)
            counts[found] = Counter()
        return entities[found]

    for c in chunks:  # pages first: an entity is called by its page's name
        if c.kind != "session" and c.session is None and c.file_type == "markdown":
            e = entity(_page_name(c))
            e.page, e.kind = e.page or c.source, e.kind or c.kind
            own = {_key(_page_name(c)), _key(c.title)}
            for alias in {c.title, *(a for a, owner in c.aliases if _key(owner) in own)}:
                if alias and _key(alias) not in canonical:
                    canonical[_key(alias)] = e.name
                    counts[e.name][alias] += 0
    # A link's shown text names its target ("[[Scanlan Shorthalt|Scanlan]]"), so a link to "Scanlan" is to
    # Scanlan Shorthalt too, unless "Scanlan" has a page of its own or the notes give the name to several.
    owners: dict[str, set[str]] = {}
    for c in chunks:
        for shown, target in c.aliases:
            if is_name(shown):
                owners.setdefault(_key(_own(shown)), set()).add(canonical.get(_key(target), target))
    for key, named in owners.items():
        if key not in canonical and len(named) == 1:
            canonical[key] = entity(next(iter(named))).name
    for c in chunks:
        for shown, target in c.aliases:
            e = entity(target)
            if is_name(shown) and _key(_own(shown)) != _key(e.name):
                counts[e.name][_own(shown)] += 1
        for target in dict.fromkeys(canonical.get(_key(t), t) for t in c.entities):
            e = entity(target)
            e.mentions += 1
            key = session_key(c)
            if key is not None and c.kind == "session" and key not in e.sessions:
                e.sessions.append(key)
    for e in entities.values():
        e.sessions.sort()
        e.aliases = [a for a, _ in counts[e.name].most_common() if _key(a) != _key(e.name)]
    return sorted(entities.values(), key=lambda e: (-e.mentions, e.name.casefold()))


def resolve(entities: Sequence[Entity], name: str) -> Entity | None:
    """The entity called ``name`` (any case), else the most mentioned one that the notes also call so."""
    key = _key(name)
    named = next((e for e in entities if key == _key(e.name)), None)
    return named or next((e for e in entities if key in {_key(a) for a in e.aliases}), None)


def mentions(chunks: Iterable[Chunk], entity: Entity) -> list[Chunk]:
    """The passages that link ``entity``, in story order (session, note, position); pages last."""
    names = {_key(entity.name), *(_key(a) for a in entity.aliases)}
    found = [c for c in chunks if any(_key(t) in names for t in c.entities)]
    return sorted(found, key=lambda c: (c.session is None, session_key(c) or (0, 0), c.source, c.position))


def page_passages(chunks: Iterable[Chunk], entity: Entity) -> list[Chunk]:
    """The entity's own page, in note order (its summary is the first passage)."""
    return sorted((c for c in chunks if entity.page and c.source == entity.page), key=lambda c: c.position)


def related(chunks: Iterable[Chunk], entity: Entity, entities: Sequence[Entity]) -> list[tuple[str, int]]:
    """Entities linked in the same passages as ``entity``, with how many passages they share, most first."""
    names = {_key(entity.name), *(_key(a) for a in entity.aliases)}
    together: Counter = Counter()
    for c in mentions(chunks, entity):
        for target in dict.fromkeys(c.entities):
            other = resolve(entities, target)
            if other is not None and _key(other.name) not in names:
                together[other.name] += 1
    return together.most_common(MAX_RELATED)


@dataclass(frozen=True)
class Cast:
    """A campaign's people, places and things (most mentioned first) with the passages they were read from: what
    the People & places page and ``rag entities`` show, built once for a view and an "as of session" cap."""

    entities: list[Entity]
    passages: list[Chunk]

    def find(self, name: str) -> Entity | None:
        return resolve(self.entities, name)

    def mentions(self, entity: Entity) -> list[Chunk]:
        return mentions(self.passages, entity)

    def page(self, entity: Entity) -> list[Chunk]:
        return page_passages(self.passages, entity)

    def seen_with(self, entity: Entity) -> list[tuple[str, int]]:
        return related(self.passages, entity, self.entities)
