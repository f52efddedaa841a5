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

from rag.names import AUXILIARIES, STOPWORDS, norm

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
# Notes name the one who runs, owns, leads or rules a place by the role: "The tavern owner, Adra, …", "Captain
# Zanros of the Sea Wyrm", "the ruler of Emberhold". Such a word says the verb (by ``base``).
_ROLE_WORDS = """
run: owner proprietor keeper innkeeper barkeep barkeeper bartender manager boss landlord landlady |
own: owner proprietor | lead: leader head chief captain commander boss | rule: ruler king queen monarch lord |
command: commander captain general | govern: governor mayor | guard: guard guardian warden |
teach: teacher mentor master | serve: servant | found: founder
"""
# "Who gave us the quest?": notes say who hired, sent or tasked the party ("sent down on a mission by the arcanist
# Allura Vysoren"), seldom that someone "gave" it
_WORK = re.compile(r"\b(?:quests?|missions?|jobs?|tasks?|contracts?|bount(?:y|ies)|errands?)\b", re.I)
_GIVES_WORK = "hire send task commission employ"
# "Who gave us the map?": notes also say a thing was provided, offered or granted ("a map provided by Clarota")
_GIVES = "provide offer grant"
_ROLES = {
    verb.strip(): frozenset(words.split()) for verb, words in (entry.split(":") for entry in _ROLE_WORDS.split("|"))
}
# "Who is the king of Kraghammer?" asks for the one the notes give that role ("King Murghol", "Adra, the owner"),
# never any name in a sentence that mentions the role ("Scanlan suggests to the king…")
_ROLE_QUESTION = re.compile(
    r"^\W*who(?:['’]s|\s+(?:is|was|are|were))\s+(?:the|their|our|its|his|her)\s+([a-z]+)\b(?!['’])", re.I
)
_ROLE_NAMES = frozenset().union(*_ROLES.values())
# "Whose skeleton…?", "Whose ship did we take?": the noun whose owner is asked
_WHOSE = re.compile(r"^\W*whose\s+([a-z][\w'-]*)", re.I)
# Words between "who" and its verb; possessive (*+), so "Who else was…" never takes "else" for the verb
_ADVERBS = r"(?:(?:first|else|really|actually|exactly|ever|also|never|finally|originally|eventually|just|still)\s+)*+"
# "Who gave …", "Who first gave …" (the verb after any adverb)
_SUBJECT_QUESTION = re.compile(rf"^\W*who\s+{_ADVERBS}(?!{AUXILIARIES}\b|'s\b|’s\b)([a-z]+)\b", re.I)
# "Who did Locke marry?"; never "Who was really behind…" (is/was ask who someone is, not what they did)
_OBJECT_QUESTION = re.compile(r"^\W*whom?\s+(?:did|does|do|has|have|had|will|would|can|could)\s+(.+?)(?:[?.!]|$)", re.I)
_PREPOSITION = re.compile(r"\b(?:in|at|on|of|to|from|with|for|after|before|during|about|into|when|while)\b", re.I)
_WORD = re.compile(r"[A-Za-z][a-z'’]*")
# A noun after its determiner is whom the question is about, never its verb ("Who did the cat meet…?")
_DETERMINED = re.compile(r"\b(?:the|a|an|his|her|their|its|our|my|your)\s+[a-z][\w'’-]*")
# "was hired", "has been sent", "got hired": the subject is not the one who did it
_PASSIVE = re.compile(r"\b(?:was|were|is|are|be|been|being|got|gets|get)\s+(?:[a-z]+ly\s+)?$", re.I)
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
    role = asked_role(question)
    if role:
        return frozenset({base(role)})
    verbs = _verbs(question)
    if base("give") in verbs:
        return verbs | {base(v) for v in (_GIVES_WORK if _WORK.search(question) else _GIVES).split()}
    return verbs


def asked_role(question: str) -> str | None:
    """The role a "Who is the <role>…?" question asks for by its word ("king"), or None."""
    m = _ROLE_QUESTION.match(question)
    return m.group(1).casefold() if m and m.group(1).casefold() in _ROLE_NAMES else None


def asked_owner_of(question: str) -> str | None:
    """The thing a "Whose …?" question asks the owner of ("skeleton"), or None."""
    m = _WHOSE.match(question)
    return m.group(1).casefold() if m else None


def given_as_owner(thing: str, name: str, sentence: str) -> bool:
    """The sentence gives the name as the thing's owner: "Molly's coat", "the coat of Molly", "the coat belongs to
    Molly". Any other name in a sentence about the thing is a guess: "Whose skeleton was Nott looting?" was
    answered "Caleb." from "Nott asks Caleb to identify the bracelets she found on the skeleton"."""
    t, n = re.escape(thing.removesuffix("s")), re.escape(name)
    owned = rf"{n}(?:'s|’s|s'|’)\s+(?:[\w-]+\s+){{0,2}}?{t}s?\b"
    of = rf"\b{t}s?\s+(?:of|belonging to|that belongs? to|which belongs? to|belongs? to|owned by)\s+(?:the\s+)?{n}"
    return bool(re.search(f"{owned}|{of}", sentence, re.I))


def given_role(role: str, name: str, sentence: str) -> bool:
    """The sentence gives the name that role: "King Murghol", "the captain of the guard, Jarett", "Adra, the tavern
    owner"."""
    if norm(name).split()[:1] == [role]:
        return True
    r, n = re.escape(role), re.escape(name)
    return bool(
        re.search(
            rf"\b{r}s?(?:\s+of\s+(?:the\s+)?\w+)?,?\s+(?:(?:named|called)\s+)?{n}|{n},?\s+(?:the\s+|a\s+)?(?:\w+\s+)?{r}\b",
            sentence,
            re.I,
        )
    )


def _verbs(question: str) -> frozenset[str]:
    m = _SUBJECT_QUESTION.match(question)
    if m:
        return frozenset({base(m.group(1))})
    m = _OBJECT_QUESTION.match(question)
    if not m:
        return frozenset()
    clause = _PREPOSITION.split(m.group(1), maxsplit=1)[0]
    # "the cat meet" → "meet"; but "Who had a spite…" asks "had", and the noun is all that is left to look for
    said = [_WORD.findall(text) for text in (_DETERMINED.sub(" ", clause), clause)]
    content = ([base(w) for w in ws if w.islower() and w not in STOPWORDS and len(w) > 2] for ws in said)
    return frozenset(next((c for c in content if c), ()))


def says_asked_verb(question: str, sentence: str) -> bool:
    """The sentence says what the "who" question asks about (true when the question asks no verb). Called for every
    sentence of every candidate (the answerer's pick scores a typed answer), hence the caches above."""
    verbs = asked_verbs(question)
    if not verbs:
        return True
    said = {w.casefold() for w in _WORD.findall(sentence)}
    return bool(verbs & {base(w) for w in said}) or any(_ROLES.get(v, frozenset()) & said for v in verbs)


def role_word(question: str, sentence: str) -> str | None:
    """The role word by which the sentence says the question's verb ("owner" for "Who runs…?"), if it does."""
    said = {w.casefold() for w in _WORD.findall(sentence)}
    return next((w for v in sorted(asked_verbs(question)) for w in sorted(_ROLES.get(v, ())) if w in said), None)


def doers(names: list[str], sentence: str, question: str) -> list[str]:
    """Of the sentence's ``names``, those that may do what the "who" question asks, best first.

    - By a role word: the name next to it ("The tavern owner, Adra, …", "Adra, the owner").
    - In the passive, the name after "by" ("hired by their friend Allura Vysoren"); a passive without one names
      no doer: in "The party was hired to go into Kraghammer seeking Lady Kima", Kima is whom they seek.
    - "Who gave…?" asks for the subject: a name before the verb, the nearest first; "Who did Locke marry?" for
      the object: a name after it first.
    With no verb asked ("Who is…?") every name may answer, in the sentence's order; a role asked by its word
    ("Who is the king…?") only a name given that role."""
    if asked := asked_role(question):
        return [n for n in names if given_role(asked, n, sentence)]
    role = role_word(question, sentence)
    if role:
        at = re.search(rf"\b{role}\b", sentence, re.I)
        near = [n for n in names if abs(sentence.find(n) - at.start()) <= len(role) + 20]
        if near:
            return near + [n for n in names if n not in near]
    agents = [n for n in names if sentence.find(n) > 0 and _BY.search(sentence[: sentence.find(n)])]
    verbs = asked_verbs(question)
    said = next((m for m in _WORD.finditer(sentence) if base(m.group(0)) in verbs), None)
    if said is None:
        return agents + [n for n in names if n not in agents]
    if not _SUBJECT_QUESTION.match(question):
        after = [n for n in names if sentence.find(n) > said.start()]
        return after + [n for n in names if n not in after]
    if _PASSIVE.search(sentence[: said.start()]):
        return agents
    before = sorted((n for n in names if 0 <= sentence.find(n) < said.start()), key=lambda n: -sentence.find(n))
    return agents + [n for n in before if n not in agents]
