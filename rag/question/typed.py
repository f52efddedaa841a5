"""How a question was typed, read as if asked straight: a request or chat around it ("Can you tell me who gave us
the map?", "…, thanks!"), an embedded question's word order ("Remind me where Kima was held"), a question word's
contraction ("Where'd", "whats", "didn't") or a letter off ("wat"), a cleft ("Who was it that…?"), a word of
emphasis ("who even is…"). A chat box gets questions typed every one of these ways; read as typed, each searched for
its frame's words ("please" found Clarota's "And please understand…") or lost its kind. Capitals that say nothing
(caps lock) and a phone's curled marks are read the same way. ``read_question`` reads every question through
``as_asked`` first.
"""

from __future__ import annotations

import re

from rag.names import AUXILIARIES, AUXILIARY_WORDS, STOPWORDS, is_a_word, one_letter_away
from rag.question.kinds import ASKING, WH_WORDS

# A request or a word of chat around a question asks the question: "Can you tell me who gave us the map?",
# "Remind me where Kima was held", "Do you remember when we met Osiris?", "So who gave us the map?"
_CHAT = r"(?:so|ok|okay|hey|hi|oh|um+|uh+|hmm+|well|right|wait|btw|quick question|question|please)\b[\s,:;!.-]*"
_REQUEST = (
    r"(?:(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?(?:tell|remind|show)\s+(?:me|us)"
    r"|(?:do|does)\s+(?:you|u|anyone|anybody)\s+(?:know|remember|recall)"
    r"|(?:please\s+)?(?:tell|remind|show)\s+(?:me|us)"
    r"|i\s+(?:forgot|forget|wonder|(?:can't|cannot|don't|do not)\s+(?:remember|recall))"
    r")(?:\s+again)?\b[\s,:;-]*"
)
_FRAMED = re.compile(rf"^\W*(?:{_CHAT})*(?:{_REQUEST})?(?=(?:{ASKING})\b)", re.I)
# "Who gave us the map, thanks!", "…please", "…lol": words of chat after the question ask nothing. Typed in lower
# case (a capital is a name: "Who is Ty?"), and thanks only after a mark ("Who said thank you?" asks who did)
_CHAT_AFTER = re.compile(
    r"(?:\s*[,;:!.?-]\s*(?:[Pp]lease|[Tt]hanks|[Tt]hank\s+you|thx|ty|:\)|:p)|\s+(?:please|pls|plz|lol|lmao|haha+|btw|xd|:\)|:p))+"
    r"[\s!.?]*$"
)
# "Who was it that gave us the map?" asks "Who gave us the map?"
_CLEFT = re.compile(r"^(\W*who)\s+(?:was|is)\s+it\s+(?:that|who)\s+(?=[a-z])", re.I)
_EMBEDDED = re.compile(rf"(\W*(?:{ASKING}|whom)(?:\s+(?:much|many|long|often|old|far))?)\s+(.+)", re.I)
_ASKS_WHICH = re.compile(r"\W*(?:which|whose|what|how\s+(?:much|many))", re.I)  # a noun may come with it


def _straight(clause: str) -> str:
    """An embedded question in a question's word order, the auxiliary before its subject: "where Kima was held" →
    "where was Kima held", "when we first met Clarota" → "when did we first meet Clarota", "what Vex wants" → "what
    does Vex want". One whose question word is its subject ("who gave us the map") is in that order already, and one
    whose verb is not found (lemminflect's past or third-person form) is left as it is."""
    from lemminflect import getAllInflections, getAllLemmas

    m = _EMBEDDED.match(clause)
    if not m:
        return clause
    wh, said = m.group(1), m.group(2).split()
    if _ASKS_WHICH.fullmatch(wh.strip()) and len(said) > 2 and said[0].islower() and said[0] not in STOPWORDS:
        wh, said = f"{wh} {said[0]}", said[1:]  # "which bear Vex tamed", "how many duergar we killed"
    first = said[0].casefold()
    if first in AUXILIARY_WORDS or said[0].islower() and getAllLemmas(first).get("VERB"):
        return clause  # "who gave us the map", "where was Kima held"; a name is no verb ("what Vex wants")
    for i, word in enumerate(said[1:], 1):
        bare = word.casefold().strip(",.;:!?")
        if bare in AUXILIARY_WORDS:
            return " ".join([wh, bare, *said[:i], *said[i + 1 :]])
        for lemma in getAllLemmas(bare).get("VERB", ())[:1]:
            forms = getAllInflections(lemma, upos="VERB")
            for tag, auxiliary in (("VBD", "did"), ("VBZ", "does")):
                if bare in forms.get(tag, ()) and bare != lemma:
                    return " ".join([wh, auxiliary, *said[:i], word.casefold().replace(bare, lemma), *said[i + 1 :]])
    return clause


# "Where'd we find the map?" asks "Where did we find the map?"; "'d" before these is "would" or "had" ("Who'd have
# known?"), and a question word's "'s" is read by the patterns as it is ("Who's Kima?")
_CONTRACTED_ASKING = re.compile(
    rf"\b({ASKING})'(?:(d)(?!\s+(?:have|had|be|been|like|rather|love|want)\b)|(re|ve|ll))\b",
    re.I,
)
_SPELT_OUT = {"d": "did", "re": "are", "ve": "have", "ll": "will"}
# "Who didn't we trust?", "When wasn't Grog with us?": an auxiliary's "n't" is the auxiliary and "not", which the
# patterns read as they read "Who did we not trust?" (not the verb "didn", asked of whoever did it)
_NOT = re.compile(rf"\b(?:({AUXILIARIES})n|(wo)n|(ca)n)['’]t\b", re.I)
_NOT_SPELT_OUT = {"wo": "will", "ca": "can"}


def _not_spelt_out(m: re.Match) -> str:
    if m.group(1):
        return f"{m.group(1)} not"
    typed = m.group(2) or m.group(3)
    auxiliary = _NOT_SPELT_OUT[typed.casefold()]
    return f"{auxiliary.capitalize() if typed[0].isupper() else auxiliary} not"


# "whos", "whats", "wheres": a question word's "'s" typed without its apostrophe, as a chat often is
_NO_APOSTROPHE = re.compile(rf"\b({'|'.join(WH_WORDS)})s\b", re.I)


# "wat happened in session 3", "hw did we get here": a question word typed a letter off, as a chat often is
_FIRST_WORD = re.compile(rf"^(\W*(?:{_CHAT})*)([^\W\d_]+)\b", re.I)
_ASKING_WORDS = re.compile(rf"\b(?:{ASKING}|whom)\b", re.I)
# "who even is clarota", "What exactly did Nostoc offer?": a word of emphasis after the question word says how the
# player asks, not what
_EMPHASIS = re.compile(rf"^(\W*(?:{ASKING}))\s+(?:even|exactly|actually|really|precisely)\s+(?=\w)", re.I)


def _respelt_asking(question: str) -> str:
    """The question with its first word read as the question word it misspells: a word no dictionary knows, one
    letter from one question word only ("wat" → "what", "hw" → "how"; not "wher", which may be "where" or "when"),
    in a question with no question word of its own. Otherwise the question as typed."""
    m = _FIRST_WORD.match(question)
    if not m or _ASKING_WORDS.search(question):
        return question
    typed = m.group(2)
    word = typed.casefold()
    if word in STOPWORDS or is_a_word(word):
        return question
    near = set(WH_WORDS) & one_letter_away(word)
    if len(near) != 1:
        return question
    (asking,) = near
    asking = asking.capitalize() if typed[0].isupper() else asking
    return f"{m.group(1)}{asking}{question[m.end() :]}"


def _spelt_out(question: str) -> str:
    question = _NO_APOSTROPHE.sub(r"\1's", question)
    question = _NOT.sub(_not_spelt_out, question)
    return _CONTRACTED_ASKING.sub(
        lambda m: f"{m.group(1)} {_SPELT_OUT[(m.group(2) or m.group(3)).casefold()]}", question
    )


def unframed(question: str) -> str:
    """The question a request or a word of chat frames, as asked straight: "Can you tell me who gave us the map?"
    and "so who gave us the map?" → "Who gave us the map?", "Remind me where Kima was held" → "Where was Kima
    held?", "Who was it that gave us the map?" → "Who gave us the map?"; a question word's contraction and an
    auxiliary's "n't" spelt out ("Where'd we find it?" → "Where did we find it?"), a misspelt question word read
    ("wat happened…" → "what happened…"), words of emphasis after it ("who even is…") and of chat after the
    question ("…, thanks!") left out. A question with capitals keeps them and opens with one; one typed without any
    stays so (``typed_without_capitals``). The question itself when nothing frames it."""
    question = _spelt_out(question)
    asked = _respelt_asking(_CHAT_AFTER.sub("", question))
    frame = _FRAMED.match(asked)
    asked = _straight(asked[frame.end() :]) if frame and frame.end() else asked
    asked = _EMPHASIS.sub(r"\1 ", _CLEFT.sub(r"\1 ", asked))
    if asked == question:
        return question
    asked = asked.rstrip(" .!") + ("" if asked.rstrip().endswith("?") else "?")
    return asked[:1].upper() + asked[1:] if not question.islower() else asked


# A phone or a word processor curls what a keyboard types straight: "Who’s Scanlan?" is "Who's Scanlan?"
_KEYBOARD = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "“": '"', "”": '"'})
_LETTERS = re.compile(r"[^\W\d_]+")


def case_read(text: str) -> str:
    """The text in lower case when its capitals say nothing of what it names: typed all in capitals (caps lock)
    or with every word capitalised, small words too ("Who Gave Us The Map?"). Read as typed, such a question
    names "GAVE US THE MAP" and is refused for it; in lower case it is read as a chat typed without capitals is
    (``typed_without_capitals``), its names known by how the notes write them. Otherwise the text as typed."""
    said = _LETTERS.findall(text)
    if text.isupper() and len(said) > 1:
        return text.lower()
    if all(w[0].isupper() for w in said) and any(w.casefold() in STOPWORDS for w in said[1:]):
        return text.lower()
    return text


def as_asked(text: str) -> str:
    """The question as if typed straight at a keyboard: its marks uncurled, its capitals read only where they say
    something (``case_read``), its frame left out (``unframed``)."""
    return unframed(case_read(text.translate(_KEYBOARD)))
