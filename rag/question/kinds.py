"""What a question asks for: a name, a place, "which session", an amount, what someone is…

A player asks "Who gave us the map?" and wants a name first, "In which session…" and wants "Session 6", "How
much…" and wants an amount, "Who is Clarota?" what the notes say Clarota is. The answerer leads with that short
answer; the search and the reranker read whether a question asks who or what something is (``asks_definition``:
a page about it may answer) or when it was first seen.
"""

from __future__ import annotations

import re

from rag.names import AUXILIARIES, NAME_PARTICLES, STOPWORDS, plural, typed_without_capitals

# The players' own group as questions name it ("What did the party do last session?", "Who hired the party?"): notes
# call it by its name ("Vox Machina…"), so a question naming it names no one in particular
PARTY_WORDS = ("party", "group")
_US = rf"(?:we|they|the\s+(?:{'|'.join(PARTY_WORDS)}))"

# "Who is Undril Silvertusk?", "What was the Soulmonger?": the question names its subject and asks what it is,
# so the short answer is how the notes describe it ("a half Ork cleric"), never another name. Capitalised only:
# "Who is the dwarf with the hammer?" asks for a name. Players also ask "Who's Luzo again?", "Who is Luzo
# really?" and "Who or what is Luzo?": a word after the name, or a second question word, asks the same.
_TAIL = r"(?:again|anyway|really|exactly|actually)"
_WHO_IS = r"(?i:who|what)(?:\s+(?i:or)\s+(?i:who|what))?"
# A name may hold a lower-case particle ("Valentina von Zapp", "Vraxen de Vrait") and open with an abbreviated
# title ("Prof. Mink", "St. Andral"): its period is no question's end when a capitalised word follows.
_PARTICLES = f"(?:{'|'.join(sorted(NAME_PARTICLES))})"
_NAME_WORD = r"[A-Z][\w'’-]*(?:\.(?=\s+[A-Z]))?"
_IDENTITY = re.compile(
    rf"^\W*{_WHO_IS}(?:['’]s|\s+(?i:is|was|are|were))\s+"
    rf"((?i:the\s+)?{_NAME_WORD}(?:\s+(?:{_PARTICLES}\s+)*{_NAME_WORD})*)(?:\s+(?i:{_TAIL}))?\W*$"
)
# Players type in lower case too: "who is clarota" asks what Clarota is as surely. Bare words only ("who is the
# dwarf with the hammer" asks for a name), none a small word ("who is he", "who was there")
_LOWER_IDENTITY = re.compile(
    r"^\W*who(?:\s+or\s+what)?(?:['’]s|\s+is|\s+was|\s+are|\s+were)\s+([a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,2})\W*$"
)
_AGAIN = re.compile(rf"\s+{_TAIL}$")
# "What happened in session 5?", "What did we do last session?": the whole question asks what one session held, so
# its answer is that session's recap (rag.campaign.recap), never the sentences that best match "what happened"
_RECAP = re.compile(
    r"^\W*(?:so\s+)?(?:what\s+(?:happened|happens|went\s+(?:on|down)|did\s+"
    rf"{_US}\s+do)"
    r"|(?:give\s+(?:me|us)\s+)?(?:a\s+)?(?:recap|summary)(?:\s+of)?|summari[sz]e)"
    r"\s+(?:(?:in|during|at|of|on)\s+)?(?:the\s+)?(?:(?:last|previous|latest)\s+(?:session|game|time)|session\s+\d+(?:\.\d+)?)"
    r"(?:\s+please)?\W*$",
    re.I,
)
# "Where did we leave off?", "How did last session end?": asked at the start of every game, it wants how the last
# session (or the one named) ended, so its answer is that session's last story lines (rag.campaign.recap)
_ONE_SESSION = r"(?:the\s+)?(?:(?:last|previous|latest)\s+(?:session|game|time)|session\s+\d+(?:\.\d+)?)"
# "Session 3 recap", "last session summary": the session named first
_RECAP_AFTER = re.compile(rf"^\W*{_ONE_SESSION}(?:['’]s)?\s+(?:recap|summary)(?:\s+please)?\W*$", re.I)
_ENDING = re.compile(
    rf"^\W*(?:so\s+)?(?:where\s+(?:did|do|had)\s+{_US}\s+"
    r"(?:leave\s+off|left\s+off|stop|stopped|end|end\s+up|ended|finish|finished)"
    rf"(?:\s+(?:in|at|on|during)?\s*{_ONE_SESSION})?"
    rf"|where\s+(?:were|are)\s+we(?:\s+now)?|how\s+did\s+{_ONE_SESSION}\s+end|what\s+happened\s+at\s+the\s+end\s+of\s+{_ONE_SESSION})"
    r"\W*$",
    re.I,
)
# A session is a past evening: "When did we…", "When was…", "When had…" ask which one. "When does the town meet?",
# "When is Morgan's birthday?", "When will the game end?" ask in the present or future tense, for a time of day,
# week or year that a session number does not give
_PAST = r"(?!(?:does|do|is|are|will)\b)" + AUXILIARIES
# "What else was lying by the river?": "else" is no thing (neither the kind's nor the focus's noun); it asks for
# anything besides
_NO_THING = r"else\b"
# Where "…'s name" ends a question: its end, or a clause set off after it that only says more about who is meant
# ("What was the lead rider's name, the one with the scar?", "…'s name (the blacksmith)?"), after a word of
# emphasis as "Who's Luzo again?" has (``_TAIL``)
NAME_ENDS = rf"(?:\s+{_TAIL})?(?:\W*$|\s*[,;(—–]|\s+-\s)"
_KINDS = (  # first match wins (after "identity": ``identity_subject``)
    ("recap", _RECAP),
    ("recap", _RECAP_AFTER),
    ("recap", _ENDING),
    ("session", re.compile(rf"^\W*when\s+{_PAST}\b|\b(which|what)\s+(session|episode|game)\b", re.I)),
    ("age", re.compile(r"\bhow old\b", re.I)),
    ("amount", re.compile(r"\bhow (much|many)\b|\b(prices?|cost(?:s|ing)?|fees?)\b", re.I)),
    ("year", re.compile(r"\b(what|which)\s+(\w+\s+)?year\b", re.I)),
    ("colour", re.compile(r"\b(what|which)\s+colou?r\b", re.I)),
    ("name", re.compile(r"\b(name|title) of\b|\bwhat name\b|\bwhat did [\w' ]+? name\b(?!\W*$)|\bcalled\b", re.I)),
    ("name", re.compile(rf"^\W*what(?:['’]s|\s+is|\s+was|\s+were)\s.*['’]s\s+(?:real\s+)?name{NAME_ENDS}", re.I)),
    ("person", re.compile(r"^\W*(who|whom|whose)\b|^\W*(which|what)\s+(person|npc|character)\b", re.I)),
    ("place", re.compile(r"^\W*where\b|\b(what|which)\s+(place|city|town|village|island)\b", re.I)),
    (
        "thing",
        re.compile(
            rf"^\W*(what|which)\s+(?!{AUXILIARIES}\b|{_NO_THING})([a-z][\w'-]*)(\s+[a-z][\w'-]*)?\s+{AUXILIARIES}\b",
            re.I,
        ),
    ),
)
KINDS = (
    "recap",
    "session",
    "identity",
    "age",
    "amount",
    "money",
    "year",
    "colour",
    "name",
    "person",
    "place",
    "thing",
    "open",
)
_FOCUS = re.compile(  # the noun a question asks about: "What *treasure* did…", "the *name* of…", "the 'best friend'"
    rf"^\W*(?:what|which|who)\s+(?:{AUXILIARIES}\s+)?(?:the\s+)?(?!{_NO_THING})['\"‘“]?([a-z][\w'-]*(?:\s+[a-z][\w'-]*)?)['\"’”]?"
    rf"(?=\s+(?:of|that|who|{AUXILIARIES})\b)",
    re.I,
)
# Words of money changing hands, in any form: what a price question asks, and what says a sum in the notes. Paying,
# costing and charging name a price wherever a question says them; the others only after "how much" ("How many
# potions did we buy?" counts potions)
_PAYS = r"pa(?:y|ys|id|ying)|charg(?:e[sd]?|ing)|cost(?:s|ing)?"
PAYING = (
    rf"{_PAYS}|owe[sd]?|owing|sold|sell(?:s|ing)?|bought|buy(?:s|ing)?|earn(?:s|ed|ing)?|lent|lend(?:s|ing)?|"
    r"borrow(?:s|ed|ing)?"
)
_ASKS_MONEY = re.compile(  # any form of the word: "what was he paying us", "how much are they charging"
    rf"\b(?:{_PAYS}|prices?|fees?|spen(?:d|ds|t|ding)|worth|gold|coins?|money)\b|\bhow\s+much\b.*\b(?:{PAYING}|debts?)\b",
    re.I,
)
# "Who is Ras Nsi?", "What are the Harpers?", "Who's Artus?"; not "What is the name of…" / "What year is it".
_DEFINITION = re.compile(
    r"^\s*(?:who|what)(?:\s+or\s+(?:who|what))?(?:'s|’s|\s+(?:is|are|was|were))\s+(?!the\s+(?:name|year)\b)", re.I
)
MAX_DEFINITION_WORDS = 6  # longer "who is the one that…" questions ask about events
# What the learned reranker reads of a question's form: its question words, and whether it asks for a number
WH_WORDS = ("who", "what", "when", "where", "why", "how", "which")
_ASKS_NUMBER = re.compile(r"\bhow (much|many|long|old|far)\b|\b(price|cost|year)\b", re.I)


# "What reason did Victor give for tormenting Stella?", "What purpose did the ritual serve?": a noun for why or to
# what end asks what "Why…?" asks. Its answer is an explanation, never a name or a quoted item (a "thing" lead
# named the Burgomaster "Baron" from the passage that told of Victor)
_WHY_NOUN_WORDS = """reason reasons purpose cause motive motives motivation point goal aim intention result outcome
effect consequence consequences meaning significance excuse explanation justification"""
WHY_NOUNS = frozenset(_WHY_NOUN_WORDS.split())


def answer_kind(question: str) -> str:
    """One of ``KINDS``: what the short answer must be ("open": none)."""
    if identity_subject(question):
        return "identity"
    kind = next((k for k, pattern in _KINDS if pattern.search(question)), "open")
    if kind == "thing" and (asked := focus(question)) and asked.split()[-1] in WHY_NOUNS:
        return "open"
    return "money" if kind == "amount" and _ASKS_MONEY.search(question) else kind


def focus(question: str) -> str:
    """The noun the question asks about, case-folded ("treasure", "name"); "" when none or a name."""
    m = _FOCUS.search(question)
    found = m.group(1).strip("'\"’” ") if m else ""
    if not found or found[0].isupper() or found.split()[0].casefold() in STOPWORDS:  # "What did Clarota do"
        return ""
    return found.casefold()


def identity_subject(question: str) -> str | None:
    """The name an identity question asks about ("Who is Undril Silvertusk?" → "Undril Silvertusk"), or None."""
    m = _IDENTITY.match(question.strip())
    if m:
        return re.sub(r"^the\s+", "", m.group(1), flags=re.I)
    m = _LOWER_IDENTITY.match(question.strip()) if typed_without_capitals(question) else None
    subject = _AGAIN.sub("", m.group(1)) if m else ""
    if not subject or any(w in STOPWORDS for w in subject.split()):
        return None
    return " ".join(w[:1].upper() + w[1:] for w in subject.split())  # as the notes write a name


def asks_definition(question: str) -> bool:
    """A short question about who or what something is, rather than about what happened."""
    return bool(_DEFINITION.search(question)) and len(question.split()) <= MAX_DEFINITION_WORDS


def question_words(question: str) -> frozenset[str]:
    """The question words it uses ("who", "when"…), anywhere in it."""
    lowered = question.casefold()
    return frozenset(w for w in WH_WORDS if re.search(rf"\b{w}\b", lowered))


# What a question asks is read from the question proper (``question_proper``); the search reads all of it.
# - Players set the scene first: "When Nox asked the knight how he could be undead, what did he say?", "According
#   to the Plank King, what is the only law in Darktow?", "Wait, who's Regis again?". The question is what follows.
# - Players ask two questions in one: "Who is Pumat Sol, and how can there be several of him?", "Where did Beau's
#   red feather come from, and is it magical?". The short answer answers the first.
# Only a part that opens as a question counts as one: "When did we…", never "When we were in Emon".
_OPENS_QUESTION = re.compile(
    rf"^\W*(?:(?:who|whose|what|which|how)\b|(?:when|where|why)\s+{AUXILIARIES}\b|{AUXILIARIES}\b)", re.I
)
ASKING = "|".join((*WH_WORDS, "whose"))  # a question word, as a regex alternation
_SCENE_THEN_QUESTION = re.compile(rf"[,:;]\s*(?=(?:{ASKING})\b)", re.I)
_NEXT_QUESTION = re.compile(rf",\s*(?:(?:and|but|or|then)\s+)?(?=(?:{ASKING}|{AUXILIARIES})\b)", re.I)


def question_proper(question: str) -> str:
    """What the question asks, without the scene set before it or a second question after it ("When we argued
    about the fish, who stood up for them?" → "who stood up for them?"; "Who is Pumat Sol, and how…?" → "Who is
    Pumat Sol?"); the question itself when it is all one question, or when no part of it opens as one."""
    if not _OPENS_QUESTION.match(question):
        scene = _SCENE_THEN_QUESTION.search(question)
        if not scene or not _OPENS_QUESTION.match(question[scene.end() :]):
            return question
        question = question[scene.end() :]
    m = _NEXT_QUESTION.search(question)
    return question[: m.start()].rstrip() + "?" if m else question


def asks_number(question: str) -> bool:
    """It asks how much, many, long, old or far, or a price or a year (a passage with a number may answer)."""
    return bool(_ASKS_NUMBER.search(question))


# "When did we first meet Osiris?": a first-time question, answered where the notes first name Osiris
_FIRST = re.compile(r"\b(first|earliest)\b", re.IGNORECASE)
_MEETING = re.compile(
    r"\b(meet|met|see|saw|seen|encounter\w*|appear\w*|hear|heard|mention\w*|introduc\w*|show(?:s|ed)?\s+up|"
    r"run\s+into|ran\s+into|come\s+across|came\s+across|learn\w*\s+(?:of|about)|find\s+out\s+about)\b",
    re.IGNORECASE,
)
# ...and one that asks when the party met them, not when they were first named
_ASKS_MEETING = re.compile(r"\b(meet|met|encounter\w*|fight|fought|see|saw|seen|run into|ran into)\b", re.I)


# "In which sessions…", "each time", "every time", "When has the Professor blanked out on us?": it asks about
# something that happened more than once, so no one occasion answers it. "Who is in the party?", "Who were the
# prisoners?", "Who was with Kima?": it asks for everyone of a group, so no one name answers it. "When did we find
# the box, and when did we drop it off?" asks about two occasions
_SEVERAL = re.compile(
    r"\b(?:which|what)\s+(?:sessions|episodes|games|times)\b|\beach\b(?!\s+other\b)|\bevery\s+(?:time|session)\b|"
    rf"\bwhen\b.*,\s*(?:and\s+)?when\s+{AUXILIARIES}\b|"
    r"\bhow\s+often\b|^\W*when\s+(?:has|have)\b|"
    r"^\W*who\s+(?:all\b|(?:are|were)\b(?!\s+(?:we|you|they|us|them)\b)|(?:is|was)\s+(?:in(?!\s+charge)|among|part\s+of|with)\b)|"
    r"\bmembers\s+of\b",
    re.I,
)


# "Who did we invite as plus-ones?", "Who did we hire as guards?": a role the question gives in the plural
_AS_ROLES = re.compile(r"^\W*who(?:m)?\b.*\bas\s+(?:(?:our|the|his|her|their|my)\s+)?([a-z][\w-]*s)\b", re.I)


def asks_several(question: str) -> bool:
    """It asks about more than one occasion or person: one session, or one name, is no answer to it. A "who"
    question giving the role in the plural asks for everyone in it (a vault-cos-bahodge walk led "Who did we invite
    as plus-ones to the dinner?" with one name, from a sentence saying who else was invited)."""
    if _SEVERAL.search(question):
        return True
    role = _AS_ROLES.search(question)
    return bool(role) and plural(role.group(1).split("-")[-1])  # "plus-ones": its last word


_SUPPOSING = re.compile(r"\b(?:would|could|might|if|unless)\b", re.I)


def asks_supposing(question: str) -> bool:
    """It asks what would, could or might be, or what if: notes that only suppose it may answer it."""
    return bool(_SUPPOSING.search(question))


_DENYING = re.compile(r"\b(?:not|never)\b|n['’]t\b", re.I)


def asks_denial(question: str) -> bool:
    """It asks who did not, or never did ("Whom did Keyleth not trust?"): a sentence saying someone did not may
    answer it (for any other question it names who did not, ``rag.generators._who.verb_said``)."""
    return bool(_DENYING.search(question))


# "What reward did we get?", "Who betrayed us?": a player asking in the party's voice asks about the characters'
# story, which the show's announcements, the break and the questions to the cast afterwards do not tell
OUR_WORDS = frozenset({"we", "us", "our", "ours", "ourselves"})  # also counted in notes (rag.campaign.voice)
_OURS = re.compile(r"\b(?:" + "|".join(sorted(OUR_WORDS)) + r")\b", re.I)


def asks_about_us(question: str) -> bool:
    """It asks in the party's voice: about the story the players' characters lived."""
    return bool(_OURS.search(question))


# the party's voice told in the third person; a contraction with its verb ("we're" → "the party is")
_TOLD = [
    (re.compile(r"\bwe['’]re\b", re.I), "the party is"),
    (re.compile(r"\bwe['’]ve\b", re.I), "the party has"),
    (re.compile(r"\bwe['’]d\b", re.I), "the party had"),
    (re.compile(r"\bwe['’]ll\b", re.I), "the party will"),
    (re.compile(r"\b(?:our|ours)\b", re.I), "the party's"),
    (re.compile(r"\b(?:we|us|ourselves)\b", re.I), "the party"),
]


def told_of_the_party(text: str) -> str:
    """A search text in the third person, as notes that never say "we" tell it (``rag.campaign.voice``): "Who gave us
    the map?" → "Who gave the party the map?"."""
    for pattern, told in _TOLD:
        text = pattern.sub(told, text)
    return text


def asks_ending(question: str) -> bool:
    """It asks how a session ended ("Where did we leave off?"): answered by its last story lines."""
    return bool(_ENDING.search(question))


def asks_first_mention(question: str) -> bool:
    return bool(_FIRST.search(question) and _MEETING.search(question))


# "When did we last see Kima?": answered where the notes last name Kima ("last session" is a session, not this)
_LAST = re.compile(
    r"\b(?:last|latest|most\s+recently)\b(?!\s+(?:sessions?|game|episode|week|night)\b)"
    r"(?!\s+time\b(?!\s+(?:we|they|you|the\s+party|anyone)\b(?!\s+played\b)))",  # "the last time we saw Kima"
    re.I,
)


def asks_last_mention(question: str) -> bool:
    return bool(_LAST.search(question) and _MEETING.search(question)) and not asks_first_mention(question)


def asks_meeting(question: str) -> bool:
    return bool(_ASKS_MEETING.search(question))
