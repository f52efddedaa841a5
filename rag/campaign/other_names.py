"""When the notes say two names are one person, place or thing, and when a link's words only point at it.

A page's own names are statements: its file name, its title, its front matter ``aliases:`` ("The Professor" for
Locke Hancock). A link's shown text is one only when it *names* the page: ``[[Scanlan Shorthalt|Scanlan]]`` and
``[[Percival de Rolo|Percy]]`` do, but ``[[Percy|Bad News]]`` (his gun), ``[[Keyleth|druid]]`` (what she is) or
``[[Fire Ashari|Keyleth's people]]`` do not. No word list tells them apart; how the notes use the words does:

- the shown text is written like a name (its longer words capitalised): "druid", "her father" and "Jester's
  haversack" describe;
- it shares a name with the page (a word, or a word's first four letters: Percy and Percival, Matt and Matthew):
  a short form of the name is the name;
- otherwise it is a name of the page only if the notes never write the two in one sentence as two things: a
  person's other name stands *instead of* the person ("the Professor teaches them sea shanties"), while what they
  carry, ride or lead stands beside them ("Percy brings out Bad News and fires"). Side by side with only a comma,
  "is", "aka" or brackets between them ("Asmodeus, Lord of the Hells"), or with words that end by naming the second
  ("His name is Esha, but he asks to be called Sha"), the notes say they are the same.

A shown text that links to several pages is nobody's other name, and a page linked under many names it shares
nothing with ("Zadash" as "Archive", "Tri-Spires", "Sparkhammer Smithing") is linked for its parts, not renamed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rag.models import Chunk
from rag.names import sentences

MAX_UNLIKE = 2  # a page linked under more names than this that share nothing with it is linked for its parts
PREFIX = 4  # letters a short form shares with the name it shortens ("Perc-y", "Perc-ival")
_WORD = re.compile(r"[\w'’]+")
# What may stand between two names that the notes give as one ("Asmodeus, the Lord of the Hells",
# 'Percival "Percy" de Rolo', "Vecna (the Whispered One)", "Ozzy, aka Ozymandius", "Locke is the Professor").
_SAME = re.compile(
    r"^[\s,:;()\[\]\"'“”‘’—–-]*(?:(?:also known as|aka|a\.k\.a\.|is|was|called|or)\b)?[\s,:;()\[\]\"'“”‘’—–-]*(?:the\s+)?$"
)
# ...or a clause that ends by giving the second name ("His name is Esha, but he asks to be called Sha", "Sha, whose
# real name is Esha"): the notes name one by the other, whatever they say before.
_NAMED_AS = re.compile(
    r"\b(?:called|named|known as|goes by|go by|aka|a\.k\.a\.|name is|name was)[\s,:\"'“”‘’]*(?:the\s+)?$"
)


def key(name: str) -> str:
    """A name as compared: case-folded, single-spaced, a typographic apostrophe read as a typed one ("Ank’Harel"
    and "Ank'Harel" are one name: phones and word processors curl what a keyboard types straight)."""
    return " ".join(name.casefold().replace("’", "'").split())


def own(name: str) -> str:
    """ "Grog's" is Grog."""
    return re.sub(r"['’]s?$", "", name.strip())


def is_name(shown: str) -> bool:
    """A link's shown text written like a name: every longer word capitalised ("the Professor", "Lady Kima of
    Vord", "Bad News"), not a description that holds one ("Jester's haversack", "A nearby friend")."""
    words = re.findall(r"[^\W\d_][\w'’-]*", own(shown))
    long = [w for w in words if len(w) >= PREFIX]
    return any(w[0].isupper() for w in words) and all(w[0].isupper() for w in long)


def _words(name: str) -> list[str]:
    return [w for w in re.findall(r"[^\W_]+", own(name).casefold()) if len(w) >= 3]


def _short_form(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    return long.startswith(short) if len(short) < PREFIX else short[:PREFIX] == long[:PREFIX]


def shares_a_name(a: str, b: str) -> bool:
    """ "Percy" and "Percival de Rolo", "Vax" and "Vax'ildan", "Lady Kima" and "Kima": a word, or a short form of
    one, in common."""
    return any(_short_form(x, y) for x in _words(a) for y in _words(b))


def linked_for_its_parts(pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (shown, page) pairs, among those that share no name, of pages linked under more than ``MAX_UNLIKE``
    such names: a city linked as its districts, a history as its ages. "Ruby of the Sea" and "the Ruby of the Sea"
    are one name."""
    unlike: dict[str, set[str]] = {}
    for shown, page in pairs:
        unlike.setdefault(key(page), set()).add(" ".join(_WORD.findall(key(shown).removeprefix("the "))))
    return {(key(s), key(p)) for s, p in pairs if len(unlike[key(p)]) > MAX_UNLIKE}


def _pattern(names: Iterable[str]) -> re.Pattern | None:
    alternatives = sorted({key(n) for n in names if n.strip()}, key=len, reverse=True)
    if not alternatives:
        return None
    return re.compile(r"(?<![\w'’])(" + "|".join(re.escape(a) for a in alternatives) + r")(?![\w'’])")


def said_apart(chunks: Sequence[Chunk], pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (shown, page) pairs the notes write in one sentence as two things ("Percy takes a shot with Bad
    News"); pairs side by side as one ("Asmodeus, Lord of the Hells") are not. Reading every sentence takes a
    few tenths of a second on a big campaign, and every page of the app asks again: kept for the same passages."""
    pairs = frozenset((key(s), key(p)) for s, p in pairs)
    if not pairs:
        return set()
    return set(_said_apart(tuple(c.content_hash for c in chunks), pairs, chunks))


_kept: dict[tuple, frozenset] = {}
KEEP = 8  # campaigns × views × "as of session" caps remembered


def _said_apart(stamp: tuple, pairs: frozenset, chunks: Sequence[Chunk]) -> frozenset:
    if (found := _kept.get((stamp, pairs))) is not None:
        return found
    found = frozenset(_read_apart(chunks, pairs))
    if len(_kept) >= KEEP:
        _kept.pop(next(iter(_kept)))
    _kept[(stamp, pairs)] = found
    return found


def _folded_sentences(text: str) -> list[str]:
    """A passage's sentences line by line (``rag.names.sentences``: "Mr. Durst" stays in one), folded the way names are
    compared; cut as written, before folding."""
    return [re.sub(r"[ \t]+", " ", s.casefold()) for s in sentences(text)]


def _read_apart(chunks: Sequence[Chunk], pairs: frozenset) -> set[tuple[str, str]]:
    shown = _pattern(s for s, _ in pairs)
    names = {p: {p} | {w for w in _WORD.findall(p) if len(w) >= PREFIX} for _, p in pairs}  # "Percival" of its page
    owners: dict[str, set[str]] = {}
    for page, ns in names.items():
        for n in ns:
            owners.setdefault(n, set()).add(page)
    pages = _pattern(owners)
    by_shown: dict[str, set[str]] = {}
    for s, p in pairs:
        by_shown.setdefault(s, set()).add(p)
    apart: set[tuple[str, str]] = set()
    for chunk in chunks:
        folded = chunk.text.casefold()
        if not any(s in folded for s in by_shown):  # most passages name none of them: skip them fast
            continue
        for sentence in _folded_sentences(chunk.text):
            found = [(m.group(1), m.span()) for m in shown.finditer(sentence)]
            if not found:
                continue
            named = [(p, m.span()) for m in pages.finditer(sentence) for p in owners[m.group(1)]]
            for s, (s0, s1) in found:
                for p, (p0, p1) in named:
                    if p not in by_shown[s] or (s, p) in apart or (p0 < s1 and s0 < p1):  # one inside the other
                        continue
                    between = sentence[min(s1, p1) : max(s0, p0)]
                    if not (_SAME.match(between) or _NAMED_AS.search(between)):
                        apart.add((s, p))
    return apart
