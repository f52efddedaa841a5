"""Who did it: a "who" question's short answer is the one who did what the question asks about.

"Who gave the party the quest?" is not answered by any name in a sentence about the quest: "The party was hired
to go into Kraghammer seeking Lady Kima" names the one they seek, not the one who gave it. So a "who" lead needs a
sentence that says the question's verb, in any of its forms ("gave", "gives", "given"; "hired", "hires"), and
prefers the name that does it in the passive ("hired *by* their friend Allura Vysoren"). Without the verb the
answer still quotes the notes, with no name put first. Private to the extractive backend.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rag.names import AUXILIARIES, STOPWORDS

# Past tenses and participles that no suffix rule finds, with the verbs players ask "who …?" about most.
_IRREGULAR_FORMS = """
give gave given | take took taken | find found | meet met | buy bought | bring brought | fight fought |
steal stole stolen | leave left | send sent | sell sold | hold held | lead led | make made | say said |
see saw seen | get got gotten | go went gone | come came | know knew known | think thought | teach taught |
catch caught | keep kept | lose lost | pay paid | build built | speak spoke spoken | write wrote written |
eat ate eaten | become became | begin began begun | break broke broken | choose chose chosen |
drink drank drunk | drive drove driven | fall fell fallen | feel felt | fly flew flown | forget forgot forgotten |
hide hid hidden | ride rode ridden | rise rose risen | shoot shot | sing sang sung | sit sat | sleep slept |
stand stood | strike struck | swear swore sworn | throw threw thrown | wake woke woken | wear wore worn |
bite bit bitten | blow blew blown | draw drew drawn | freeze froze frozen | grow grew grown | hang hung |
hear heard | seek sought | slay slew slain | win won | run ran | tell told | lend lent |
bind bound | dig dug | feed fed | flee fled | forgive forgave forgiven | shake shook shaken | sink sank sunk |
spend spent | tear tore torn | wind wound
"""
_BASE = {form: line.split()[0] for line in _IRREGULAR_FORMS.split("|") for form in line.split()}
# Words between "who" and its verb; possessive (*+), so "Who else was…" never takes "else" for the verb
_ADVERBS = r"(?:(?:first|else|really|actually|exactly|ever|also|never|finally|originally|eventually|just|still)\s+)*+"
# "Who gave …", "Who first gave …" (the verb after any adverb)
_SUBJECT_QUESTION = re.compile(rf"^\W*who\s+{_ADVERBS}(?!{AUXILIARIES}\b|'s\b|’s\b)([a-z]+)\b", re.I)
# "Who did Locke marry?"; never "Who was really behind…" (is/was ask who someone is, not what they did)
_OBJECT_QUESTION = re.compile(r"^\W*whom?\s+(?:did|does|do|has|have|had|will|would|can|could)\s+(.+?)(?:[?.!]|$)", re.I)
_PREPOSITION = re.compile(r"\b(?:in|at|on|to|from|with|for|after|before|during|about|into|when|while)\b", re.I)
_WORD = re.compile(r"[A-Za-z][a-z'’]*")
# "hired by their friend Arcanist Allura Vysoren": the name after "by" did it
_BY = re.compile(r"\bby\s+(?:(?:the|their|his|her|our|its|a|an)\s+)?(?:[a-z][\w'’-]*\s+){0,2}$")


@lru_cache(maxsize=65536)
def base(word: str) -> str:
    """A verb's form for matching: "gave"/"gives"/"given" → "giv", "hired" → "hir", "married" → "marri"."""
    word = word.casefold().replace("’", "'")
    if word in _BASE:
        word = _BASE[word]
    else:
        for suffix in ("ing", "eth", "ies", "ied", "es", "ed", "s"):  # "knoweth": old tales
            if len(word) > len(suffix) + 2 and word.endswith(suffix):
                word = word[: -len(suffix)] + ("i" if suffix in ("ies", "ied") else "")
                break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":  # "planned" → "plan", "kill" → "kil"
        word = word[:-1]
    return (word[:-1] + "i" if word.endswith("y") else word).removesuffix("e")


@lru_cache(maxsize=256)
def asked_verbs(question: str) -> frozenset[str]:
    """The verb(s) a "who" question asks about, by ``base``: "Who gave…" → {give}; "Who did Locke marry?" → the
    lower-case words after its subject up to a preposition ({marri}); none for "Who is/was…?"."""
    m = _SUBJECT_QUESTION.match(question)
    if m:
        return frozenset({base(m.group(1))})
    m = _OBJECT_QUESTION.match(question)
    if not m:
        return frozenset()
    clause = _PREPOSITION.split(m.group(1), maxsplit=1)[0]
    return frozenset(base(w) for w in _WORD.findall(clause) if w.islower() and w not in STOPWORDS and len(w) > 2)


def says_asked_verb(question: str, sentence: str) -> bool:
    """The sentence says what the "who" question asks about (true when the question asks no verb). Called for every
    sentence of every candidate (the answerer's pick scores a typed answer), hence the caches above."""
    verbs = asked_verbs(question)
    return not verbs or bool(verbs & {base(w) for w in _WORD.findall(sentence)})


def by_agent_first(names: list[str], sentence: str) -> list[str]:
    """The names, the one that does it in the passive ("… by their friend Allura") first."""
    return sorted(names, key=lambda n: not (sentence.find(n) > 0 and _BY.search(sentence[: sentence.find(n)])))
