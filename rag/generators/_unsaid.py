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

from rag.generators._reading import given_as_name, named_near
from rag.names import article, forms_pattern, names, norm, noun_forms, plural, said_by_one_word
from rag.question import Attribute, Question

# A name is the thing's when said this close to it: "names the borrowed ship Going Merry", "their father, Syldor",
# "the Leaky Tap, a tavern"; a name further off in the sentence names something else ("Valindra casts banishment
# on Locke, and he floats in the Astral Sea and thinks he sees Betsy's ship").
NAME_NEAR = 4


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
    """The word, or one that counts as the same (``_SAME``), singular or plural (``noun_forms``)."""
    said = next((same for same in _SAME if noun_forms(word) & same), {word})
    return re.compile(rf"\b{forms_pattern(set().union(*map(noun_forms, said)))}\b", re.I)


def said_anywhere(attribute: Attribute, question: Question, sentences) -> bool:
    """A sentence of the passages found mentions the thing, or sits under a heading that does; with its owner,
    when the question gives one (in the sentence, the one before it, or as the page's title); and for a name, the
    sentence also gives the thing a name the question lacks (``named_near``). ``sentences``: the answerer's
    ``Sentence`` objects. The lines too short to answer on their own right above a sentence (``Sentence.lead_in``)
    count as said: a page of short lines ("Darian" / "father of Gwen" / "helped kill Mother Gloam") says who Gwen's
    father is in three words."""
    mentions = _mention(attribute.noun)
    owner = norm(attribute.owner)
    for s in sentences:
        for text in (s.text, s.lead_in):
            if not text or not (mentions.search(text) or mentions.search(s.hit.chunk.heading or "")):
                continue
            if owner:
                around = f" {norm(s.previous)} {norm(text)} {norm(s.hit.chunk.title or '')} "
                if f" {owner} " not in around and not said_by_one_word(attribute.owner, around):
                    continue
            if attribute.shape == "name" and not (
                named_near(question, text, mentions, NAME_NEAR)
                or any(given_as_name(question, name, text) for name in names(text))  # as a lead reads it
            ):
                continue
            return True
    return False


def unsaid(question: Question, sentences) -> str | None:
    """Why the notes cannot answer, in a player's words, or None when they may."""
    attribute = question.attribute
    if attribute is None or said_anywhere(attribute, question, sentences):
        return None
    if attribute.owner:
        whose = f"{attribute.owner}'s "
    else:
        whose = "the " if attribute.shape == "name" else "" if plural(attribute.noun) else article(attribute.thing)
    verb = "names" if attribute.shape == "name" else "mentions"
    return f"no passage found {verb} {whose}{attribute.thing}"
