"""Who did it: a "who" question's short answer is the one who did what the question asks about.

"Who gave the party the quest?" is not answered by any name in a sentence about the quest: "The party was hired
to go into Kraghammer seeking Lady Kima" names the one they seek, not the one who gave it. So a "who" lead needs a
sentence that says the question's verb, in any of its forms ("gave", "gives", "given"; "hired", "hires"), and
prefers the name that does it in the passive ("hired *by* their friend Allura Vysoren"). Without the verb the
answer still quotes the notes, with no name put first. Private to the extractive backend.
"""

from __future__ import annotations

import re

from rag.names import AUXILIARIES, OWNER_MARK, norm, noun_pattern, read_words
from rag.question import Question
from rag.question.who import DETERMINER, POSSESSIVE, ROLES, WORD, base, participle

# "was hired", "has been sent", "got hired": the subject is not the one who did it
_PASSIVE = re.compile(r"\b(?:was|were|is|are|be|been|being|got|gets|get)\s+(?:[a-z]+ly\s+)?$", re.I)
# ...nor is it when the verb is followed by its doer: "was pulled off his horse and nearly killed by another samurai"
# ("stood by him" stands beside someone: a pronoun after "by" is no doer named)
_BY_AFTER = re.compile(r"\s+(?:[a-z]+ly\s+)?by\s+(?!(?:him|her|them|me|us|it|you)\b)", re.I)
# "Percy does not know if his sister died": a clause of its own between a name and the verb has its own subject;
# a relative "who" stands for the noun right before it ("poachers who betrayed her", "Vax, who stabs it")
_OPENS_CLAUSE = r"if|whether|because|although|though|unless|since|who|whom|which"
_CLAUSE = re.compile(rf"\b(?:{_OPENS_CLAUSE}|that)\b", re.I)
# ...and a clause of its own between the verb and a name after it has its own verb: "After much fighting, they
# found their way to Emberhold, where they found Lady Kima" says nothing of whom they fought. Not "that": after a
# verb it opens what was seen or said ("saw that it was a great Dragon"), or points ("that mad rush")
_OBJECT_CLAUSE = re.compile(rf"\b(?:{_OPENS_CLAUSE}|where|when|while)\b", re.I)
_RELATIVE = re.compile(rf",?\s+who\s+(?:{AUXILIARIES}\s+)?(?:[a-z]+ly\s+)?", re.I)  # "Kemperman, who had stood"
# "Vex asks a guard…": a word after its determiner is a noun, never the verb asked ("Who guards…?")
_AFTER_DETERMINER = re.compile(rf"{DETERMINER}$", re.I)
# "stabs it with his Dagger of Venom", "shoots a Fire Bolt": a name right after a possessive or "a" is a thing
# someone has or a kind of thing, never someone
_A_THING = re.compile(rf"\b(?:a|an|{POSSESSIVE})\s+$", re.I)
# "If Laura dies, she…", "Percy does not know if his sister died", "Tiberius would have a pseudodragon named Monty":
# a clause that supposes (a condition, or "would/could/might/should have/be") says what may be, not what was, up to
# where it ends: a mark, a clause of its own, or what the supposing turns on ("They might have lived together always
# had it not been for the Fox": the Fox was real)
_SUPPOSES = re.compile(
    r"\b(?:if|whether|unless|(?:would|could|might|should)(?:n['’]t|\s+not)?\s+(?:have|be))\b"
    r"(?:(?!\b(?:who|whom|which|where|when|while|because|since|although|though|that|not(?:\s+been)?\s+for)\b)"
    r"[^,;:.!?])*$",
    re.I,
)
# "Albie did not kidnap the girl", "never paid", "didn't actually take it": the verb denied, right before it
_DENIED = re.compile(r"(?:\b(?:not|never)|n['’]t)\s+(?:[a-z]+ly\s+)?$", re.I)
# "ate some of it": a thing named before, in the same passage
_BACK = re.compile(r"\b(?:it|them)\b", re.I)
# "hired by their friend Arcanist Allura Vysoren": the name after "by" did it
_BY = re.compile(rf"\bby\s+(?:{DETERMINER})?(?:[a-z][\w'’-]*\s+){{0,2}}$")


def supposed(before: str) -> bool:
    """The text before a word ends inside a clause that supposes (``_SUPPOSES``): what it says there may be, or
    might have been, not what was."""
    return bool(_SUPPOSES.search(before))


def given_as_owner(thing: str, name: str, sentence: str) -> bool:
    """The sentence gives the name as the thing's owner: "Molly's coat", "the coat of Molly", "the coat belongs to
    Molly". Any other name in a sentence about the thing is a guess: "Whose skeleton was Nott looting?" was
    answered "Caleb." from "Nott asks Caleb to identify the bracelets she found on the skeleton"."""
    t, n = noun_pattern(thing), re.escape(name)
    owned = rf"{n}{OWNER_MARK}\s+(?:[\w-]+\s+){{0,2}}?{t}\b"
    of = rf"\b{t}\s+(?:of|belonging to|that belongs? to|which belongs? to|belongs? to|owned by)\s+(?:the\s+)?{n}"
    return bool(re.search(f"{owned}|{of}", sentence, re.I))


def given_role(role: str, name: str, sentence: str) -> bool:
    """The sentence gives the name that role: "King Murghol", "the captain of the guard, Jarett", "Adra, the tavern
    owner", "a common enemy referred to as K'Varn", "the bird lover, whose name was Monedowa", or says the one is
    the other ("Timmy Willie was a little country mouse", "The specter was Torre Jeppe")."""
    if norm(name).split()[:1] == [role]:
        return True
    r, n = re.escape(role), re.escape(name)
    called = r"(?:named|called|known\s+as|referred\s+to\s+as|whose\s+name\s+(?:is|was))"
    det = r"(?:the|a|an|their|our|his|her|its)\s+"
    forms = (
        rf"\b{r}s?(?:\s+of\s+(?:the\s+)?\w+)?,?\s+(?:{called}\s+)?{n}",  # "the captain of the guard, Jarett"
        rf"{n},?\s+(?:the\s+|a\s+)?(?:\w+\s+)?{r}\b",  # "Adra, the tavern owner"
        rf"{n}\s+(?:is|was|are|were|became)\s+{det}(?:[\w-]+\s+){{0,2}}{r}\b",  # "Timmy Willie was a country mouse"
        rf"\b{r}s?\s+(?:is|was)\s+(?:none other than\s+)?{n}",  # "The specter was Torre Jeppe"
        rf"\bname\s+of\s+{det}(?:[\w-]+\s+){{0,2}}{r}\b[^.;]{{0,40}}?\s(?:is|was)\s+{n}",  # "the name of the halfling … was Yeza"
    )
    return bool(re.search("|".join(forms), sentence, re.I))


def says_asked_verb(question: Question, sentence: str) -> bool:
    """The sentence says what the "who" question asks about (true when the question asks no verb). Called for every
    sentence of every candidate (the answerer's pick scores a typed answer), hence ``base``'s cache."""
    if not question.verbs:
        return True
    said = {w.casefold() for w in WORD.findall(sentence)}
    return bool(question.verbs & {base(w) for w in said}) or any(
        ROLES.get(v, frozenset()) & said for v in question.verbs
    )


def says_done_to(question: Question, sentence: str, passage: str = "") -> bool:
    """A "who did it" question that names what it was done to (``Question.done_to``: "Who took the warhammer?") is
    answered by a sentence naming that too: "K'Varn… took the elder brain" says who took something else. A sentence
    saying "it" or "them" may name it earlier in its ``passage`` ("she gave him the herb… his wife ate some of it").
    Called for every sentence of every candidate, so the passage is read only when the sentence needs it."""
    if not question.done_to or question.done_to & read_words(sentence):
        return True
    at = passage.find(sentence)
    return at > 0 and bool(_BACK.search(sentence)) and bool(question.done_to & read_words(passage[:at]))


def role_word(question: Question, sentence: str) -> str | None:
    """The role word by which the sentence says the question's verb ("owner" for "Who runs…?"), if it does."""
    said = {w.casefold() for w in WORD.findall(sentence)}
    return next((w for v in sorted(question.verbs) for w in sorted(ROLES.get(v, ())) if w in said), None)


def verb_said(question: Question, sentence: str) -> re.Match | None:
    """Where the sentence first says the question's verb, in any of its forms (``base``), as something that happened:
    never a noun after its determiner ("Vex asks a guard…" does not say who guards), nor a verb in a clause that
    supposes ("If Laura dies, she wants to roll a tiefling" says nothing of who died) unless the question supposes
    too ("Who would win?"), nor a verb denied ("Albie did not kidnap the girl" says who did not) unless the
    question denies too ("Whom did Keyleth not trust?")."""
    for m in WORD.finditer(sentence):
        if base(m.group(0)) not in question.verbs or _AFTER_DETERMINER.search(sentence, 0, m.start()):
            continue
        if not question.denies and _DENIED.search(sentence, 0, m.start()):
            continue
        if question.supposes or not supposed(sentence[: m.start()]):
            return m
    return None


def doers(names: list[str], sentence: str, question: Question) -> list[str]:
    """Of the sentence's ``names``, those that may do what the "who" question asks, best first.

    - By a role word: the name the sentence gives that role (``given_role``: "The tavern owner, Adra, …", "Adra, the
      owner"), not a name beside it ("Vex asks a guard…"); a word after its determiner is never the verb asked.
    - In the passive, the name after "by" ("hired by their friend Allura Vysoren"); a passive without one names
      no doer: in "The party was hired to go into Kraghammer seeking Lady Kima", Kima is whom they seek.
    - "Who gave…?" asks for the subject: a name before the verb, the nearest first, not one before a clause of its
      own ("Percy does not know if his sister died" says nothing of who died) nor one before a relative "who"
      that stands for someone else ("came to Vex's camp, but turned out to be poachers who betrayed her": the
      poachers did). "Who did Locke marry?" asks for the object: a name after the verb, never its subject
      before it ("Tiberius … shoots a Fire Bolt" does not say whom Percy shot) nor one after a clause of its own
      ("…fighting, they found their way to Emberhold, where they found Lady Kima"), but the subject of a passive;
      the nearest first, as for the subject: "Whom did Keyleth not trust?" is answered "Kima" by "Keyleth does not
      trust Kima, questioning … her motives for seeking the Horn of Orcus", though the notes link the Horn.
    With no verb asked ("Who is…?") every name may answer, in the sentence's order; a role asked by its word
    ("Who is the king…?") only a name given that role. A name right after a possessive ("stabs it with his Dagger
    of Venom, killing it") is a thing someone has, after "a" a kind of thing ("shoots a Fire Bolt"): people's
    names take no "his" and no "a"."""
    names = [n for n in names if not _A_THING.search(sentence, 0, max(sentence.find(n), 0))]
    if question.role:
        return [n for n in names if given_role(question.role, n, sentence)]
    role = role_word(question, sentence)
    given = [n for n in names if given_role(role, n, sentence)] if role else []
    if given:
        return given + [n for n in names if n not in given]
    agents = [n for n in names if sentence.find(n) > 0 and _BY.search(sentence[: sentence.find(n)])]
    said = verb_said(question, sentence)
    if said is None:  # no verb asked; or said only by a role no name is given, or as a noun: no subject to find
        return agents + [n for n in names if n not in agents] if not question.verbs else agents

    def subject(name: str) -> bool:  # before the verb, with no clause of its own between them
        at = sentence.find(name)
        between = sentence[at + len(name) : said.start()]
        return 0 <= at < said.start() and bool(_RELATIVE.fullmatch(between) or not _CLAUSE.search(between))

    before = [n for n in sorted(filter(subject, names), key=lambda n: -sentence.find(n)) if n not in agents]
    progressive = participle(said.group(0).casefold(), "VBG")  # "was riding the dragon": the one before rode it
    passive = not progressive and _PASSIVE.search(sentence[: said.start()]) or _BY_AFTER.match(sentence, said.end())
    if not question.asks_doer:  # whom it was done to: after the verb in its clause, or the subject of a passive
        if passive:
            return before
        after = sorted((sentence.find(n), n) for n in names if sentence.find(n) > said.start())
        return [n for at, n in after if not _OBJECT_CLAUSE.search(sentence, said.end(), at)]
    return agents if passive else agents + before
