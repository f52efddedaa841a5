"""What a "who" question asks someone to have done: its verb ("Who *gave* us the map?"), the role it names ("Who
is the *king* of Kraghammer?"), the thing whose owner it asks ("*Whose* skeleton…?"), and whether it asks for the
doer ("Who gave…?") or for whom it was done to ("Who did Locke marry?"). A "where" question's verb is read the
same way ("Where did Finn *live*?"): the place comes from where the notes say it.

The answerer needs a sentence that says that verb, in any of its forms ("gave", "gives", "given"; "hired",
"hires"), so the verb's form for matching (``base``) and the words by which notes name a role ("The tavern
*owner*, Adra") live here too: a sentence is read with the same ``base`` as the question.
"""

from __future__ import annotations

import re
from functools import lru_cache

from rag.names import AUXILIARIES, OWNER_MARK, STOPWORDS, names, stem, words
from rag.question.kinds import PARTY_WORDS

# Notes name the one who runs, owns, leads or rules a place by the role: "The tavern owner, Adra, …", "Captain
# Zanros of the Sea Wyrm", "the ruler of Emberhold". Such a word says the verb (by ``base``).
_ROLE_WORDS = """
run: owner proprietor keeper innkeeper barkeep barkeeper bartender manager boss landlord landlady |
own: owner proprietor | lead: leader head chief captain commander boss | rule: ruler king queen monarch lord |
command: commander captain general | govern: governor mayor | guard: guard guardian warden |
teach: teacher mentor master | serve: servant | found: founder
"""
ROLES = {
    verb.strip(): frozenset(role_words.split()) for verb, role_words in (e.split(":") for e in _ROLE_WORDS.split("|"))
}
# "Who gave us the quest?": notes say who hired, sent or tasked the party ("sent down on a mission by the arcanist
# Allura Vysoren"), seldom that someone "gave" it
WORK = re.compile(r"\b(?:quests?|missions?|jobs?|tasks?|contracts?|bount(?:y|ies)|errands?)\b", re.I)
_GIVES_WORK = "hire send task commission employ"
# "Who gave us the map?": notes also say a thing was provided, offered or granted ("a map provided by Clarota")
_GIVES = "provide offer grant"
# "Who is the king of Kraghammer?", "Who is our enemy?", "Who was the halfling that Nott befriended?", "Who was that
# dwarf foreman?" ask for the one the notes call that ("King Murghol", "Adra, the owner", "a common enemy referred to
# as K'Varn"), never any name in a sentence that mentions it ("Scanlan suggests to the king…", "what Vox Machina
# discovered is a common enemy"). The noun is the last word of the phrase after the determiner, before what
# describes it further; whose it is may come first ("the king's only daughter", "Arlette's shifty client")
_ROLE_QUESTION = re.compile(
    r"^\W*who(?:['’]s|\s+(?:is|was|are|were))\s+(?:the|their|our|its|his|her|that|this|those|these|"
    rf"(?:the\s+(?:[\w-]+\s+){{0,2}}?[\w-]+|(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*){{0,2}}){OWNER_MARK})\s+"
    r"((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)(?!['’\w-])"
    r"(?=\s+(?:that|who|whom|which|we|they|you|i|he|she|of|in|on|at|from|with|for|to|by|behind|among)\b|\W*$)",
    re.I,
)
# A noun that only says "someone" ("Who was the person who…", "the one that…") names no role a sentence gives
_SOMEONE_WORDS = "one person man woman guy girl boy people npc character creature figure individual"
_SOMEONE = frozenset(_SOMEONE_WORDS.split())
# "Whose skeleton…?", "Whose ship did we take?": the noun whose owner is asked
_WHOSE = re.compile(r"^\W*whose\s+([a-z][\w'-]*)", re.I)
# Words between "who" and its verb; possessive (*+), so "Who else was…" never takes "else" for the verb
_ADVERBS = r"(?:(?:first|else|really|actually|exactly|ever|also|never|finally|originally|eventually|just|still)\s+)*+"
# "Who gave …", "Who first gave …" (the verb after any adverb), "Who might blow …", "Who would have stolen …" (after a
# modal, and its "have"): a stop word there ("Who will the king's daughters marry?", "Who or what is…?") is no verb,
# and the question no subject question
_MODAL = r"(?:(?:might|may|must|shall|will|would|could|can|should)\s+(?:have\s+)?)?"
_SUBJECT_QUESTION = re.compile(rf"^\W*who\s+{_ADVERBS}{_MODAL}(?!{AUXILIARIES}\b|'s\b|’s\b)([a-z]+)\b", re.I)
# "Who was riding the dragon?", "Who's holding on to the dragon blood?": who did it, as "Who rode…?" asks
_PROGRESSIVE = re.compile(rf"^\W*who\s*(?:is|was|are|were|['’]s)\s+{_ADVERBS}([a-z]+ing)\b", re.I)
# "Who has the map?", "Who had three daughters?" ask who has it; "Who had carried off the princesses?", "Who had to
# live in a stove?" who did it (the participle after "had", the verb after "had to"). A preposition that ends it
# ("Who had the princess given the ring to?") asks whom it was done to: an object question
_HAVE_QUESTION = re.compile(
    r"^\W*who\s+(?:has|have|had)\s+(to\s+)?([a-z]+)\b(?!.*\b(?:to|by|for|from|with|at|on|in|of)\W*$)", re.I
)
# "Who did Locke marry?", "Where did Finn live?"; never "Who was really behind…" or "Where was the princess?" (is/was
# ask who someone is or where they were, not what they did)
_OBJECT_QUESTION = re.compile(
    r"^\W*(?:whom?|where)\s+(?:did|does|do|has|have|had|will|would|can|could)\s+(.+?)(?:[?.!]|$)", re.I
)
_PREPOSITION = re.compile(r"\b(?:in|at|on|of|to|from|with|for|after|before|during|about|into|when|while)\b", re.I)
WORD = re.compile(r"[A-Za-z][a-z'’]*")  # a word as a verb is looked for, in the question and in a sentence
# A noun after its determiner is whom the question is about, never its verb ("Who did the cat meet…?")
POSSESSIVE = r"(?:his|her|their|its|our|my|your)"
DETERMINER = rf"\b(?:the|a|an|{POSSESSIVE})\s+"
_DETERMINED = re.compile(rf"{DETERMINER}[a-z][\w'’-]*")


@lru_cache(maxsize=65536)
def base(word: str) -> str:
    """The verb a word is a form of, for matching: "gave"/"gives"/"given" → "give", "hired" → "hire", "married" →
    "marry", "slew" → "slay", by lemminflect's dictionary, and by its rules for regular endings for a word the
    dictionary does not know ("yeeted" → "yeet", "scried" → "scry"). A word no verb can be a form of is itself.
    Its tables load on the first call (~0.3 s)."""
    from lemminflect import getLemma

    word = word.casefold().replace("’", "'")
    lemmas = getLemma(word, upos="VERB", lemmatize_oov=True)
    return lemmas[0] if lemmas else word


def asked_role(question: str) -> str | None:
    """The role a "Who is the <role>…?" question asks for by its word ("king", "enemy"), or None."""
    m = _ROLE_QUESTION.match(question.strip())
    role = m.group(1).split()[-1].casefold() if m else None
    if role is None or role in _SOMEONE or role in STOPWORDS or not may_be(role, "NOUN"):
        return None  # "Who was the youngest of the sons?", "Who was the princess looking for?": no noun asked
    return role


def may_be(word: str, part_of_speech: str) -> bool:
    """lemminflect's dictionary knows the word as that part of speech ("NOUN", "VERB"), or does not know it
    ("halfling", "BBEG", "yeeted")."""
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(word)
    return not lemmas or part_of_speech in lemmas


def asked_owner_of(question: str) -> str | None:
    """The thing a "Whose …?" question asks the owner of ("skeleton"), or None."""
    m = _WHOSE.match(question)
    return m.group(1).casefold() if m else None


def done_to(question: str, verbs: frozenset[str]) -> frozenset[str]:
    """The stems of the nouns a "who did it" question names as what was done to ("Who took the warhammer?" →
    "warhammer"), besides its names, its verb, the party, and work a question gives ("gave us the quest" is read as
    hiring, ``asked_verbs``); never an adverb ("Who spoke to Wassamo first?")."""
    from lemminflect import getAllLemmas

    # notes call the party by its name, so a question naming it names no thing done to
    named = {w.casefold() for n in names(question) for w in n.split()}.union(PARTY_WORDS)
    return frozenset(
        stem(w)
        for w in words(question)
        if w not in STOPWORDS | named
        and len(w) > 1
        and not WORK.fullmatch(w)
        and base(w) not in verbs
        and may_be(w, "NOUN")
        and "ADV" not in getAllLemmas(w)
    )


def asks_doer(question: str) -> bool:
    """ "Who gave…?" asks for whoever did it (the subject); "Who did Locke marry?" for whom it was done to."""
    return _subject_verb(question) is not None


def _subject_verb(question: str) -> str | None:
    """The verb of a "Who gave…?" question; none where a stop word or a name stands in its place ("Who could Sheen
    call up to life?" asks whom Sheen could call); "have" for "Who has the map?" (``_HAVE_QUESTION``)."""
    if have := _HAVE_QUESTION.match(question):
        word, to, last = have.group(2), bool(have.group(1)), WORD.findall(question)[-1]
        # "Who had Vex met?", "Who has the party met?", "Who had been sent…?" ask whom
        subject_then_participle = _DETERMINED.match(question, have.start(2)) and participle(last)
        if word == "been" or not to and (word[0].isupper() or subject_then_participle):
            return None
        return word.casefold() if to or participle(word.casefold()) else "have"
    if (
        (going := _PROGRESSIVE.match(question))
        and may_be(ing := going.group(1).casefold(), "VERB")
        and participle(ing, "VBG")
    ):
        return ing
    m = _SUBJECT_QUESTION.match(question)
    if not m or m.group(1).casefold() in STOPWORDS or (m.group(1)[0].isupper() and not question.isupper()):
        return None
    return m.group(1)


def participle(word: str, tag: str = "VBN") -> bool:
    """A past participle by lemminflect ("carried", "done", "met"; ``tag`` "VBG": "riding", not "nothing" nor
    "willing"), not a verb's base form."""
    from lemminflect import getInflection

    return word != base(word) and word in getInflection(base(word), tag=tag)


def asked_verbs(question: str, role: str | None) -> frozenset[str]:
    """The verb(s) a "who" question asks about, by ``base``: "Who gave…" → {give}; "Who did Locke marry?" → the
    lower-case words after its subject up to a preposition that lemminflect knows as verbs ({marry}; in "Where did
    we first meet Allura?" not "first"); the role's ("Who is the king…?" → {king});
    none for "Who is/was…?". "Who gave…?" also counts the verbs by which notes say it ("provided", "hired")."""
    if role:
        return frozenset({base(role)})
    verbs = _verbs(question)
    if base("give") in verbs:
        return verbs | {base(v) for v in (_GIVES_WORK if WORK.search(question) else _GIVES).split()}
    return verbs


def _verbs(question: str) -> frozenset[str]:
    if verb := _subject_verb(question):
        return frozenset({base(verb)})
    m = _OBJECT_QUESTION.match(question)
    if not m:
        return frozenset()
    clause = _PREPOSITION.split(m.group(1), maxsplit=1)[0]
    # "the cat meet" → "meet"; but "Who had a spite…" asks "had", and the noun is all that is left to look for
    said = [WORD.findall(text) for text in (_DETERMINED.sub(" ", clause), clause)]
    content = ([w for w in ws if w.islower() and w not in STOPWORDS and len(w) > 2] for ws in said)
    words_said = next((c for c in content if c), [])
    # "Where did we first meet Allura?", "Where did they all live together?": the verb, not the words around it
    verbs = [w for w in words_said if may_be(w, "VERB")] or words_said
    return frozenset(base(w) for w in verbs)
