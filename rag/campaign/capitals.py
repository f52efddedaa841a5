"""Which words a campaign's notes write as names: what they capitalise, counted once at index time.

A question typed without capitals ("did grog get the greatsword?") shows its names only by their being no word
of everyday English (``rag.question.question.named_in_lower_case``). That misses a name that is also a word or a
child's name ("grog", "percy", "vox", "clay") and takes a game word no word list knows ("greatsword",
"safehouse") for a name. The notes themselves say which is which: a word they capitalise in mid-sentence nearly
every time is a name in this campaign, one they nearly always write in lower case is not. The spelling stage
(``rag.campaign.spelling``) reads the same counts for the names it respells.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from rag.names import STOPWORDS, is_everyday_word

NAME_SHARE = 0.8  # a word the notes capitalise this often is a name; written in lower case this often, a word
SHARE_WRITTEN = 3  # a word's share of capitals is read from this many writings or more
CASE_LETTERS = 3  # shorter words say little: "Vi", "Oz" and "at" alike
_LETTERS = re.compile(r"(?<![\w'’-])([^\W\d_]+)(?![\w'’-])")


def cased_words(text: str) -> Iterator[re.Match]:
    """The words of letters only that are written in lower case or capitalised ("Jurō", "grog"), as matches (the
    word is ``group(1)``); not "McDonald" nor "NPC", whose case says nothing of a name."""
    return (m for m in _LETTERS.finditer(text) if m.group(1)[1:].islower())


def _in_title_case(line: str, words: list[str]) -> bool:
    """A line whose every word but the small ones is capitalised and that ends no sentence: a heading, a passage's
    title, a page's name ("The Day of the Raid", "Lesser Restoration")."""
    said = [w for w in words if w.casefold() not in STOPWORDS]
    return bool(said) and all(w[0].isupper() for w in said) and not line.rstrip(" *_").endswith((".", "!", "?"))


@dataclass(frozen=True)
class Capitals:
    """How often the notes write each word of ``CASE_LETTERS`` letters or more past a sentence's first word and
    outside titles (``seen``), and how often capitalised there."""

    seen: Counter[str]
    capitalised: Counter[str]

    @classmethod
    def count(cls, texts: Iterable[str]) -> Capitals:
        seen: Counter[str] = Counter()
        capitalised: Counter[str] = Counter()
        for text in texts:
            for line in text.splitlines():
                found = [m for m in cased_words(line) if len(m.group(1)) >= CASE_LETTERS]
                if _in_title_case(line, [m.group(1) for m in found]):
                    continue  # "The Day of the Raid": a title capitalises its every word, names or not
                for m in found:
                    word = m.group(1)
                    before = line[max(0, m.start() - 6) : m.start()].rstrip(" \"'*_([")  # "talks to [[Elias": "to"
                    if word[0].isupper() and (not before or before[-1:] in ".!?:#-"):
                        continue  # first word of a sentence, a heading or a bullet: capitalised whatever it is
                    key = word.casefold()
                    seen[key] += 1
                    capitalised[key] += word[0].isupper()
        return cls(seen, capitalised)

    def names(self, min_letters: int = CASE_LETTERS, share: float = NAME_SHARE) -> dict[str, int]:
        """Lower-cased name → how often the notes write it: the words of ``min_letters`` or more they capitalise
        at least ``share`` of the time."""
        return {
            w: n
            for w, n in self.seen.items()
            if len(w) >= min_letters and self.capitalised[w] >= share * n and w not in STOPWORDS
        }

    def share_of(self, words: Iterable[str]) -> float | None:
        """How often the notes capitalise these words (folded) in mid-sentence: the median share of those they
        write ``SHARE_WRITTEN`` times or more (once or twice says little: a full name written once, in a list),
        None when they write none so often."""
        shares = sorted(self.capitalised[w] / self.seen[w] for w in words if self.seen[w] >= SHARE_WRITTEN)
        return shares[len(shares) // 2] if shares else None

    def as_written(self) -> dict[str, bool]:
        """Word → whether the notes write it as a name, for the words where that tells a question typed without
        capitals more than everyday English does: every name they write (True), and every word no everyday
        word list knows that they write in lower case at least ``NAME_SHARE`` of the time ("greatsword": False).
        A word they write both ways, or never, is left to the word list."""
        out = dict.fromkeys(self.names(), True)
        for w, n in self.seen.items():
            if n - self.capitalised[w] >= NAME_SHARE * n and w not in STOPWORDS and not is_everyday_word(w):
                out[w] = False
        return out
