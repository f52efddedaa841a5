"""Names spelt two ways: "Ellias" in one session, "Elias" in the next.

Players type their notes fast, at the table, and names from a published adventure are hard to spell: the same
person is "Ellias" five times and "Elias" six times in one real vault, and a question may use either (or a
third spelling). Keyword search matches words exactly, so a question naming "Ellias" never finds the passage
that says what "Elias" had to do. This table knows the names the notes use (words they nearly always
capitalise) and, for a name in the question, offers the notes' other spellings one letter away (a letter
added, dropped, changed or two swapped), which the keyword stages then search too. The People & places page
reads the same rule (``misspelt``) to list "[[Koylan]]" and "[[Kolyan]]" as one man.

Only names: ordinary words one letter apart are usually different words ("lift" / "left", "Sending" /
"Mending"), names one letter apart in one campaign's notes are nearly always one name misspelt. Not when they
differ only at the end: that is a plural or another word ("Knight" / "Knights", "Princess" / "Princes", "Blood" /
"Bloom"), and keyword search already folds plurals. Nor in their first letter: players misspell a name's middle,
and a rhyme is another name ("Haruki" / "Karuki", "Zinna" and her owl "Dinna").

Names copied from a setting keep its accents and long vowels ("Jurō", "Shakäste"), which a player's keyboard does
not have: a name typed without them is the notes' name, however short.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property

from rag.campaign.capitals import Capitals, cased_words
from rag.names import STOPWORDS, is_a_word, is_noun, one_letter_away, typed_without_capitals, without_marks

_NEXT_WORD = re.compile(r"\s+([a-z][\w'’-]*)")  # the word after a name: what "Haffyds" may own
MIN_LETTERS = 5  # shorter names one letter apart are often two names ("Dane", "Dana")
_VOWELS = re.compile(r"[aeiouy]+")


def _beats(word: str) -> int:
    """How many vowel sounds a word has: its runs of vowels ("Vallaki" 3, "Haskel" 2)."""
    return len(_VOWELS.findall(word))


def _ends_apart(a: str, b: str) -> bool:
    """Two words one letter apart only at their end: "Knight"/"Knights", "Blood"/"Bloom"; not a last letter typed
    twice, the commonest slip ("Harshnagg" for the notes' Harshnag, vault-thread-pullers walk)."""
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    if len(longer) == len(shorter) + 1 and longer[:-1] == shorter and longer[-1] == shorter[-1]:
        return False
    return a.startswith(b) or b.startswith(a) or a[:-1] == b[:-1]


class Spellings:
    """The notes' names and how often each is written; ``variants`` gives a question's other spellings."""

    def __init__(self, names: dict[str, int]):
        self.names = dict(names)

    @classmethod
    def from_capitals(cls, capitals: Capitals) -> Spellings:
        """The notes' names (``Capitals.names``) of ``MIN_LETTERS`` or more, and shorter ones with marks over their
        letters: "Juro" typed for "Jurō" is no guess (``marked``), "Dane" for "Dana" may be."""
        return cls({w: n for w, n in capitals.names().items() if len(w) >= MIN_LETTERS or not w.isascii()})

    def variants(self, text: str) -> list[str]:
        """The notes' other spellings of the names in a search text (a question or a phrasing of it), most
        written first (``spelt_as``)."""
        return list(self.spelt_as(text).values())

    def spelt_as(self, text: str) -> dict[str, str]:
        """Each name of a search text that the notes also spell another way → that spelling, the most written. A
        word counts as a name when the notes use it as one or the text capitalises it past its first word. A name
        one letter from one the notes write (``misspelt``) maps to that one; a name the notes never write, and no
        word of the dictionary, to the notes' name that sounds the same (``sounds_alike``); a name the notes write
        only with other marks over its letters, to theirs ("Juro" → "Jurō", ``marked``, however short). A text
        typed without capitals, as a chat often is ("who is clarrota?", ``rag.names.typed_without_capitals``), shows
        its names only by being no word of the dictionary."""
        out: dict[str, str] = {}
        said = {m.group(1).casefold() for m in cased_words(text)}
        uncapitalised = typed_without_capitals(text)
        for i, m in enumerate(cased_words(text)):
            word = m.group(1)
            key = word.casefold()
            if key not in self.names and (marked := self.marked(key)) and marked not in said:
                said.add(marked)  # "Juro" for the notes' "Jurō": the same letters, whatever the word's length
                out[word] = marked.capitalize()
                continue
            if len(key) < MIN_LETTERS or key in STOPWORDS:
                continue
            if key not in self.names and not (word[0].isupper() and i > 0 or uncapitalised and not is_a_word(key)):
                continue
            if key not in self.names and (owner := self.owner(key, text[m.end() :])):
                said.add(owner)  # "Who is Haffyds father?": Haffyd's, its apostrophe not typed
                out[word] = f"{owner.capitalize()}'s"
                continue
            close = [w for w in one_letter_away(key) if w in self.names and w not in said and misspelt(key, w)]
            if key not in self.names:  # which the notes write most, of the names it may be
                close += [w for w in self.sounds_alike(key) if w not in said and w not in close]
            if close:  # one spelling a word: a second one would search another name
                other = min(close, key=lambda w: (-self.names[w], w))
                said.add(other)
                out[word] = other.capitalize()
        return out

    def owner(self, key: str, after: str) -> str | None:
        """The notes' name a word is when it is that name with an "s" typed on, as a possessive without its
        apostrophe, before the thing owned: "Haffyds father" is Haffyd's (a chat is typed fast; read as typed, the
        answer named someone else's father), "the Cimbers are" is no one's."""
        name = key.removesuffix("s")
        if name == key or name not in self.names or is_a_word(key):  # "Princess" is no Princes' own
            return None
        owned = _NEXT_WORD.match(after)
        return name if owned and is_noun(owned.group(1)) else None

    def marked(self, key: str) -> str | None:
        """The notes' name that is ``key`` with other marks over its letters (``rag.names.without_marks``): "jurō" for
        "juro", "juro" for "jurō", the most written when several are; None when there is none."""
        same = [w for w in self._by_letters.get(without_marks(key), ()) if w != key]
        return min(same, key=lambda w: (-self.names[w], w)) if same else None

    @cached_property
    def _by_letters(self) -> dict[str, list[str]]:
        """The notes' names by their letters without marks: derived on the first question that needs it."""
        letters: dict[str, list[str]] = {}
        for name in self.names:
            letters.setdefault(without_marks(name), []).append(name)
        return letters

    def sounds_alike(self, key: str) -> list[str]:
        """The notes' names that sound like ``key`` when ``key`` is no word of the dictionary: the same consonants
        (their Metaphone key, jellyfish's), as many vowel sounds (``_beats``) and the same first letter. Players
        write a name they heard at the table the way it sounds ("Vallaki" for the notes' "Velakki", "Haskell" for
        "Haskel") and keep its first letter; Metaphone leaves vowels out, so "Monedo" and "Minda" share a key but
        not their beats."""
        from jellyfish import metaphone

        if is_a_word(key):
            return []
        beats = _beats(key)
        return [w for w in self._by_sound.get(metaphone(key), []) if w[0] == key[0] and w != key and _beats(w) == beats]

    @cached_property
    def _by_sound(self) -> dict[str, list[str]]:
        """The notes' names that are no word of the dictionary, by their Metaphone key: derived from ``names`` on the
        first question that needs it (CRD3's 1,723 names: 14 ms), the same for every question after."""
        from jellyfish import metaphone

        sounds: dict[str, list[str]] = {}
        for name in self.names:
            if len(name) >= MIN_LETTERS and not is_a_word(name):
                sounds.setdefault(metaphone(name), []).append(name)
        return sounds


def _edit_at(a: str, b: str) -> int | None:
    """Where one edit turns ``a`` into ``b`` (a letter changed, added or dropped, or two neighbours swapped), as
    a position in the longer of the two; None when they are not one edit apart."""
    if len(a) < len(b):
        a, b = b, a
    if len(a) - len(b) > 1 or a == b:
        return None
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(b))
    if len(a) > len(b):
        return at if a[at + 1 :] == b[at:] else None
    if a[at + 1 :] == b[at + 1 :]:
        return at
    swapped = at + 1 < len(a) and a[at] == b[at + 1] and a[at + 1] == b[at] and a[at + 2 :] == b[at + 2 :]
    return at if swapped else None


def misspelt(a: str, b: str) -> bool:
    """Two names of the notes (folded, ``rag.campaign.other_names.key``) that are one name misspelt: one edit apart
    in a word of ``MIN_LETTERS`` letters or more, of letters only. Not when the edit is the word's first letter: a
    rhyme is another name ("Norda" / "Yorda", "Behir" / "Zehir", "Slayer's Cake" / "Slayer's Take"); nor only at
    its end (``_ends_apart``: "Horn" / "Horns"); nor when both are words of the dictionary (lemminflect's) with no
    lemma in common: "Esa Manor" is a house, "Esa Minor" a village."""
    at = _edit_at(a, b)
    if at is None:
        return False
    longer, shorter = (a, b) if len(a) >= len(b) else (b, a)
    if len(longer.split()) != len(shorter.split()):  # "High Bearer" / "Highbearer": the same words, run together
        return True
    start = longer.rfind(" ", 0, at) + 1
    end = longer.find(" ", at)
    word = longer[start : None if end < 0 else end]
    other = shorter.split()[len(longer[:start].split())]
    if at == start or len(min(word, other, key=len)) < MIN_LETTERS or not (word + other).isalpha():
        return False
    if _ends_apart(word, other):
        return False
    from lemminflect import getAllLemmas  # its dictionary is loaded once, on first use

    lemmas = [{x for forms in getAllLemmas(w).values() for x in forms} for w in (word, other)]
    return not (lemmas[0] and lemmas[1] and not lemmas[0] & lemmas[1])


def misspellings(keys: Iterable[str]) -> list[tuple[str, str]]:
    """Every pair of ``keys`` that is one name misspelt (``misspelt``). Only keys of about one length that start
    alike are compared: an edit never touches a name's first letter."""
    by_start: dict[tuple[str, int], list[str]] = {}
    for k in sorted(set(keys)):
        if k:
            by_start.setdefault((k[0], len(k)), []).append(k)
    pairs = []
    for (first, length), group in by_start.items():
        for i, a in enumerate(group):
            for b in group[i + 1 :] + by_start.get((first, length + 1), []):
                if misspelt(a, b):
                    pairs.append((a, b))
    return pairs
