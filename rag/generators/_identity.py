"""Who is X?: a question that names its subject and asks what it is wants how the notes describe it, in their words
("Undril Silvertusk: a half Ork cleric."), never another name from the sentence. Private to the extractive backend.
"""

from __future__ import annotations

import re

from rag.models import Chunk
from rag.names import CLAUSE_BEFORE, STOPWORDS, WHO_IS, in_full, introduction, norm
from rag.question.who import participle

_DESCRIPTION = r"((?:an?|the|one\s+of(?:\s+the)?)\s+[^,.;:()!?\"“”]+)"
_PRONOUN_IS = re.compile(rf"^(?:he|she|they|it)(?:'s|’s|\s+is|\s+was|\s+are|\s+were)\s+{_DESCRIPTION}", re.I)
MAX_DESCRIPTION_WORDS = 10
# After "a"/"the", words that say how much or which, not what X is: "the one we met", "X is a bit grumpy"
_NOT_KINDS = frozenset({"one", "same", "other", "bit", "lot"})
# A colon defines the name before it only when that name heads its line, as a glossary or a page's bullet does
# ("Underdark: the world below the world"); after a clause, a colon goes on with the whole clause.
_HEADS = re.compile(r"^[\W_]*(?:the\s+)?$", re.I)
# Words that relate a thing to X rather than say what X is ("a helmet like Clarota's", "a camp near Ubtao")
_RELATING = frozenset(
    ["like", "unlike", "near", "beside", "behind", "besides", "toward", "towards", "against", "versus", "beyond"]
    + ["past", "around", "among", "between", "without", "within", "upon"]
)


def describe(subject: str, sentence: str, chunk: Chunk, previous: str = "") -> str | None:
    """How the sentence describes ``subject``: "X, a half-orc cleric", "X is one of the original Abara", "A half
    Ork cleric X", or, on X's own page or right after a sentence naming X, "He's an anthropologist hired by…";
    on X's own page also its first line when it opens with what X is (``names_a_kind``: "Wife of Motte Hayat" on
    ``NPCs/Papel.md``). The notes' words, cut to a short phrase."""
    parts = subject.split()
    keys = [subject] + ([p for p in parts if len(p) >= 4][:1] if len(parts) == 2 else [])
    found = None
    for key in keys:
        k = re.escape(key)
        asked = in_full(k) if len(parts) == 1 else k  # "Scanlan Shorthalt, the gnome bard"; not Ichiro Toshekatsu
        after = re.search(
            rf"\b{asked}(?:'s|’s)?\s*({WHO_IS}|,|\(|:|\bis\b|\bwas\b|\s[-–—])\s*{_DESCRIPTION}",
            sentence,
            re.I,
        )  # "Lord Nostoc Greyspine, who is the head of the Greyspine mines" too (``WHO_IS``), as the search reads it
        if after and after.group(1).startswith(",") and CLAUSE_BEFORE.search(sentence[: after.start()]):
            after = None  # "Not getting anywhere with Grog, the party interrogates…": a clause ends at X
        if after and after.group(1) == ":" and not _HEADS.match(sentence[: after.start()]):
            after = None  # "the vision that guided her to the Underdark: a vision of Orcus" tells of the vision
        # "a half Ork cleric X", "a pet bear named X", "his Huntmaster, X", "the illithid, named X", "the arcanist X";
        # not "grabs the rope, X: move up…", where X opens a line of its own (who acts, as a log of a fight writes)
        comma = re.search(
            rf"\b((?:the|his|her|their|its|our)\s+(?:[\w'’-]+\s+){{0,3}}[\w'’-]+),\s+(?:named\s+|called\s+)?{k}\b(?!\s*:)",
            sentence,
            re.I,
        )
        if comma and CLAUSE_BEFORE.search(sentence[: comma.start(1)]):
            comma = None  # "After the battle, Nostoc…", "After they settle their accounts, Adra…": a clause ends
        named = re.search(introduction(k), sentence, re.I)  # "a female halfling paladin, named Lady Kima"
        before = (
            named
            or re.search(
                rf"(?:^|(?<=[\s(]))(an?\s+(?:[\w'’-]+\s+){{1,5}}?)(?:named\s+|called\s+)?{k}\b", sentence, re.I
            )
            or comma
            or _kind_before(k, sentence)
        )
        if before and any(w.casefold() in STOPWORDS | _RELATING for w in before.group(1).split()[1:]):
            before = None  # "a pact with Acererak", "a helmet like Clarota's": not what X is
        if before and re.search(r"(?:ed|ing|ly)\s*$", before.group(1)):
            before = None  # "A frustrated Tiberius yells…": how X was then, not what X is
        found = (after and after.group(2)) or (before and before.group(1))
        if found:
            break
    if not found and f" {norm(subject)} " in f" {norm(chunk.title or '')} {norm(previous)} ":
        m = _PRONOUN_IS.search(sentence.strip().lstrip("-*+ "))
        found = m.group(1) if m else None
    bare = False  # a page's first line says what its subject is without naming it: "Wife of Motte Hayat"
    opens = not previous and chunk.position == 0  # the page's first sentence that can answer
    if not found and opens and own_page(subject, chunk) and names_a_kind(line := sentence.strip().lstrip("-*+ ")):
        found, bare = line, True
    if not found:
        return None
    found = re.split(r"\s+(?:and|but|who|which|where|that|while|because)\s+", found, maxsplit=1)[0].rstrip(" ,;:")
    if _a_clause(found):
        return None  # "The lecture went well, Norah and Silvius…": a sentence before the name, not what she is
    phrase = found.split()
    head = re.sub(r"^one\s+of(?:\s+the)?\s+", "", found, flags=re.I).split()
    kind_first = bare and len(head) >= 2 and head[0].casefold() not in STOPWORDS  # "Wife of Motte Hayat"
    if (len(head) < 2 or head[1].casefold() in STOPWORDS | _NOT_KINDS) and not kind_first:
        return None  # "the one we met", "is a bit grumpy"
    short = " ".join(phrase[:MAX_DESCRIPTION_WORDS]) + ("…" if len(phrase) > MAX_DESCRIPTION_WORDS else "")
    written = (  # as the notes write the name: "K'Varn", however it was asked
        m.group(0)
        for m in re.finditer(re.escape(subject), f"{sentence} {chunk.title or ''}", re.I)
        if m.group(0)[0].isupper()
    )
    return f"{next(written, subject)}: {short[0].lower()}{short[1:]}"


def own_page(subject: str, chunk: Chunk) -> bool:
    """The passage is from the subject's own page (a reference page titled with its name): ``NPCs/Papel.md``."""
    return chunk.is_reference and bool(chunk.title) and norm(chunk.title) == norm(subject)


def names_a_kind(line: str) -> bool:
    """A line that opens with what something is, not with what happened: a word that can be a noun first ("Wife of
    Motte Hayat", "Alternate name for Thieves' Guild in Pisce", "Half orc cleric of Savarus"), or "a"/"the"; not
    a hedge ("Likely, some relations to…") nor a Dataview field ("Tags:: #NPC"). A wiki page writes its subject's
    description as such a line, the name being the page's title; a line that opens with a verb ("Started an off
    branch", "Kicked out of the guild") tells what they did."""
    from lemminflect import getAllLemmas  # its dictionary is loaded once, on first use

    first = re.match(r"[A-Za-z][\w'’-]*(?=\s)", line)  # a word, not "Tags:: #NPC" (a field, not prose)
    if first is None or "::" in line:
        return False
    word = first.group(0).casefold()
    if word in ("a", "an", "the"):
        return True
    return word not in STOPWORDS and "NOUN" in getAllLemmas(word)  # a noun is never a verb only (``_happened``)


def _kind_before(name: str, sentence: str) -> re.Match | None:
    """ "the arcanist Allura Vysoren", "the druid Keyleth casts…": what X is, said before X on its line; not where
    X begins a clause of its own ("after the lecture Norah and Silvius went up", "the address Trixie gave them"),
    the words before X then belonging to what came before."""
    m = re.search(rf"\b(the[ \t]+[a-z][\w'’-]+)[ \t]+{name}\b(?:(?:,?\s+and\s+[A-Z][\w'’-]*)*\s+([a-z]+))?", sentence)
    return None if m is None or (m.group(2) and _happened(m.group(2))) else m


def _a_clause(words: str) -> bool:
    """What was read as a description holds a verb that says something happened ("The lecture went well, Norah…"):
    a description is a noun and what qualifies it. Its capitalised words are a name's ("The Lost City")."""
    return any(_happened(word) for word in re.findall(r"\b[a-z]+\b", words))


def _happened(word: str) -> bool:
    """A verb that says something happened or is ("went", "gave", "is", "says"): a word that is only ever a verb
    (lemminflect's dictionary), in a form of its tenses (``participle`` reads lemminflect's forms by their tags) and
    never a participle, which describes as an adjective does ("a lost soul", "a wounded soldier", "the fallen
    angel")."""
    from lemminflect import getAllLemmas  # its dictionary is loaded once, on first use

    lemmas = getAllLemmas(word)
    if not lemmas or not set(lemmas) <= {"VERB", "AUX"} or word.endswith("ed"):
        return False
    told = any(participle(word, tag) for tag in ("VBD", "VBZ", "VBP"))
    return told and not any(participle(word, tag) for tag in ("VBN", "VBG"))
