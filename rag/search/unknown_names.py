"""Names a question asks about that the campaign's notes never write: "Who rules Whitestone?" over notes that
never mention Whitestone.

Why: retrieval always finds something. For such a question it finds passages about the question's other words
("rules to the letter"), and any name in them would be read as the answer ("Critical Role."). A name no passage
writes, in any spelling close to it, means the notes cannot say. The check reads the search's candidates: keyword
search puts a passage holding a rare name among them whenever the notes have one (and the spelling stage searches
its other spellings), so a name absent from all of them is absent from the notes this reader may see. Players and
note-takers spell names as they hear them, so a letter off (two in a long name) still counts as written, and so
does any name the alias table knows, and a name written with marks over its letters ("Jurō") typed without them.

A name of several words ("the Slayer's Take", "Whitestone Castle") is its words together: one of them said in
passing ("take", "castle", a "mind slayer") does not say it. It is written when the candidates say it whole (in any
case: "the sun tree"; or run together: "Krag Hammer" where the notes say "Kraghammer"), or use one of its words as
a name (capitalised or in capitals, in any spelling close to it: "Lady Kima" where the notes say "Kima",
"Golden-Tree" where they say "Gold-Tree", "Sir Issac Newton" where they say "SIR ISAAC NEWTON").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Set

from rag.models import Hit
from rag.names import STOPWORDS, is_a_word, norm, norm_words, without_marks
from rag.question import Question


def unknown_names(question: Question, candidates: Iterable[Hit], known: Set[str] = frozenset()) -> list[str]:
    """The names of the question (``Question.asked_names``: never its first word, "Remind me who…", nor a short
    word in capitals, "NPC") that no candidate passage writes (text, title, heading or name) and that are not
    among ``known`` (the alias table's words), each word of a name read with ``written``; a name of several words
    read whole or by a word written as a name (the module's docstring). Cheap when the table knows the name or a
    candidate holds it as written, as for nearly every question: only a name found nowhere has the candidates'
    words read for another spelling (bench query, docs/BENCHMARKS.md)."""
    # "before we reached Emberhold" tells when, not what is asked: searched before it, the notes never name it
    when = norm(question.order.place) if question.order is not None else ""
    names = [n for n in question.asked_names if norm(n) != when]
    asked = [(n, [w for w in norm_words(n) if w not in STOPWORDS and len(w) > 2]) for n in names]
    asked = [(n, words) for n, words in asked if words and not any(w in known for w in words)]
    if not asked:
        return []
    asked = [(n, [without_marks(w) for w in words]) for n, words in asked]  # "Juro" is written as "Jurō"
    shown = without_marks(written_in(candidates))
    text = shown.casefold()
    missing: set[str] = set()
    # several words: said whole as asked, or run together ("Krag Hammer" / "Kraghammer"), as nearly always
    several = [
        (n, ws)
        for n, ws in asked
        if len(ws) > 1 and without_marks(n).casefold() not in text and "".join(ws) not in text
    ]
    if several:  # ...else said whole in other punctuation, or one word written as a name
        normed = f" {norm(shown)} "
        as_names = {w.casefold() for w in _CAPITALISED.findall(shown)}
        missing |= {
            n
            for n, ws in several
            if f" {norm(without_marks(n))} " not in normed and not any(written(w, as_names) for w in ws)
        }
    alone = [(n, ws[0]) for n, ws in asked if len(ws) == 1 and ws[0] not in text]  # as written, even in a word
    if alone:
        said = norm_words(text)
        vocabulary = set(said) | known
        run_on = "".join(said)
        missing |= {name for name, word in alone if not written(word, vocabulary, run_on)}
    return [name for name, _ in asked if name in missing]


def written_in(candidates: Iterable[Hit]) -> str:
    """What the candidate passages write, for looking a word up: each one's text, title, heading and name."""
    return " ".join(f"{h.chunk.text} {h.chunk.title} {h.chunk.heading} {h.chunk.name}" for h in candidates)


# A word written as a name: capitalised or in capitals, also after a hyphen ("Gold-Tree"), never after an apostrophe
# (the "S" of "SLAYER'S")
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][A-Za-z]+")


def written(word: str, vocabulary: set[str], run_on: str = "") -> bool:
    """The notes write ``word``: as a word, run on with the next one ("White Stone" for "Whitestone", in words of
    six letters or more), or a letter off (two in a word of eight or more) from one starting with its letter."""
    if word in vocabulary or (len(word) >= 6 and word in run_on):
        return True
    most = 0 if len(word) < 5 else 1 if len(word) < 8 else 2
    return bool(most) and any(apart(word, v, most) for v in vocabulary if v[:1] == word[:1])


def apart(a: str, b: str, most: int) -> bool:
    """``a`` and ``b`` are at most ``most`` edits apart (a letter dropped, added or changed)."""
    if abs(len(a) - len(b)) > most:
        return False
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
        if min(row) > most:
            return False
    return row[-1] <= most


def respellings(spelt_as: dict[str, str], candidates: Iterable[Hit]) -> dict[str, str]:
    """The question's names the notes write only another way, each with the notes' spelling: ``spelt_as`` (the
    spelling stage's, ``Spellings.spelt_as``) kept where no candidate passage writes the question's word, in any
    case, and one writes the notes' spelling; never a word of the dictionary (lemminflect's), which a player means
    as typed. "Who is Clarrota?" over notes that say "Clarota" is a question about Clarota; "Haskell" where the
    notes write both "Haskell" and "Haskel" is not respelt. Keyword search puts a passage holding the word among the
    candidates whenever the notes write it (``unknown_names``), so absent from them is absent from the notes this
    reader may see."""
    if not spelt_as:
        return {}
    said = set(norm_words(written_in(candidates)))
    return {
        word: other
        for word, other in spelt_as.items()
        if word.casefold() not in said
        and all(w in said for w in norm_words(other))  # "Haffyd's": the name, and an "s" of any possessive
        and not is_a_word(word.casefold())
    }
