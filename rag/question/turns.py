"""Where a question sits in a conversation and in the campaign: whether it leans on the last turn ("What did she
do next?"), which sessions it names ("in session 5"), and what it says about story order ("last session",
"between sessions 10 and 12", "before we reached Omu").

A follow-up goes on from the last turn ("And then?", "What about Vex?", "After that…"), or a pronoun in it has
nothing in the question to point at ("What did she do next?", "Where did they go?", "What's the name of her
bear?"); "Where did the party stay on their first night in Kraghammer?" names its own subject ("their" is the
party's) and stands alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.names import AUXILIARIES, STOPWORDS, is_noun, names
from rag.question.kinds import answer_kind, asks_several

_GOES_ON = re.compile(
    r"^\W*(and|but|so|also|then|what about|how about|what else|after that|afterwards|what happened next|"
    r"and then|why|how)\b\W*$|^\W*(and|but|so|also|then|what about|how about|after that|afterwards)\b",
    re.IGNORECASE,
)
_PRONOUN_SUBJECT = re.compile(
    rf"^\W*(he|she|they|it)\b|(?:\b{AUXILIARIES}\s+|\b(?:who|what|where)['’]s\s+)(he|she|they|it)\b", re.IGNORECASE
)
_POINTS_BACK = re.compile(r"\b(him|them)\b|\bher\s*[?.!]*$|\b(there|then|that place|the same)\s*[?.!]*$", re.I)
_SESSION = re.compile(r"\b(?:session|episode)\s+\d+(?:\.\d+)?\b", re.IGNORECASE)
# "in session 5", "recap session 5", "how did session 5 end", or "(…, session 5)" as a follow-up rewrite carries it
_IN_SESSION = re.compile(
    r"(?:^\W*(?:the\s+)?|\b(?:in|during|at|of|from|did|recap|summari[sz]e)\s+|[(,]\s*)(?:session|episode)\s+(\d+(?:\.\d+)?)\b",
    re.IGNORECASE,
)

_NUMBER = r"(\d+(?:\.\d+)?)"
_BETWEEN = re.compile(
    rf"\b(?:between\s+)?(?:sessions?|episodes?)\s+{_NUMBER}\s*(?:and|to|through|-|–)\s*(?:sessions?\s+)?{_NUMBER}\b",
    re.I,
)
# "last session", "the last game", and "last time" ending the question ("Who did we meet last time?"); "the last time
# we saw Kima" asks when that was (rag.question.kinds)
_LAST = re.compile(
    r"\b(?:last|previous|latest|most recent)\s+(?:session|episode|game|time we played)\b|\blast\s+time\W*$", re.I
)
_SINCE = re.compile(rf"\b(?:since|after)\s+(?:session|episode)\s+{_NUMBER}\b", re.I)
_BEFORE = re.compile(
    r"\bbefore\s+(?:we|the party|they)\s+(?:first\s+)?(?:reached|got to|arrived (?:at|in)|met|found|went to|entered)\s+"
    r"(?:the\s+)?(.+?)[?.!]*$",
    re.I,
)


@dataclass(frozen=True)
class StoryOrder:
    """The sessions a question's wording points at, before the campaign says which exist: ``between`` sessions
    ``low`` and ``high``, the ``last`` one, ``since`` ``low`` (after a session: from the next), or ``before`` the
    first session naming ``place``."""

    kind: str
    low: float | None = None
    high: float | None = None
    place: str = ""


# "Where is her bear?", "What was his plan?": whose, with nobody in the question before it to be theirs ("the
# girl and her brother" is the girl's; in "the name of her bear" the name is hers)
_WHOSE = re.compile(r"\b(?:his|her)\b", re.I)
_SOMEONE_BEFORE = re.compile(r"\b(?:the|a|an)\s+[a-z]", re.I)
_HERS = re.compile(r"\b(?:the|a|an)\s+[\w'-]+\s+of\s+$", re.I)


def leans_on_last_turn(question: str) -> bool:
    """Only a question that goes on from the last turn, or leans on someone it does not name, borrows from it."""
    if _GOES_ON.search(question):
        return True
    if (pronoun := _PRONOUN_SUBJECT.search(question)) and not names(question[: pronoun.start()]):
        return True  # not "Who is Tengai Rin and what does she want?": she is whom it named before
    if names(question):
        return False
    whose = _WHOSE.search(question)
    before = _HERS.sub("", question[: whose.start()]) if whose else ""
    return bool(_POINTS_BACK.search(question) or whose and not _SOMEONE_BEFORE.search(before))


# "Who is she?", "Who's he again?": someone asked about by a pronoun alone
_WHO_IS_PRONOUN = re.compile(
    r"^(\W*who(?:['’]s|\s+(?:is|was|are|were))\s+)(?:he|she|they|him|her|them)(\s*(?:again|now|exactly)?\W*)$", re.I
)


# one person the last turn named, as a subject, an object or an owner ("they" may be the party: left as it is)
_PERSON_PRONOUN = re.compile(r"\b(?:he|she|him|his|her)\b", re.I)
_NEXT_WORDS = re.compile(r"\s*([a-z][\w'-]*)(?:\s+([a-z][\w'-]*))?", re.I)


def asked_of(question: str, name: str) -> str | None:
    """A follow-up asked of the one name the last turn gave, the name in its pronouns' place: "What did she do
    next?" → "What did Kima do next?", "Did we ever meet him?" → "Did we ever meet Nostoc?", "Who is she?" → "Who
    is Kima?" (a question of its own: "Who is X?" quotes who X is, "Who is she? (Kima)" asks for a person). "his" and
    a "her" before a noun say whose ("Where is her bear?" → "Where is Kima's bear?"). None when no pronoun of one
    person stands for them, or when its pronouns name two ("What did she give him?": which one is Kima?)."""
    if m := _WHO_IS_PRONOUN.match(question):
        return f"{m.group(1)}{name}{m.group(2)}"
    said = [(m.group(0).casefold(), _owns(m.group(0), question[m.end() :])) for m in _PERSON_PRONOUN.finditer(question)]
    pronouns = {pronoun for pronoun, _ in said}
    does, done_to = pronouns & {"he", "she"}, {p for p, owner in said if p in ("him", "her") and not owner}
    if not said or pronouns & {"he", "him", "his"} and pronouns & {"she", "her"} or does and done_to:
        return None  # two people: "What did she give him?", "What did he tell him?"
    return _PERSON_PRONOUN.sub(lambda m: f"{name}'s" if _owns(m.group(0), question[m.end() :]) else name, question)


# "Who is Selda's father?", "Who was the leader of the Cult of Varkanus?": someone asked for by what they are to
# others, whom the question's names are not
_DESCRIBED = re.compile(r"^\W*who(?:['’]s|\s+(?:is|was|are|were))\s+(?P<who>\S.*?)\W*$", re.I)


def answered_name(question: str, answer: str) -> str | None:
    """Whom the answer to a "who" question gave as its short answer, when the question named no one: after "Who
    didn't we trust?" → "Kima.", a "her" in the next question is Kima, as it would be at the table. Only an answer
    whose first line (before its citation) is one name is read so: the first name of a quoted sentence ("Adra is
    at the door…" for "Who did we fight?") is whoever the sentence starts with, not whom it answers. A question
    asking for someone by what they are to others ("Who is Selda's father?") names others, not them: the answer's
    name if it gave one, else what the question called them ("Selda's father": "What does he teach?" asks what
    Selda's father teaches, not Selda). None for any other question, a question that named whom it asked about
    (its names are carried), or one asking for everyone of a group ("Who was with Kima?")."""
    if answer_kind(question) != "person" or asks_several(question):
        return None
    named = names(question)
    described = _DESCRIBED.match(question) if named else None
    if named and described is None:
        return None
    first = re.split(r"\[|\n", answer.strip(), maxsplit=1)[0].strip().rstrip(".!").strip()
    if first and names(first) == [first] and first.casefold() not in STOPWORDS:
        return first
    return described.group("who") if described else None


def _owns(pronoun: str, after: str) -> bool:
    """The pronoun says whose: "his", or "her" before a noun ("her bear", "her old sword"), not before a word that
    goes with a verb ("meet her first", "bring her back", "give her the map")."""
    if pronoun.casefold() == "his":
        return True
    if pronoun.casefold() != "her" or not (m := _NEXT_WORDS.match(after)):
        return False
    first, second = m.group(1).casefold(), (m.group(2) or "").casefold()
    return is_noun(first) or bool(second) and _adjective(first) and is_noun(second)


def _adjective(word: str) -> bool:
    from lemminflect import getAllLemmas

    kinds = getAllLemmas(word.casefold())
    return "ADJ" in kinds and "ADV" not in kinds


def session_mentions(question: str) -> tuple[str, ...]:
    """ "session 5", "episode 12", as written: what a follow-up carries over from an earlier question."""
    return tuple(m.group(0) for m in _SESSION.finditer(question))


def sessions_named(question: str) -> tuple[float, ...]:
    """The sessions a question asks about by number ("What happened in session 5?", "Session 5 recap")."""
    return tuple(float(m.group(1)) for m in _IN_SESSION.finditer(question))


def story_order(question: str) -> StoryOrder | None:
    """What the question says about story order, or None."""
    if m := _BETWEEN.search(question):
        low, high = sorted((float(m.group(1)), float(m.group(2))))
        return StoryOrder("between", low, high)
    if _LAST.search(question):
        return StoryOrder("last")
    if m := _SINCE.search(question):
        return StoryOrder("since", float(m.group(1)) + (0.5 if m.group(0).lower().startswith("after") else 0))
    if m := _BEFORE.search(question):
        return StoryOrder("before", place=m.group(1).strip())
    return None
