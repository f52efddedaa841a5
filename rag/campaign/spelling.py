"""Names spelt two ways: "Ellias" in one session, "Elias" in the next.

Players type their notes fast, at the table, and names from a published adventure are hard to spell: the same
person is "Ellias" five times and "Elias" six times in one real vault, and a question may use either (or a
third spelling). Keyword search matches words exactly, so a question naming "Ellias" never finds the passage
that says what "Elias" had to do. This table knows the names the notes use (words they nearly always
capitalise) and, for a name in the question, offers the notes' other spellings one letter away (a letter
added, dropped, changed or two swapped), which the keyword stages then search too.

Only names: ordinary words one letter apart are usually different words ("lift" / "left"), names one letter
apart in one campaign's notes are nearly always one name misspelt. Not when they differ only at the end: that is
a plural or another word ("Knight" / "Knights", "Princess" / "Princes", "Blood" / "Bloom"), and keyword search
already folds plurals.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from rag.names import STOPWORDS

MIN_LETTERS = 5  # shorter names one letter apart are often two names ("Dane", "Dana")
NAME_SHARE = 0.8  # a word the notes capitalise this often is a name
MAX_VARIANTS = 1  # per word of the question
_WORD = re.compile(r"(?<![\w'’-])([A-Za-z][a-z]+)(?![\w'’-])")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def name_counts(texts: Iterable[str]) -> dict[str, int]:
    """Lower-cased name → how often the notes write it: words of MIN_LETTERS or more that the notes capitalise
    at least NAME_SHARE of the time (not counting a sentence's first word, which is capitalised anyway)."""
    capitalised: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for text in texts:
        for m in _WORD.finditer(text):
            word = m.group(1)
            if len(word) < MIN_LETTERS:
                continue
            before = text[max(0, m.start() - 6) : m.start()].rstrip(" \"'*_([")  # "talks to [[Elias": "to"
            if word[0].isupper() and (not before or before[-1:] in ".!?:\n#-"):
                continue  # first word of a sentence, a heading or a bullet: capitalised whatever it is
            key = word.casefold()
            seen[key] += 1
            capitalised[key] += word[0].isupper()
    return {w: n for w, n in seen.items() if capitalised[w] >= NAME_SHARE * n and w not in STOPWORDS}


def one_letter_away(word: str) -> set[str]:
    """Every string one edit from ``word``: a letter dropped, two swapped, one changed or one added."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    out |= {a + c + b for a, b in splits for c in _LETTERS}
    out.discard(word)
    return out


def _ends_apart(a: str, b: str) -> bool:
    """Two words one letter apart only at their end: "Knight"/"Knights", "Blood"/"Bloom"."""
    return a.startswith(b) or b.startswith(a) or a[:-1] == b[:-1]


class Spellings:
    """The notes' names and how often each is written; ``variants`` gives a question's other spellings."""

    def __init__(self, names: dict[str, int]):
        self.names = dict(names)

    def variants(self, text: str) -> list[str]:
        """The notes' other spellings of the names in a search text (a question or a phrasing of it), most
        written first. A word counts as a name when the notes use it as one or the text capitalises it past its
        first word."""
        out: list[str] = []
        said = {m.group(1).casefold() for m in _WORD.finditer(text)}
        for i, m in enumerate(_WORD.finditer(text)):
            word = m.group(1)
            key = word.casefold()
            if len(key) < MIN_LETTERS or key in STOPWORDS:
                continue
            if key not in self.names and not (word[0].isupper() and i > 0):
                continue
            close = [w for w in one_letter_away(key) if w in self.names and w not in said and not _ends_apart(w, key)]
            for other in sorted(close, key=lambda w: (-self.names[w], w))[:MAX_VARIANTS]:
                said.add(other)
                out.append(other.capitalize())
        return out
