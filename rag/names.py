"""Words of a text: its proper names (by capitalisation), its words and content words, the words that carry no
content, and the normal form passages and names are compared in. Read the same way in a question
(``rag.question``) and in the passages that answer it (search, reranker, answerer, evaluation). And its sentences,
one reading for the answerer's quotes, the recap and other names."""

from __future__ import annotations

import re
import string
import threading
import unicodedata
from functools import lru_cache
from itertools import accumulate, pairwise

_NOT_NAMES = {
    "What",
    "Which",
    "Who",
    "Whom",
    "Whose",
    "When",
    "Where",
    "Why",
    "How",
    "Did",
    "Does",
    "Do",
    "Is",
    "Was",
    "Were",
    "Are",
    "And",
    "But",
    "So",
    "Then",
    "The",
    "A",
    "An",
    "In",
    "On",
    "After",
    "Before",
    "Session",
    "Episode",
    "Tell",
    "Can",
    "Could",
    "Would",
    "Has",
    "Had",
    "Have",
    "I",
    "If",
}

# Words that carry no content of their own: left out of keyword overlap (the extractive answerer) and never
# taken as what a question is about (first mentions).
_STOPWORDS_TEXT = """a an the and or but if of to in on at by for with from into onto about as is are was were be been being
    do does did done have has had having what which who whom whose when where why how that this these those
    it its they them their there then than so such not no nor can could would should will shall may might must
    he she his her him we our us you your i me my after before during while up down out over under again
    once any some all each both few more most other own same too very just also ever even still yet get got
    many much often"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


# What follows an owner's name, as a regex: "Molly's", "Molly’s", "the Greyspines' manor", "Jess’ coat".
OWNER_MARK = r"(?:['’]s|s?['’])"

# The auxiliary verbs a question is built with ("when *did* …", "what *was* …"); AUXILIARIES as a regex alternation.
_AUXILIARY_WORDS = "did does do was were is are has have had will would can could should"
AUXILIARY_WORDS = frozenset(_AUXILIARY_WORDS.split())
AUXILIARIES = rf"(?:{'|'.join(_AUXILIARY_WORDS.split())})"


# A word's contracted ending: "Who's", "What're", "Who'd", "Where've" are the question word and its verb
_CONTRACTED = re.compile(r"['’](?:s|re|d|ve|ll)$")
# The lower-case words a name may hold between its capitalised ones: "Heart of the Wild", "Vraxen de Vrait",
# "Valentina von Zapp" (one or two together: "Ludwig van der Berg"); never a name's first word once a question
# word before them is dropped ("What's the Black Spider" names "Black Spider")
NAME_PARTICLES = frozenset(
    {"of", "the", "de", "du", "del", "della", "di", "da", "von", "van", "der", "den", "le", "la"}
)
# Capitalised words, joined by particles or by a period the segmenter reads as an abbreviation's ("Prof. Mink",
# "Mt. Celestia"; ``names`` cuts a run at a period that ends a sentence: "…met Kima. Grog…")
_NAME_WORD = r"[A-Z][\w'’-]+"
_NAME = re.compile(rf"\b{_NAME_WORD}(?:\.?\s+(?:(?:{'|'.join(sorted(NAME_PARTICLES))})\s+){{0,2}}{_NAME_WORD})*")


def names(text: str) -> list[str]:
    """Runs of capitalised words, without a leading question word (contracted or not): "When did Vox Machina
    first meet Clarota?" → ["Vox Machina", "Clarota"]; "Who's Gell Wiildheart?" → ["Gell Wiildheart"]."""
    out = []
    for m in _NAME.finditer(text):
        for run in sentences(m.group(0)) if ". " in m.group(0) else [m.group(0)]:
            parts = run.removesuffix(".").split()
            while parts and (_CONTRACTED.sub("", parts[0]) in _NOT_NAMES or parts[0] in NAME_PARTICLES):
                parts = parts[1:]
            if parts:
                out.append(re.sub(r"['’]s$", "", " ".join(parts)))  # "Betsy's ship": Betsy
    return out


def norm(text: str) -> str:
    """Case-folded words separated by single spaces: how a name is looked for in a passage, how citation
    labels are compared, and the data sets' evidence-matching rule (shared/data/README.md)."""
    return " ".join("".join(ch if ch.isalnum() else " " for ch in text.casefold()).split())


def without_marks(text: str) -> str:
    """The text with the marks over and under its letters left out: "Jurō" → "Juro", "Shakäste" → "Shakaste".
    Notes copy a name as the setting writes it, with its accents and long vowels; a player types it on a keyboard
    that has none. Both are the same name (the letters Unicode decomposes; "ø" and "æ", which it does not, stay)."""
    if text.isascii():
        return text
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


_ALNUM = re.compile(r"[^\W_]+")


def norm_words(text: str) -> list[str]:
    """``norm``'s words, by regex: ten times faster, for hot paths that read many passages (the reranker's
    features, names the notes never write)."""
    return _ALNUM.findall(text.casefold())


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(text: str) -> list[str]:
    """Case-folded words (a contraction or possessive kept whole: "vex's"), in order; a letter's marks left out
    ("Jurō" is "juro", not "jur")."""
    return _WORD.findall(without_marks(text.casefold()))


def content_words(text: str) -> set[str]:
    """The stemmed words that carry content: what keyword overlap counts (the offline answerer)."""
    return {stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 1}


# a word typed in lower case, long enough that one letter off is a slip, not another word ("lift" / "left")
_TYPED_WORD = re.compile(r"(?<![\w'’-])[a-z]{6,}(?![\w'’-])")


def read_words(text: str) -> set[str]:
    """A passage's ``content_words`` as a reader takes them: a word no dictionary knows, typed in lower case, also
    reads as the dictionary's words one letter from it (``misread``). Notes are typed at the table: "Sumrak was
    turned into a warewolf by Kiril" answers "Who turned Sumrak into a werewolf?". Read on the passage's side only,
    so a question's words, and what the evaluation counts, stay as typed."""
    said = content_words(text)
    for word in _TYPED_WORD.findall(text):
        said.update(misread(word))
    return said


@lru_cache(maxsize=16384)
def misread(word: str) -> tuple[str, ...]:
    """The stems of the dictionary's words (lemminflect's) one letter from ``word`` when it is none: a letter added,
    dropped, changed or two swapped ("warewolf" → werewolf, "captian" → captain and caption). Not its first letter,
    nor only its end: a rhyme or a plural is another word. Names are capitalised and so never read here."""
    if is_a_word(word):
        return ()
    return tuple(
        sorted(
            {
                stem(other)
                for other in one_letter_away(word)
                if other[0] == word[0]
                and other[:-1] != word[:-1]
                and not other.startswith(word)
                and not word.startswith(other)
                and is_a_word(other)
            }
        )
    )


def terms(text: str) -> list[str | None]:
    """Stemmed words in order, stopwords kept as None so that adjacency and spans stay true to the text (the
    learned reranker's features)."""
    return [None if w in STOPWORDS or len(w) < 2 else stem(w) for w in words(text)]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The word's Snowball (Porter2) stem: "party"/"parties", "die"/"died"/"dying", "name"/"named" meet; "gave" and
    "given" stay apart (the answerer reads a question's verb by lemma, ``rag.question.who.base``). Shared by the
    extractive answerer, the citation check and the learned reranker's features, which must read words the same
    way: a maintained stemmer in place of a typed list of suffixes. Cached, so the stemmer runs once a word."""
    return _stemmer().stemWord(word.removesuffix("'s"))


_local = threading.local()


def _stemmer():
    """One Snowball stemmer per thread: it keeps its word in its own fields while it works, and the app answers
    several players at once."""
    if not hasattr(_local, "stemmer"):
        import snowballstemmer  # pure Python, BSD: the Snowball project's own

        _local.stemmer = snowballstemmer.stemmer("english")
    return _local.stemmer


def typed_without_capitals(text: str) -> bool:
    """No capital letter at all, as a chat is often typed ("who rules whitestone?"): its capitals say nothing of
    what it names. Not a question whose first letter alone is capitalised: that is how a question naming no one is
    written ("Who took the warhammer?"), and it would read "warhammer" as a name."""
    return text.islower()


def is_everyday_word(key: str) -> bool:
    """A word of everyday written English ("survivors", "sixth", "gonna"; names people give children too, "percy"):
    pyspellchecker's English word list (160,000 words counted in subtitles; loaded once, on the first question that
    needs it, ~.4 s) or lemminflect's dictionary (``is_a_word``), which alone lacks "survivor" and "sixth". What a
    question typed without capitals cannot be taken to mean as a name (``rag.question.question.named_in_lower_case``)."""
    return is_a_word(key) or key in _everyday_words()


def everyday_word_meant(typed: str) -> str | None:
    """The everyday word a word typed a letter off was meant for ("happend" → "happened", "sesion" → "session"):
    pyspellchecker's likeliest word one edit away (an everyday word is itself), or None when none is."""
    return _everyday_words().correction(typed)


@lru_cache(maxsize=1)
def _everyday_words():
    from spellchecker import SpellChecker

    return SpellChecker(language="en", distance=1)


def one_letter_away(word: str) -> set[str]:
    """Every string one edit from ``word``: a letter dropped, two swapped, one changed or one added."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + c + b[1:] for a, b in splits if b for c in string.ascii_lowercase}
    out |= {a + c + b for a, b in splits for c in string.ascii_lowercase}
    out.discard(word)
    return out


def is_noun(word: str) -> bool:
    """A word of the dictionary (lemminflect's) that may be a noun and never an adverb, and no stop word: "bear"
    and "house" after "her" or "Culain's" are what is owned, "first" and "yesterday" are not."""
    from lemminflect import getAllLemmas

    kinds = getAllLemmas(word)
    return "NOUN" in kinds and "ADV" not in kinds and word not in STOPWORDS


def is_a_word(key: str) -> bool:
    """A word of the dictionary (lemminflect's, loaded once on first use), in any of its forms."""
    from lemminflect import getAllLemmas

    return bool(getAllLemmas(key))


@lru_cache(maxsize=16384)
def _noun_lemmas(word: str) -> tuple[str, ...]:
    """The case-folded noun's singular forms, by lemminflect's dictionary (its regular rules for a word it does not
    know); the word itself when it has none."""
    from lemminflect import getAllLemmas, getAllLemmasOOV

    return tuple(getAllLemmas(word, "NOUN").get("NOUN") or getAllLemmasOOV(word, "NOUN").get("NOUN") or (word,))


@lru_cache(maxsize=16384)
def noun_forms(word: str) -> frozenset[str]:
    """The noun's singular and plural forms, from lemminflect's dictionary (its regular rules for a word it does not
    know): "party"/"parties", "elf"/"elves", "mouse"/"mice", "halfling"/"halflings". How the answerer finds a thing
    the question names where a sentence says it in the other number, in place of an "s" typed on or cut off."""
    from lemminflect import getAllInflections, getAllInflectionsOOV

    word = word.casefold()
    lemmas = _noun_lemmas(word)
    forms = {word, *lemmas}
    for lemma in lemmas:
        inflected = getAllInflections(lemma, "NOUN") or getAllInflectionsOOV(lemma, "NOUN")
        forms.update(form for group in inflected.values() for form in group)
    return frozenset(forms)


def plural(noun: str) -> bool:
    """The noun is a plural form ("books", "elves", "children"), by lemminflect's dictionary: "mentions books", never
    "mentions a books". A word it does not know is read by its regular rules."""
    word = noun.casefold()
    return word not in _noun_lemmas(word)


def article(phrase: str) -> str:
    """The article before the phrase, "a " or "an ", by the sound its first letter usually makes ("an ogre", "a password")."""
    return "an " if phrase[:1].casefold() in "aeiou" else "a "


@lru_cache(maxsize=16384)
def noun_pattern(word: str) -> str:
    """A regular expression group matching the noun in either number (``noun_forms``): how a sentence is searched
    for a thing the question names ("Whose coat…", "a bear named…", "How many dwarves…")."""
    return forms_pattern(noun_forms(word))


def forms_pattern(forms: frozenset[str] | set[str]) -> str:
    """A regular expression group matching any of the words ``forms`` (longest first, so "parties" is not read as
    "part…")."""
    return "(?:" + "|".join(re.escape(f) for f in sorted(forms, key=lambda f: (-len(f), f))) + ")"


_TITLE_WORDS = """
lord lady king queen prince princess sir dame captain commander general baron baroness duke duchess count countess
mister mr mrs ms miss master mistress father mother brother sister professor doctor dr watchmaster archmage emperor
empress chief
"""
TITLES = frozenset(_TITLE_WORDS.split())  # a name opening with one of these is a person's


def said_by_one_word(name: str, said: str) -> bool:
    """A two-word personal name ("Lionel Gayheart", "Locke Hancock") is said by either word of four letters or
    more, but not by a title ("King Murghol" is not said by "Who is the king…?"); a name built with a particle
    ("Heart of the Wild") only whole. A title in front names no one else: "Lady Fiona Wakter" is said by "Fiona"
    as "Fiona Wakter" is, and "Lady Kima" by "Kima". ``said``: a text's ``norm`` form, padded with a space at each
    end."""
    words = norm(name).split()
    while len(words) > 1 and words[0] in TITLES:
        words = words[1:]
    personal = len(words) <= 2 and not NAME_PARTICLES & set(words)
    return personal and any(len(w) >= 4 and w not in TITLES and f" {w} " in said for w in words)


def in_full(name: str) -> str:
    """A pattern for a name as the notes may write it in full, ``name`` being a regular expression for the name as
    asked: "Who is Scanlan?" is answered by "Sam Riegel plays Scanlan Shorthalt, the gnome bard.", as a two-word
    name is said by either of its words (``said_by_one_word``). Up to two more capitalised words, on the line."""
    return rf"(?:{name})(?: (?-i:[A-Z])[\w'’-]+){{0,2}}"


def names_passage(wanted: tuple[str, ...], text: str) -> bool:
    """The passage names someone the question names: the whole name, or for a two-word personal name
    ("Lionel Gayheart") either word; a name built with "of" ("Heart of the Wild") only whole."""
    said = f" {norm(text)} "
    return any(f" {norm(name)} " in said or said_by_one_word(name, said) for name in wanted)


# What ends a clause before "the battle, X": a preposition right before it, or an opening "After/When…" with no
# comma since (a description before a name, "his Huntmaster, Vanessa", opens its clause)
CLAUSE_BEFORE = re.compile(
    r"\b(?:after|before|during|in|on|at|from|with|by|for|of|to|into|through|against)\s+$"
    r"|(?-i:\b[a-z]\w*ing)\s+$"  # "Despite losing the vote, Keyleth…"; not "King Murghol"
    r"|^\W*(?:after|before|when|while|once|as|if|since|until|because|during|in|on|at|despite|though|although)\b[^,;]*$",
    re.I,
)


def introduction(name: str) -> str:
    """A pattern for how notes introduce someone, ``name`` being a regular expression for their name: "a pet bear
    named Trinket", "the illithid, named Clarota", "a female halfling paladin, named Lady Kima" (a title may come
    between). Group 1 is what they are ("a pet bear"). Read by the search ("Who is X?" gets that passage first)
    and by the answerer (its lead says it)."""
    return (
        rf"(?:^|(?<=[\s(]))((?:an?|the)\s+(?:[\w'’-]+\s+){{0,4}}?[\w'’-]+),?\s+(?:named|called)\s+"
        rf"(?:(?-i:[A-Z])[\w'’-]*\s+){{0,2}}(?:{name})\b"
    )


# "Lord Nostoc Greyspine, who is the head of the mines": a relative clause after a name says what they are, as "X is
# …" does. Read by the search ("Who is X?" gets that passage first) and by the answerer (its lead says it).
WHO_IS = r",?\s+who\s+(?:is|was|are|were)\b"


# A quotation in double quotes, straight or curly, within one line
_QUOTATION = re.compile(r'"[^"\n]+"|“[^”\n]+”')
_GOES_ON = re.compile(r"\s*[-–—,;:]")  # marks that go on with the sentence before them, never start one
_LINE = re.compile(r"[^\n]+")


def sentences(text: str) -> list[str]:
    """The sentences of a text in order (a line break ends one), stripped, none empty: what the answerer quotes
    (``rag.generators._sentences``), the recap shows (``rag.campaign.recap``) and other names are read in
    (``rag.campaign.other_names``). Each is cut from ``text``, never taken from the segmenter's output, so a quote
    is always the notes' own characters.

    A regular expression ended a sentence at every full stop before a capital, so "Mr. Durst", "Mt. Celestia" and
    "J. R. Hawkins" were cut in two and a quote put its citation inside a name. sentencex (Wikimedia's rule-based
    segmenter, MIT, Rust: a few µs a line) knows titles, initials and abbreviations. It never ends a sentence inside
    quotation marks, though, so a recap typed as one quoted paragraph was a single "sentence" of a thousand
    characters, quoted whole: here a quotation of several sentences is read sentence by sentence, as the notes'
    other prose is ('"Go!" he cried.' stays one). And no sentence starts with a dash or a comma: '"Then move the
    carpet!" - Morgan' keeps who said it, "the ship? - at least he is free" its thought."""
    return [text[a:b] for a, b in sentence_spans(text)]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where ``sentences`` are in ``text``: (start, end) of each, whitespace trimmed. A line break always ends one:
    notes put one thought on a line, a bullet or a heading, punctuated or not. The chunker cuts a long paragraph at
    these, so a passage never ends on "Mr."."""
    spans: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        spans += [(line.start() + a, line.start() + b) for a, b in _line_spans(line.group())]
    return spans


def _line_spans(line: str) -> list[tuple[int, int]]:
    ends = set(_ends(line))
    for quotation in _QUOTATION.finditer(line):
        ends.update(quotation.start() + 1 + end for end in _ends(quotation.group()[1:-1])[:-1])
    ends = {end for end in ends if 0 < end < len(line) and not _GOES_ON.match(line, end)}
    cuts = [0, *sorted(ends), len(line)]  # the last runs to the end
    spans = []
    for a, b in pairwise(cuts):
        part = line[a:b]
        if part.strip():
            spans.append((a + len(part) - len(part.lstrip()), a + len(part.rstrip())))
    return spans


def _ends(text: str) -> list[int]:
    """Where sentencex's sentences of ``text`` end. Its pieces are ``text`` cut up, so their lengths add up; should
    one ever come back changed (trimmed, say), it is looked for in the text instead. Imported here: every reader of
    a question imports this module, and only readers of passages need the segmenter."""
    from sentencex import segment

    pieces = segment("en", text)
    if "".join(pieces) == text:
        return list(accumulate(map(len, pieces)))
    ends, at = [], 0
    for piece in map(str.strip, pieces):
        if (found := text.find(piece, at)) >= 0:
            at = found + len(piece)
            ends.append(at)
    return ends
