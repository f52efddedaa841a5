"""How the offline answerer reads: what a question asks for, and the words of a sentence that give it.

A player asks "Who gave us the map?" and wants a name first, "In which session…" and wants "Session 6",
"How much…" and wants an amount. The answerer leads with that short answer when a sentence of the notes holds
it, drawn from the sentence itself (never written anew), and refuses when the notes say plainly that it is not
known ("Didn't catch her name", "some treasure (TBD)"). Private to the extractive backend (not a backend).
"""

from __future__ import annotations

import re

from rag.campaign.evening import around_the_game, retells
from rag.generators._amounts import AMOUNT_KINDS, amount_in, missing_amount
from rag.generators._identity import describe
from rag.generators._places import in_place, is_place
from rag.generators._who import doers, given_as_owner, says_asked_verb, says_done_to, supposed
from rag.models import Chunk, format_session
from rag.names import (
    NAME_PARTICLES,
    OWNER_MARK,
    STOPWORDS,
    TITLES,
    is_noun,
    names,
    names_passage,
    norm,
    noun_pattern,
    said_by_one_word,
    stem,
    words,
)
from rag.question import Question

_COLOURS = re.compile(
    r"\b(red|orange|yellow|green|blue|purple|violet|pink|brown|black|white|grey|gray|silver|golden|gold|crimson|"
    r"scarlet|azure|teal|tan|dun|bay|chestnut|dapple|piebald|ivory|ebony|auburn)\b",
    re.I,
)
_NAMING = re.compile(  # "named", "names him", "called", "known as", "whose name is", then the name (maybe quoted)
    r"\b(?:named|names|name\s+(?:is|was)|called|calls|call|dubbed|christened|known\s+as)\s+"
    r"(?:(?:him|her|it|them|me|us)\s+)?(?:the\s+)?[\"“‘']?\s*$",
    re.I,
)
_OPENS_SPEECH = re.compile(r"[\"“]\s*$")
_COLON_BEFORE = re.compile(r":\s*(?:(?:the|a|an)\s+)?[\"“‘']?\s*$", re.I)  # "there's just one: the "
_WORD_BEFORE = re.compile(r"\b([a-z][\w'-]*)[\s,:]{1,3}[\"“‘(]?$")  # "daughter " in "his daughter Madge"
_LATER_CAPITAL = re.compile(r"(?<=[\w,;:)] )[\"“‘(\[]?([A-Z][\w'’-]+)")  # not a sentence's first word
_TOKEN = re.compile(r"[\w'’-]+")
_CONTRACTED = re.compile(r"n?['’](?:ll|m|ve|d|re|s|t)$")  # a stop word's contraction is no name: "I'll", "Don't"
# What comes before a word capitalised by where it stands: nothing, a sentence's end, a bullet or an opening quote
_STARTS = re.compile(r"(?:^|[.!?:]\s+|(?:^|\s)[\"“‘'])[\s\"“‘'(\[*+•>-]*$")
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]")
# The notes saying plainly that they do not know: "Didn't catch her name lol", "find some treasure (TBD)".
UNKNOWN = re.compile(
    r"\b(tbd|tba|unknown|unnamed|didn'?t catch|did not catch|don'?t know|do not know|no idea|not sure|unclear|cagy|"
    r"never (?:said|told|learned|named|found out)|won'?t (?:say|tell)|refuses? to (?:say|tell))\b|\?\?+|\(\s*\?\s*\)",
    re.I,
)
DETAIL_KINDS = {
    "age": "an age",
    "amount": "an amount",
    "money": "an amount",
    "year": "a year",
    "colour": "a colour",
    "name": "a name",
}


def says_unknown(question: Question, sentence: str) -> bool:
    """The sentence says the asked thing is not known: a marker, and the question's focus words in it (by stem:
    "names" for "name")."""
    if not UNKNOWN.search(sentence):
        return False
    focus = {stem(w) for w in question.focus.split()}
    return bool(focus) and focus <= {stem(w) for w in words(sentence)}


def session_label(chunk: Chunk) -> str:
    """The note a passage is from as players name it: "C1 Session 2", or a page's or document's title."""
    if chunk.session is None or chunk.file_type != "markdown":
        return chunk.title or chunk.source
    label = f"Session {format_session(chunk.session)}"
    return f"C{chunk.campaign_no} {label}" if chunk.campaign_no is not None else label


def short_answer(
    question: Question, sentence: str, chunk: Chunk, previous: str = "", named: frozenset[str] | None = None
) -> str | None:
    """The words of ``sentence`` that answer what the question asks for, or None (open questions never have one);
    ``previous`` is the sentence before it in its passage (who a "He's a…" sentence is about), ``named`` what every
    passage read for the question capitalises (``capitalised_within``; its own passage's when not given)."""
    kind = question.kind
    if kind == "session":  # when it happened in the story: not a "Previously on…" scene, which tells what happened
        # in an earlier session, nor one around the game ("Q&A", "Break", "Announcements"), which tells no story
        story = chunk.session is not None and not retells(chunk) and not around_the_game(chunk.heading)
        return session_label(chunk) if story else None
    if kind == "identity":
        return describe(question.subject, sentence, chunk, previous) if question.subject else None
    if kind in AMOUNT_KINDS:
        return amount_in(question, sentence)
    if kind == "colour":
        m = _COLOURS.search(sentence)
        return m.group(0) if m else None
    if kind not in ("name", "person", "place", "thing"):
        return None
    sentence = as_linked(sentence, chunk)
    new = new_names(question, sentence, chunk, capitalised_within(chunk.text) if named is None else named)
    if not question.supposes:  # "What would Percy have as a familiar?" is answered by what the notes suppose
        new = [n for n in new if not supposed(sentence[: sentence.find(n)])]
    quoted = [  # a title or an item's name is capitalised; "archeologist" in quotes is the notes' irony; someone
        q  # the question names is not its answer, however the notes write them ("Lady Vex'ahlia" for Vex)
        for q in (q.rstrip(",;: ") for q in _QUOTED.findall(sentence))  # greets him as "Lucien," and…
        if norm(q) not in question.normed
        and len(q.split()) <= 5
        and re.search(r"[A-Z]", q)
        and not names_passage(question.asked_names, q)
    ]
    quoted = [q for q in quoted if sum(w.islower() and w not in STOPWORDS for w in q.split()) <= 1]  # not speech
    if kind == "name":  # a title in quotes, or a name the sentence gives as one (not any name it holds)
        return (quoted or [n for n in new if given_as_name(question, n, sentence)] or [None])[0]
    if kind == "thing":  # an item or a code word in quotes, or a name the sentence gives the asked thing
        return (quoted or [n for n in new if names_the_focus(question.focus, n, sentence)] or [None])[0]
    if kind == "place":
        placed = [n for n in new if is_place(n, sentence, origin="from" in question.words)]
        return owned_place(placed[0], sentence) or as_quoted(placed[0], sentence) if placed else None
    if owned := question.owner_of:  # "Whose skeleton…?": a name given as its owner ("Whose names…?": them)
        return next((n for n in new if given_as_owner(owned, n, sentence) or names_the_focus(owned, n, sentence)), None)
    if not (says_asked_verb(question, sentence) and says_done_to(question, sentence, chunk.text)):  # (_who)
        return None
    return next((n for n in doers(new, sentence, question) if not in_place(sentence[: sentence.find(n)])), None)


def as_linked(sentence: str, chunk: Chunk) -> str:
    """The sentence with a link's words in lower case read as the name of the page it links to: "was kidnapped by
    the [[Queen Ulara|queen mage]]" says who did it as surely as "by Queen Ulara" would, but its words are no name.
    Only where the page's name is a person's or a place's (each word capitalised) and the shown words are not that
    name in other letters or number ("[[Duergar|duergar]]", "[[Umber hulk|umber hulks]]" name a kind, not one)."""
    for shown, page in chunk.aliases:
        seen, known = shown.casefold(), page.casefold()
        if (
            shown[:1].islower()
            and not (known.startswith(seen.rstrip("s")) or seen.startswith(known))
            and all(w[:1].isupper() for w in page.split() if w.casefold() not in NAME_PARTICLES)
            and shown in sentence
        ):
            sentence = re.sub(rf"(?<![\w'’-]){re.escape(shown)}(?![\w'’-])", page, sentence)
    return sentence


def as_quoted(name: str, sentence: str) -> str:
    """The name with its article when the notes quote the two together: a place named "The Pig Pits" is called
    that, article and all, where a name in running text ("to the Underdark") leaves the article to the sentence."""
    m = re.search(rf"[\"“‘]\s*(the\s+{re.escape(name)})\s*[\"”’]", sentence, re.I)
    return m.group(1) if m else name


def owned_place(name: str, sentence: str) -> str | None:
    """The place a name owns when the sentence names it so: "went to Culain's house", "Strahd's castle" (the place
    is the house or the castle, not Culain or Strahd). A word lemminflect knows as an adjective takes a noun after
    it along ("the Baron's old manor"), not an adverb ("Culain's house yesterday"); "the Greyspines' mine" too."""
    from lemminflect import getAllLemmas

    owner = re.escape(name.rstrip("'’"))  # "Jess’" of "Jess’ tower"
    m = re.search(rf"{owner}{OWNER_MARK}\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?", sentence)
    if not m or m.group(1) in STOPWORDS:
        return None
    first, after = m.group(1), m.group(2) or ""
    noun_after = is_noun(after) and "ADJ" in getAllLemmas(first)
    return sentence[m.start() : m.end(2) if noun_after else m.end(1)]  # as written


def names_the_focus(focus: str, name: str, sentence: str) -> bool:
    """The sentence gives the asked thing this name: "the ship, the Shore Shanty", "a bear named Trinket", "a
    pet, which he names Lockheed" (``names_the_noun``). Any other name in the sentence is a guess: measured on
    vault-toa and CRD3, such leads were right 1 time in 10 ("What monster was disguised as an isle?" → "Ubtao",
    from a tale about a su-monster)."""
    if not focus:
        return False
    before = sentence[: sentence.find(name)]
    noun = noun_pattern(focus.split()[-1])
    return bool(re.search(rf"\b{noun}\b,?\s+(?:the\s+)?$", before, re.I)) or names_the_noun(noun, before)


def names_the_noun(noun: str, before: str) -> bool:
    """The text before a name ends in a naming word that names ``noun`` (a pattern, ``noun_pattern``), a few
    words after it: "a bear named", "a pet, which he names", "the tavern whose name is"; not "a halfling paladin
    named" for a tavern."""
    naming = _NAMING.search(before)
    return bool(naming) and _just_after(noun, before[: naming.start()])


def _just_after(noun: str, text: str) -> bool:
    """``text`` ends within three words of ``noun`` (a pattern)."""
    return bool(re.search(rf"\b{noun}\b(?:\W+[\w'’]+){{0,3}}\W*$", text, re.I))


def opens_speech(before: str) -> bool:
    """The text before a word ends in an opening quote mark, not after a naming word (`names him "Shelby"`)."""
    return bool(_OPENS_SPEECH.search(before)) and not _NAMING.search(before)


def given_as_name(question: Question, name: str, sentence: str) -> bool:
    """The sentence gives ``name`` as a name: after a naming word ("which he names Lockheed", "a bear named
    Trinket", "He names him "Shelby"") or right after a word of the question ("his daughter Madge", "their father,
    Syldor"). Any other name in the sentence names someone else: "What did Tiberius name his pet?" had led with
    "Orion Acaba." from "Orion Acaba plays Tiberius", "What did Percy and Vex name their kids?" with "Grog.". When
    the question says what is named ("the name of the tavern"), the naming word names that, a few words after it:
    "a halfling paladin named Lady Kima" names no tavern. A colon names it too, a few words after the thing: "the
    tavern, there's just one: the Drunken Fool"; not a name after any colon ("Haskell: step…" is who acts)."""
    before = sentence[: sentence.find(name)]
    thing = question.attribute.thing.split()[-1] if question.attribute and question.attribute.thing else ""
    if _NAMING.search(before):
        return not thing or names_the_noun(noun_pattern(thing), before)
    if thing and (colon := _COLON_BEFORE.search(before)) and _just_after(noun_pattern(thing), before[: colon.start()]):
        return True
    m = _WORD_BEFORE.search(before)
    return bool(m) and m.group(1) not in STOPWORDS and m.group(1) in question.words


def new_names(question: Question, sentence: str, chunk: Chunk, named: frozenset[str]) -> list[str]:
    """Names in the sentence the question does not give, linked ones (``[[Page]]``) first. A two-word personal
    name is given by either word ("Locke" gives "Locke Hancock"): players call each other by one name."""
    said = f" {question.normed} "
    linked = {norm(a) for pair in chunk.aliases for a in pair} | {norm(e) for e in chunk.entities}
    found = []
    for name in names(sentence):
        if by_place_only(name, sentence, linked, named):  # "Thus", "News", "Now the Queen"
            name = name.split(None, 1)[1] if " " in name else ""
        first = _CONTRACTED.sub("", name.split()[0].casefold()) if name else ""  # "I'll", "We're": "i", "we"
        if not name or f" {norm(name)} " in said or first in STOPWORDS and " " not in name:
            continue
        if " " not in name and norm(name) not in linked and opens_speech(sentence[: sentence.find(name)]):
            continue  # the first word of a line of speech is capitalised because it starts it: "Ooh, you're…"
        if said_by_one_word(name, said):
            continue
        found.append(name)
    return sorted(dict.fromkeys(found), key=lambda n: norm(n) not in linked)


def by_place_only(name: str, sentence: str, linked: set[str], named: frozenset[str]) -> bool:
    """The name's first word is capitalised only because of where it stands (``starts``, ``capital_only_first``):
    no name, or not all of one. A linked name or a title ("King Murghol") is one wherever it stands."""
    first = name.split()[0]
    if norm(name) in linked or first.casefold() in TITLES or not starts(sentence, name):
        return False
    return capital_only_first(first, named)


def starts(sentence: str, name: str) -> bool:
    """The name opens its sentence, a line's bullet or a quotation ("says 'Go to thy wife'"), or follows a
    sentence's end inside a quotation read as one: capitalised there whatever it is."""
    return bool(_STARTS.search(sentence[: sentence.find(name)]))


def capital_only_first(word: str, named: frozenset[str]) -> bool:
    """A word of the dictionary (lemminflect's) that the passages read capitalise nowhere but at a sentence's
    start (``named``): "Thus it happened…", "News of it went abroad…", "Let his mother…". A name is written
    capitalised wherever it stands ("Grog smashes…" and "…with Grog"), and most names of a campaign are no English
    word at all."""
    from lemminflect import getAllLemmas  # its dictionary is loaded once, on first use

    return word not in named and bool(getAllLemmas(word.casefold()))


def capitalised_within(text: str) -> frozenset[str]:
    """The words ``text`` capitalises where no sentence starts (``_LATER_CAPITAL``), each also as its part before an
    apostrophe or hyphen ("Vex" of "Vex'ahlia", "Grog" of "Grog's"): read once for all the passages of a question."""
    words = (m.group(1) for m in _LATER_CAPITAL.finditer(text))
    return frozenset(part for w in words for part in (w, re.split(r"['’-]", w)[0]))


def _unasked_capitals(question: Question, sentence: str) -> list[re.Match]:
    """Capitalised words, not first in the sentence (a quote or bracket may open them), that the question lacks."""
    asked = question.words
    return [m for m in _LATER_CAPITAL.finditer(sentence) if m.group(1).casefold().removesuffix("'s") not in asked]


def has_new_name(question: Question, sentence: str) -> bool:
    """A capitalised word, not first in its sentence, that the question lacks: what a "name" answer needs."""
    return bool(_unasked_capitals(question, sentence))


def named_near(question: Question, sentence: str, thing: re.Pattern, near: int) -> bool:
    """A new name (``has_new_name``) within ``near`` words of a mention of ``thing``: "names the borrowed ship Going
    Merry" names the ship, "…in the Astral Sea and thinks he sees Betsy's ship" does not."""

    def place(offset: int) -> int:
        return len(_TOKEN.findall(sentence[:offset]))

    names = [place(m.start(1)) for m in _unasked_capitals(question, sentence)]
    things = [place(m.start()) for m in thing.finditer(sentence)]
    return any(abs(i - j) <= near for i in names for j in things)


def missing_detail(question: Question, sentence: str) -> str | None:
    """The detail (an amount, a year, a colour, a name) the question asks for, when the sentence lacks it."""
    label = DETAIL_KINDS.get(question.kind)
    if label is None:
        return None
    if question.kind == "name":
        quoted = [q for q in _QUOTED.findall(sentence) if re.search(r"[A-Z]", q)]  # "Lucien", "The Fungal Fart"
        if question.focus == "title":  # a song's or a book's title is written in quotes, capitalised
            return None if any(q.strip()[:1].isupper() for q in quoted) else "a title"
        return None if has_new_name(question, sentence) or quoted else label
    if question.kind in AMOUNT_KINDS:
        return missing_amount(question, sentence, label)
    return None if _COLOURS.search(sentence) else label
