"""Questions about something the notes never mention: "Who is the mayor of Port Nyanzaru?", "When is Morgan's
birthday?", "What is the name of Yosei's father?".

Why: such a question shares its names with many passages (Port Nyanzaru, Morgan, Yosei), so retrieval finds
passages about them and every score looks like an answer's; the answerer then led with whatever name the best
sentence held ("Harpers." for the mayor). What gives it away is the thing asked about (the mayor, the birthday,
the father): when no sentence of the passages found mentions it at all, the notes cannot say it. Only the
question shapes that ask for an attribute by its own word are read this way (``_SHAPES``); other questions often
use a word the notes do not ("What contraband…" answered by "narcotics"), so they are left to the scores.
Private to the extractive backend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.generators._reading import named_near
from rag.names import norm, said_by_one_word

_OWNER = r"(?:the\s+)?(?P<owner>[A-Z][\w’-]*(?:\s+[A-Z][\w’-]*)*|[a-z][\w’-]*)(?:'s|’s|s')\s+"
_THING = r"(?P<thing>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
_SHAPES = (
    # "What is the name of Yosei's father?", "the title of the song…": the name must come with the thing named
    (
        "name",
        re.compile(
            rf"\b(?:name|title)\s+of\s+(?:{_OWNER}|(?:the|an?)\s+)?(?P<thing>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}})"
        ),
    ),
    # the same, said the other way: "What was Grog's dad's name?", "What is Caleb's cat called?"
    ("name", re.compile(rf"\b{_OWNER}(?P<thing>[a-z][\w-]*)(?:(?:'s|’s)\s+(?:real\s+)?name|\s+called)\W*$")),
    # "Who is the mayor of Port Nyanzaru?", "What is the password to the Red Wizards' safehouse?"
    (
        "role",
        re.compile(
            rf"^\W*(?:who|what)\s+(?:is|was|are|were)\s+(?:the|a|an)\s+{_THING}\s+(?:of|to|for|on|in|at|aboard)\s",
            re.I,
        ),
    ),
    # "When is Morgan's birthday?", "What is Eku Stormfang's favourite drink?", "Who is Vex's brother?"
    ("owned", re.compile(rf"^\W*(?:who|what|when|where|which)\s+(?:is|was|are|were)\s+{_OWNER}{_THING}\W*$", re.I)),
)
# Words that ask for an explanation, not a thing the notes would name by that word ("What was the purpose of the
# ritual?" is answered by "to wake the god"): such questions are left to the scores.
_EXPLANATION_WORDS = """
name title one thing kind sort type part deal story point purpose result reason cause meaning outcome effect goal
plan situation status state consequence significance source origin truth problem solution answer difference
relationship relation connection role job motive motivation backstory history opinion view feeling attitude mood
fate condition idea theory importance use way secret matter
"""
_EXPLANATIONS = frozenset(_EXPLANATION_WORDS.split())
# Where a thing's description stops: "the old half-elf we cut out of…", "the greatsword from Vorugal's hoard"
_STOP_WORDS = "we you i they he she it that who which whom whose in on at from with of to for by our my his her their"
_STOPS = frozenset(_STOP_WORDS.split())
# A name is the thing's when said this close to it: "names the borrowed ship Going Merry", "their father, Syldor",
# "the Leaky Tap, a tavern"; a name further off in the sentence names something else ("Valindra casts banishment
# on Locke, and he floats in the Astral Sea and thinks he sees Betsy's ship").
NAME_NEAR = 4


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


def asked_attribute(question: str) -> Attribute | None:
    for shape, pattern in _SHAPES:
        m = pattern.search(question.strip())
        if not m:
            continue
        words = m.group("thing").casefold().split()
        cut = next((i for i, w in enumerate(words) if w in _STOPS), len(words))
        owner = m.groupdict().get("owner") or ""
        attribute = Attribute(shape, " ".join(words[:cut] or words[:1]), owner if owner[:1].isupper() else "")
        return None if attribute.noun in _EXPLANATIONS else attribute
    return None


# Players say "dad" where the notes say "father", "inn" where they say "tavern": such words count as one.
_SAME = [
    {"dad", "father", "pa"},
    {"mom", "mum", "mother", "ma"},
    {"kid", "child", "children", "son", "daughter", "baby"},
    {"wife", "husband", "spouse", "partner"},
    {"ship", "boat", "vessel"},
    {"inn", "tavern", "pub", "bar"},
    {"town", "city", "village"},
    {"horse", "mount", "steed"},
    {"sword", "blade"},
]


def _mention(word: str) -> re.Pattern:
    """The word, or one that counts as the same (``_SAME``), singular or plural."""
    said = next((same for same in _SAME if word in same or word.removesuffix("s") in same), {word})
    stems = "|".join(re.escape(w.removesuffix("s")) for w in sorted(said))
    return re.compile(rf"\b(?:{stems})(?:s|es)?\b", re.I)


def said_anywhere(attribute: Attribute, question: str, sentences) -> bool:
    """A sentence of the passages found mentions the thing, or sits under a heading that does; with its owner,
    when the question gives one (in the sentence, the one before it, or as the page's title); and for a name, the
    sentence also gives the thing a name the question lacks (``named_near``). ``sentences``: the answerer's
    ``Sentence`` objects."""
    mentions = _mention(attribute.noun)
    owner = norm(attribute.owner)
    for s in sentences:
        if not (mentions.search(s.text) or mentions.search(s.hit.chunk.heading or "")):
            continue
        if owner:
            around = f" {norm(s.previous)} {norm(s.text)} {norm(s.hit.chunk.title or '')} "
            if f" {owner} " not in around and not said_by_one_word(attribute.owner, around):
                continue
        if attribute.shape == "name" and not named_near(question, s.text, mentions, NAME_NEAR):
            continue
        return True
    return False


def unsaid(question: str, sentences) -> str | None:
    """Why the notes cannot answer, in a player's words, or None when they may."""
    attribute = asked_attribute(question)
    if attribute is None or said_anywhere(attribute, question, sentences):
        return None
    if attribute.owner:
        whose = f"{attribute.owner}'s "
    else:
        whose = "the " if attribute.shape == "name" else "an " if attribute.thing[:1] in "aeiou" else "a "
    verb = "names" if attribute.shape == "name" else "mentions"
    return f"no passage found {verb} {whose}{attribute.thing}"
