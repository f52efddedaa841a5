"""The detail a question asks about in its own words: what "How many …?" counts ("healing potions"), and the
attribute of someone it asks for ("the name of Yosei's *father*", "Morgan's *birthday*", "the *mayor* of Port
Nyanzaru").

Why: a question about something the notes never mention shares its names with many passages, so every score
looks like an answer's. What gives it away is the thing asked about: when no passage found mentions it, the notes
cannot say it. Only the shapes that ask for an attribute by its own word are read (``_SHAPES``); other questions
often use a word the notes do not ("What contraband…" answered by "narcotics").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.names import AUXILIARIES, AUXILIARY_WORDS, OWNER_MARK, STOPWORDS, is_a_word
from rag.question.kinds import NAME_ENDS, WHY_NOUNS
from rag.question.who import POSSESSIVE, may_be

# "How many healing potions did…": the last word before the verb is what is counted ("How many were there?": none)
_COUNTED = re.compile(
    rf"\bhow many\s+(?:of\s+(?:the|our|their|those|these)\s+)?((?:[a-z][\w'-]*\s+){{0,2}}?[a-z][\w'-]*)\s+{AUXILIARIES}\b",
    re.I,
)
_OWNER = rf"(?:the\s+)?(?P<owner>[A-Z][\w’-]*(?:\s+[A-Z][\w’-]*)*|[a-z][\w’-]*){OWNER_MARK}\s+"
_THING = r"(?P<thing>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
_SHAPES = (
    # "What is the name of Yosei's father?", "the title of the song…": the name must come with the thing named
    # ("the name of her bear": the bear's, whoever she is; a follow-up puts the name in, rag.question.turns)
    (
        "name",
        re.compile(
            rf"\b(?:name|title)\s+of\s+(?:{_OWNER}|(?:the|an?|{POSSESSIVE})\s+)?(?P<thing>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}})"
        ),
    ),
    # the same, said the other way: "What was Grog's dad's name?", "What is Caleb's cat called?"
    ("name", re.compile(rf"\b{_OWNER}(?P<thing>[a-z][\w-]*)(?:(?:'s|’s)\s+(?:real\s+)?name|\s+called){NAME_ENDS}")),
    # "Who is the mayor of Port Nyanzaru?", "What is the password to the Red Wizards' safehouse?"
    (
        "role",
        re.compile(
            rf"^\W*(?:who|what)\s+(?:is|was|are|were)\s+(?:the|a|an)\s+{_THING}\s+(?:of|to|for|on|in|at|aboard)\s",
            re.I,
        ),
    ),
    # "When is Morgan's birthday?", "What is Eku Stormfang's favourite drink?", "Who is Vex's brother?"
    # (the question words in either case; the owner written as a name, or "the" and a few words: "the widow
    # woman's daughter", but "the big payment coming up in Papel's books" asks about a payment, not about books)
    (
        "owned",
        re.compile(
            rf"^\W*(?i:who|what|when|where|which)\s+(?i:is|was|are|were)\s+(?:the\s+(?:[a-z][\w’-]*\s+){{0,2}})?{_OWNER}{_THING}\W*$"
        ),
    ),
)
# Words that ask for an explanation, not a thing the notes would name by that word ("What was the purpose of the
# ritual?" is answered by "to wake the god"): such questions are left to the scores. The nouns for why
# (``kinds.WHY_NOUNS``: reason, purpose, motive…) and these
_EXPLANATION_WORDS = """
name title one thing kind sort type part deal story plan situation status state source origin truth problem solution
answer difference relationship relation connection role job backstory history opinion view feeling attitude mood
fate condition idea theory importance use way secret matter
"""
_EXPLANATIONS = WHY_NOUNS | frozenset(_EXPLANATION_WORDS.split())
# Where a thing's description stops: "the old half-elf we cut out of…", "the greatsword from Vorugal's hoard", "the
# grimoire everyone was after" (a clause's subject, its verb)
_STOP_WORDS = """we you i they he she it that who which whom whose in on at from with of to for by our my his her their
everyone everybody someone somebody anyone anybody nobody"""
_STOPS = frozenset(_STOP_WORDS.split()) | AUXILIARY_WORDS


@dataclass(frozen=True)
class Attribute:
    """The thing a question asks about in its own words (``thing``: "first mate"; ``noun``, its last word, is what
    a sentence must say), whose it is (``owner``, "" when the question gives none) and whether the answer is a
    name (``shape`` "name")."""

    shape: str
    thing: str
    owner: str

    @property
    def noun(self) -> str:
        return self.thing.split()[-1]


def counted(question: str) -> str | None:
    """What a "How many …?" question counts, in its words: "How many healing potions did we buy?" → "healing
    potions" (a sentence must say its last word, in either number); None for "How many were there?". What it counts
    may also do the asking's verb: "How many bandits came to the trading post?" → "bandits" (``_counted_doing``)."""
    m = _COUNTED.search(question)
    return m.group(1) if m else _counted_doing(question)


_HOW_MANY = re.compile(r"\bhow many\s+(?:of\s+(?:the|our|their|those|these)\s+)?", re.I)
_WORD = re.compile(r"[a-z][\w'-]*", re.I)


def _counted_doing(question: str) -> str | None:
    """The counted nouns of a "How many …?" question whose counted things do its verb, the longest before a word
    the dictionary knows as a verb: "How many bandits came…" → "bandits", "How many dwarf guards watch…" → "dwarf
    guards". Without it, "3." led the answer from "bandits have been here for ~3 months" (vault-kingmaker walk)."""
    m = _HOW_MANY.search(question)
    if not m:
        return None
    after = _WORD.findall(question[m.end() :])[:4]
    for k in range(min(3, len(after) - 1), 0, -1):
        phrase, verb = after[:k], after[k].casefold()
        if any(w.casefold() in STOPWORDS for w in phrase) or not may_be(phrase[-1].casefold(), "NOUN"):
            continue
        if verb not in STOPWORDS and is_a_word(verb) and may_be(verb, "VERB"):  # a verb the dictionary knows
            return " ".join(phrase)
    return None


def asked_attribute(question: str) -> Attribute | None:
    """The attribute the question asks for by its own word, or None (an explanation word, or another shape)."""
    for shape, pattern in _SHAPES:
        m = pattern.search(question.strip())
        if not m:
            continue
        words = m.group("thing").casefold().split()
        cut = next((i for i, w in enumerate(words) if w in _STOPS), len(words))
        while cut > 1 and not may_be(words[cut - 1], "NOUN"):  # "the farmer able to…", "the prince assigned to…"
            cut -= 1
        owner = m.groupdict().get("owner") or ""
        attribute = Attribute(shape, " ".join(words[:cut] or words[:1]), owner if owner[:1].isupper() else "")
        return None if attribute.noun in _EXPLANATIONS else attribute
    return None
