"""People, places and things: one entry per entity, however many names the notes give it.

An entity is a ``[[link]]`` target or a reference page (a note outside the session notes: ``NPCs/Brysh.md``).
Its names are joined only where the notes say they are one (``rag.campaign.other_names``): the page's file name
and title, front matter ``aliases:``, and the shown text of ``[[Page|Alias]]`` links that name the page ("Percy"
for Percival de Rolo) rather than a thing of theirs ("Bad News", his gun); names that differ only in case are one.
A mention is a passage that links the entity (the notes' own statement that it is there) or writes one of its names
(``rag.campaign.mentions``: most players link a name once in a note, or never), so the first session of an entity is
the first session note that links or names it. Every page that lists people (the Campaign page, People & places, "Seen
with") reads this one index through ``Pipeline.cast``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from rag.campaign.mentions import Naming
from rag.campaign.other_names import is_name, linked_for_its_parts, own, said_apart, shares_a_name
from rag.campaign.other_names import key as _key
from rag.campaign.spelling import misspellings
from rag.campaign.unlinked import unlinked_names
from rag.models import Chunk, format_session, page_kind
from rag.names import is_everyday_word

MAX_RELATED = 8
MOSTLY = 4  # a shown name names one page when it links there at least this many times as often as elsewhere
SessionKey = tuple[int, float]  # (campaign number or 0, session): "C2 Session 6" is not "C1 Session 6"


def session_key(chunk: Chunk) -> SessionKey | None:
    return None if chunk.session is None else (chunk.campaign_no or 0, chunk.session)


def session_label(key: SessionKey) -> str:
    """How the notes name a session: "Session 6", "C2 Session 6"."""
    number, session = key
    return f"C{number} Session {format_session(session)}" if number else f"Session {format_session(session)}"


@dataclass
class Entity:
    name: str
    aliases: list[str] = field(default_factory=list)  # other names, most used first
    kind: str = ""  # the folder of its own page ("NPCs", "Locations"), when it has one
    page: str = ""  # its own note's source, when it has one
    sessions: list[SessionKey] = field(default_factory=list)  # ascending, where a session note links or names it
    passages: set[str] = field(default_factory=set, repr=False)  # the ids of the passages that link or name it
    unlinked: bool = False  # named in the notes' words only: no link, no page (``rag.campaign.unlinked``)

    @property
    def mentions(self) -> int:
        """How many passages link or name it."""
        return len(self.passages)

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


_STATUS_MARK = re.compile(r"^[^\w\"'(\[]+(?=\w)")  # "✓ ", "✗ ", "⭐ " before a quest's or a place's name


FRONT_PAGES = frozenset({"readme", "index"})  # the names a folder's own front page goes by, here and on the web


def _page_name(chunk: Chunk) -> str:
    """The page's name: its file's, or for a folder's own page ("Locations/Cities/Helm's Hold/Index.md", a folder
    note) its folder's."""
    path = PurePosixPath(chunk.source)
    return path.parent.name if path.stem.casefold() in FRONT_PAGES and path.parent.name else path.stem


def _shown_name(name: str) -> str:
    """A page's name as People & places shows it: without the mark a note-taker puts before it to track a quest
    ("✓ Find Leosin Erlanthar", "✗ The Greenest Mill"), which is no part of the name."""
    return _STATUS_MARK.sub("", name) or name


def _blank_page(source: str) -> Chunk:
    """A page with nothing written in it, as a passage saying its name: its name and folder are all it says."""
    name = PurePosixPath(source).stem
    return Chunk("blank", source, 0, name, name, kind=page_kind(source), title=name, id=f"blank:{source}")


def _is_page(chunk: Chunk) -> bool:
    """A note about one person, place or thing of the story. A README or index page at the vault's top ("This is a
    vault for the notes taken during Nova's sessions"), or in a folder of a kind ("Locations/Index.md", the list of
    places), is about the notes, and no one's entry; deeper, it is its folder's own page ("Helm's Hold")."""
    path = PurePosixPath(chunk.source)
    list_page = path.stem.casefold() in FRONT_PAGES and len(path.parts) <= 2
    return chunk.kind != "session" and chunk.session is None and chunk.file_type == "markdown" and not list_page


class _Names:
    """Names joined into entities (a union-find over their keys), and how often the notes use each as written."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.written: dict[str, Counter] = {}  # key → how each spelling of it is used

    def add(self, name: str, uses: int = 1) -> str:
        k = _key(name)
        self.parent.setdefault(k, k)
        self.written.setdefault(k, Counter())[name.strip()] += uses
        return k

    def root(self, k: str) -> str:
        while self.parent[k] != k:
            self.parent[k] = self.parent[self.parent[k]]
            k = self.parent[k]
        return k

    def join(self, a: str, b: str) -> None:
        self.parent[self.root(a)] = self.root(b)

    def spelling(self, k: str) -> str:
        return self.written[k].most_common(1)[0][0]


def _mostly(targets: Counter) -> str | None:
    """The page a shown name links to, when it is (nearly) always the same one: "Percy" 41 times for Percival de
    Rolo and once for a misspelt "Percy de Rolo"; a name given to several pages alike is nobody's."""
    (top, n), *rest = targets.most_common()
    return top if n >= MOSTLY * sum(m for _, m in rest) else None


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _numbered_like(name: str) -> str:
    """A name with its numbers as "#": "Session 49" and "Session 25" are named alike, "C1 Session 3" another way."""
    return _NUMBER.sub("#", _key(name))


def _without_session_links(chunks: list[Chunk]) -> list[Chunk]:
    """The passages without their links to a session note ("[[Session 25]]", by its file name or title): such a link
    names an evening of the story, not one of its people, places or things (the timeline lists the sessions). A
    link named like the session notes with a number none has ("[[Session 49]]", a "next session" link written
    before that evening's note) names an evening too."""
    names = {
        name
        for c in chunks
        if c.session is not None and c.file_type == "markdown"
        for name in (_page_name(c), c.title)
        if name
    }
    sessions = {_key(name) for name in names}
    shapes = {_numbered_like(name) for name in names if _NUMBER.search(name)}

    def is_session(target: str) -> bool:
        return _key(target) in sessions or _numbered_like(target) in shapes  # shapes all hold a "#"

    return [
        replace(
            c,
            entities=tuple(t for t in c.entities if not is_session(t)),
            aliases=tuple((s, t) for s, t in c.aliases if not is_session(t)),
        )
        if any(is_session(t) for t in c.entities)
        else c
        for c in chunks
    ]


def _join_misspelt(names: _Names, pages: dict[str, Chunk], linked: set[str]) -> None:
    """One entity for a name and its misspelling (``rag.campaign.spelling.misspelt``): notes typed at the table
    link "[[Koylan]]" six times and "[[Kolyan]]" once for one man, "[[Valaki]]" for the town whose page is
    "Vallaki". Only the names pages and links are given by (``linked``), never a link's shown words: "Ashley" and
    "Ashly" are two people's first names. Two names that each have a page stay two: the player wrote a note for
    each."""
    for a, b in misspellings(linked):
        ra, rb = names.root(a), names.root(b)
        if ra == rb:
            continue
        paged = [r for r in (ra, rb) if any(names.root(p) == r for p in pages)]
        if len(paged) == 2:
            continue
        if rb in paged:
            names.join(ra, rb)
        else:
            names.join(rb, ra)


# "Harshnag the Grimm", "Lady Kima of Vord", "Durin Son of Ingras" (a patronymic)
_EPITHET = re.compile(r" (?:the|of|von|van|de|du|del|da|di|(?:son|daughter|child) of) \S", re.I)


def _a_topic(target: str) -> bool:
    """A link target written in lower case whose every word is one of the language: a topic, never a name."""
    words = re.findall(r"[^\W\d_]+", target)
    return bool(words) and target == target.lower() and all(is_everyday_word(w) for w in words)


def titles_of(names: Iterable[str], texts: Sequence[str]) -> set[str]:
    """The words that begin two or more of the campaign's names (``key`` forms) and that the notes also write in
    lower case, as a word of the language: a title or a rank ("Burgomaster Ismark Koylanovich", "Burgomaster
    Dimitri Kreskov", "the burgomaster"). Such a word alone names none of them: a link
    "[[Burgomaster Vargas|Burgomaster]]" says whom that sentence means, and read as his other name every
    burgomaster's scene was counted as his (vault-cos-bahodge). A name that begins several ("Velakki Orphanage",
    "Desmond Altham") is never written in lower case, and stays a name."""
    begun: dict[str, set[str]] = {}
    for name in set(names):
        words = name.split()
        if len(words) > 1:
            begun.setdefault(words[0], set()).add(name)
    shared = {head for head, named in begun.items() if len(named) > 1 and head.isalpha()}
    said = "\n".join(texts)
    return {head for head in shared if re.search(rf"(?<![\w'’-]){head}(?![\w'’-])", said)}


def _join_short_names(names: _Names, pages: dict[str, Chunk], linked: set[str]) -> None:
    """A linked name with no page of its own joins the one page whose name, or other name, is it with an epithet or
    a title after ("[[Harshnag]]" and the page "Harshnag the Grimm"; "[[Silvanas]]" and a page whose ``aliases:``
    say "Silvanas the Elf"): players link the short name and title the page in full. Only a name continued by
    "the", "of", "von"…: "Waterdeep Harbor" is no other name of Waterdeep."""
    paged = {names.root(page) for page in pages}
    named = [k for k in names.parent if names.root(k) in paged]  # the pages' names and other names
    for short in linked - pages.keys():
        longer = {names.root(k) for k in named if k.startswith(short) and _EPITHET.match(k, len(short))}
        if len(longer) == 1 and names.root(short) not in longer:
            names.join(short, *longer)


# 'Ridomir "Cudgel" Ironsmile', 'Percival "Percy" de Rolo': a name holding another in quotes is what they are called
_NICKNAME = re.compile(r"[\"“”]([^\"“”]+)[\"“”]")


def _join_nicknames(names: _Names) -> None:
    """A name the notes write alone that one other name holds in quotes is that one's nickname: "[[Cudgel]]" and
    '[[Ridomir "Cudgel" Ironsmile]]' are one person."""
    called: dict[str, set[str]] = {}
    for k in list(names.parent):
        for m in _NICKNAME.finditer(k):
            called.setdefault(_key(m.group(1)), set()).add(k)
    for nickname, holders in called.items():
        if nickname in names.parent and len(holders) == 1:
            (holder,) = holders
            if names.root(nickname) != names.root(holder):
                names.join(nickname, holder)


def entity_index(chunks: Iterable[Chunk], blank_pages: Iterable[str] = ()) -> list[Entity]:
    """Every entity the passages link or have a page for, and those they only name (``rag.campaign.unlinked``),
    most mentioned first (then by name). Names are joined
    only where the notes say they are one (``rag.campaign.other_names``): a page's own names, and link texts that
    name their page. ``blank_pages``: the notes (by source) with nothing written in them yet, which are pages too
    (``rag.ingest.campaign_files.save_blank_pages``)."""
    chunks = _without_session_links(list(chunks))
    chunks += [_blank_page(source) for source in blank_pages]
    names = _Names()
    pages: dict[str, Chunk] = {}  # key of a page's name → its first passage
    page_passages: dict[str, list[Chunk]] = {}
    for c in chunks:  # pages first: an entity is called by its page's name
        if _is_page(c):
            k = names.add(_page_name(c), 0)
            pages.setdefault(k, c)
            page_passages.setdefault(c.source, []).append(c)
    # a link to no page, written in lower case in words of the language ("[[dragon]]"), links a topic, as a link's
    # shown text written so describes (``is_name``): counted by its word, "dragon" was the fourth most mentioned
    topics = {t for t in {t for c in chunks for t in c.entities} if _key(t) not in pages and _a_topic(t)}
    if topics:
        chunks = [
            replace(
                c,
                entities=tuple(t for t in c.entities if t not in topics),
                aliases=tuple((shown, t) for shown, t in c.aliases if t not in topics),
            )
            for c in chunks
        ]
    # a title several pages share is the heading of the template they were made from ("# Template - Individual"
    # atop a vault's Ogre, Bog Hag and party pages), no name of any of them
    titles = Counter(_key(p[0].title) for p in page_passages.values() if p[0].title)
    for passages in page_passages.values():
        page = names.add(_page_name(passages[0]), 0)
        title = _key(passages[0].title)
        own_names = {page, title}
        if passages[0].title and title not in FRONT_PAGES and titles[title] == 1:  # a folder note titled "Index"
            names.join(names.add(passages[0].title, 0), page)
        # front matter aliases are given to every passage of the page; a link inside it, to its own passage
        stated = set.intersection(*({(s, t) for s, t in c.aliases if _key(t) in own_names} for c in passages))
        for shown, _ in stated:
            names.join(names.add(shown, 0), page)
    # A link's shown text may name its page ("[[Scanlan Shorthalt|Scanlan]]"): one name for one page only, and
    # never a title that begins several of the campaign's names (``titles_of``)
    shared = titles_of([*pages, *(_key(t) for c in chunks for t in c.entities)], [c.text for c in chunks])
    links: dict[str, Counter] = {}
    said: dict[str, Counter] = {}  # a shown name's key → how it is written, and how often
    for c in chunks:
        for target in c.entities:
            names.add(target)
        for shown, target in c.aliases:
            if is_name(shown) and (s := _key(own(shown))) != _key(target) and s not in shared:
                said.setdefault(s, Counter())[own(shown)] += 1
                links.setdefault(s, Counter())[target] += 1
    single = {s: page for s, targets in links.items() if s not in pages and (page := _mostly(targets))}
    written = {s: said[s].most_common(1)[0][0] for s in single}
    unsure = [(written[s], t) for s, t in single.items() if not shares_a_name(written[s], t)]
    apart = said_apart(chunks, unsure) | linked_for_its_parts(unsure)
    for s, target in single.items():
        if (s, _key(target)) not in apart:
            for spelling, uses in said[s].items():
                names.add(spelling, uses)
            names.join(s, _key(target))
    linked_names = {_key(t) for c in chunks for t in c.entities}
    _join_short_names(names, pages, linked_names)
    _join_nicknames(names)
    _join_misspelt(names, pages, linked_names | set(pages))
    # one entity per group of names, called by its page, else by the name the notes link under other names most
    linked_as: Counter = Counter(  # links to it under another of its names
        _key(t)
        for c in chunks
        for shown, t in c.aliases
        if (s := _key(own(shown))) != _key(t) and s in names.parent and names.root(s) == names.root(_key(t))
    )
    groups: dict[str, list[str]] = {}
    for k in names.parent:
        groups.setdefault(names.root(k), []).append(k)
    entities: dict[str, Entity] = {}
    for root, keys in groups.items():
        own_page = [k for k in keys if k in pages]
        best = min(
            keys,
            key=lambda k: (k not in own_page, -linked_as[k], -len(k.split()), -names.written[k].total(), k),
        )
        e = Entity(_shown_name(names.spelling(best) if best not in pages else _page_name(pages[best])))
        if best in pages:
            e.page, e.kind = pages[best].source, pages[best].kind
        used = Counter({names.spelling(k): names.written[k].total() for k in keys if k != best})
        e.aliases = [a for a, _ in sorted(used.items(), key=lambda kv: (-kv[1], kv[0].casefold()))]
        entities[root] = e
    naming = Naming({root: [e.name, *e.aliases] for root, e in entities.items()})
    # the names no link nor page gives, read apart: their words take no short name from a known entity's
    unlinked = {
        f"unlinked:{_key(n[0])}": Entity(n[0], n[1:], unlinked=True)
        for n in unlinked_names(chunks, naming, names.parent)
    }
    entities |= unlinked
    unlinked_naming = Naming({root: [e.name, *e.aliases] for root, e in unlinked.items()})
    for c in chunks:
        linked = (names.root(_key(t)) for t in c.entities)
        named = (root for root in naming.named(c.text) if c.source != entities[root].page)
        for root in dict.fromkeys((*linked, *named, *unlinked_naming.named(c.text))):
            e = entities[root]
            e.passages.add(c.id)
            key = session_key(c)
            if key is not None and c.kind == "session" and key not in e.sessions:
                e.sessions.append(key)
    for e in entities.values():
        e.sessions.sort()
    return sorted(entities.values(), key=lambda e: (-e.mentions, e.name.casefold()))


def resolve(entities: Sequence[Entity], name: str) -> Entity | None:
    """The entity called ``name`` (any case), else the most mentioned one that the notes also call so, else the
    one entity whose name holds it as whole words ("Arlette" for Mme Arlette, where the notes never write her
    name without its title); several such are none of them."""
    key = _key(name)
    named = next((e for e in entities if key == _key(e.name)), None)
    named = named or next((e for e in entities if key in {_key(a) for a in e.aliases}), None)
    if named is not None or not key:
        return named
    words = re.compile(rf"(?<![\w'’]){re.escape(key)}(?![\w'’])")
    holding = [e for e in entities if any(words.search(_key(n)) for n in (e.name, *e.aliases))]
    return holding[0] if len(holding) == 1 else None


def mentions(chunks: Iterable[Chunk], entity: Entity) -> list[Chunk]:
    """The passages that link or name ``entity`` (as ``entity_index`` read them), in story order (session, note,
    position); pages last."""
    found = [c for c in chunks if c.id in entity.passages]
    return sorted(found, key=lambda c: (c.session is None, session_key(c) or (0, 0), c.source, c.position))


def page_passages(chunks: Iterable[Chunk], entity: Entity) -> list[Chunk]:
    """The entity's own page, in note order (its summary is the first passage)."""
    return sorted((c for c in chunks if entity.page and c.source == entity.page), key=lambda c: c.position)


def related(chunks: Iterable[Chunk], entity: Entity, entities: Sequence[Entity]) -> list[tuple[str, int]]:
    """Entities mentioned in the same passages as ``entity``, with how many passages they share, most first."""
    together: Counter = Counter()
    for c in mentions(chunks, entity):
        together.update(other.name for other in entities if other is not entity and c.id in other.passages)
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
