"""Which people, places and things a passage names in its words, linked or not.

Why: a link is the notes' statement that someone is there, but most players link a name once in a note, or never
(a real vault typed at the table links 26 names in 168 passages and writes "oleg" forty times). Counting links
alone, its People & places page called the party's host "1 passage · on no session note yet". A passage that
writes one of an entity's names mentions it too:

- a name holding a word no dictionary has ("Oleg Leveton", "Restov", "Vax'ildan") is that name however it is
  typed: "oleg's trading post", "restov's grasp";
- a name made of ordinary words ("Trinket", "Bad News", "Temple of the Elk") only as the notes write a name:
  capitalised as the name is, and not as a sentence's first word, where any word is capitalised ("Trinket growls",
  not "a cheap trinket"; "Bad News fires", not "Bad news for the town");
- a name of several ordinary words also with its later words in lower case, where its first word is capitalised
  in mid-sentence: notes write a name's common nouns as common nouns ("the Hare clan" for Hare Clan, "the Temple of
  the elk"), and its capital still marks it as a name;
- a word of no dictionary that only one entity's names hold is that entity's short name: "Oleg" for Oleg Leveton,
  "Nyanzaru" for Port Nyanzaru; a surname the family shares ("Cimber" of Artus, Xandala and Valindra) is nobody's,
  and a place named for its owner ("Oleg's Trading Post") holds the owner's name, not a name of its own.

An entity's own page names it throughout: those passages are its page, not mentions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rag.names import STOPWORDS, is_a_word

MIN_LETTERS = 3  # a shorter name ("Vi", "GB") matches too much ordinary text
MIN_SHORT = 4  # letters of a word used alone as an entity's short name
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_ARTICLES = {"the", "a", "an"}
_OPENS = set('.!?:;"“(')  # a word after these (or first on its line) starts a sentence: capitalised anyway


def _token(word: str) -> str:
    """A word without its possessive: "Oleg's" is Oleg."""
    return word[:-2] if word.endswith(("'s", "’s", "'S", "’S")) else word


def _tokens(name: str) -> list[str]:
    return [t for w in _TOKEN.findall(name) if (t := _token(w))]


def _owners(name: str) -> set[str]:
    """The words of the owner a name is named for, folded: all of them up to its possessive ("Naxene Drathkala's
    Quest" is Naxene Drathkala's, so "Naxene" alone is her, not the quest)."""
    words = _TOKEN.findall(name)
    last = max((i for i, w in enumerate(words) if _token(w) != w), default=-1)
    return {_fold(_token(w)) for w in words[: last + 1]}


def _fold(word: str) -> str:
    return word.casefold().replace("’", "'")


def _ordinary(folded: str) -> bool:
    return folded.isdigit() or folded in STOPWORDS or is_a_word(folded)


def _lengths(keys: Iterable[tuple[str, ...]]) -> dict[str, list[int]]:
    """A name's first word → the lengths (in words) of the names it opens, longest first."""
    out: dict[str, set[int]] = {}
    for k in keys:
        out.setdefault(k[0], set()).add(len(k))
    return {first: sorted(lengths, reverse=True) for first, lengths in out.items()}


class Naming:
    """Built once from every entity's names (``{entity's key: [its names]}``); ``named(text)`` says which entities
    (by their keys) a text names. Stateless after construction."""

    def __init__(self, names: dict[str, Iterable[str]]):
        self.anyhow: dict[tuple[str, ...], set[str]] = {}  # folded words → entities: a name with a made-up word
        self.as_name: dict[tuple[str, ...], set[str]] = {}  # words as written → entities: a name of ordinary words
        self.led: dict[tuple[str, ...], set[str]] = {}  # its first word as written, the others folded ("Hare clan")
        short: dict[str, set[str]] = {}
        for entity, own in names.items():
            for name in dict.fromkeys(own):
                words = _tokens(name)
                if words and _fold(words[0]) in _ARTICLES:  # "the Professor": notes write "the" in any case
                    words = words[1:]
                if sum(len(w) for w in words) < MIN_LETTERS:
                    continue
                folded = tuple(_fold(w) for w in words)
                made_up = [f for f in folded if not _ordinary(f)]
                if made_up:
                    self.anyhow.setdefault(folded, set()).add(entity)
                else:
                    self.as_name.setdefault(tuple(words), set()).add(entity)
                    if len(words) > 1 and words[0][:1].isupper():
                        self.led.setdefault((words[0], *folded[1:]), set()).add(entity)
                owners = _owners(name)  # "Oleg's Trading Post", "Naxene Drathkala's Quest"
                for f in made_up:
                    if len(f) >= MIN_SHORT and f not in owners:  # ...is Oleg's, not Oleg
                        short.setdefault(f, set()).add(entity)
        for word, owners in short.items():
            if len(owners) == 1:
                self.anyhow.setdefault((word,), set()).update(owners)
        self.folded_lengths = _lengths(self.anyhow)
        self.written_lengths = _lengths(self.as_name)

    def named(self, text: str) -> set[str]:
        """The entities ``text`` names (the module's docstring), the longest name first where names overlap
        ("Port Nyanzaru" before "Nyanzaru")."""
        found: set[str] = set()
        words = [_token(w) for w in _TOKEN.findall(text)]
        folded = [_fold(w) for w in words]
        after = 0  # names do not overlap: the word after the last name found
        matches: list[re.Match] | None = None
        for i, (word, fold) in enumerate(zip(words, folded, strict=True)):
            if i < after or (fold not in self.folded_lengths and word not in self.written_lengths):
                continue
            for n in self.folded_lengths.get(fold, ()):
                if entities := self.anyhow.get(tuple(folded[i : i + n])):
                    found |= entities
                    after = i + n
                    break
            else:
                for n in self.written_lengths.get(word, ()):
                    entities = self.as_name.get(tuple(words[i : i + n]))
                    led = None if entities or n == 1 else self.led.get((word, *folded[i + 1 : i + n]))
                    if (entities and n == 1) or led:  # a name by its first capital alone, not where a sentence starts
                        matches = matches or list(_TOKEN.finditer(text))
                        entities = None if _starts_sentence(text, matches[i].start()) else entities or led
                    if entities:
                        found |= entities
                        after = i + n
                        break
        return found


def _starts_sentence(text: str, at: int) -> bool:
    line = text[text.rfind("\n", 0, at) + 1 : at].strip(" \t-*+>#")
    return not line or line[-1] in _OPENS or bool(re.fullmatch(r"\d{1,3}[.)]?", line))
