"""The ``Question`` value: a player's question read once, into everything the stages after it need.

Why one reading: the search, the reranker, question expansion, the answerer and the follow-up rules each used to
read the question's text with patterns of their own ("Who is X?" was recognised four ways). Now ``read_question``
reads it here, once per question text, and every stage takes the frozen ``Question``; no stage re-reads the text.
The patterns live in this package's modules, each beside a table of example questions
(``rag/question/examples.yaml``, checked by ``tests/test_question.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rag.names import (
    STOPWORDS,
    content_words,
    everyday_word_meant,
    is_everyday_word,
    names,
    norm,
    one_letter_away,
    terms,
    typed_without_capitals,
    words,
)
from rag.question.details import Attribute, asked_attribute, counted
from rag.question.kinds import (
    answer_kind,
    asks_about_us,
    asks_definition,
    asks_denial,
    asks_ending,
    asks_first_mention,
    asks_last_mention,
    asks_meeting,
    asks_number,
    asks_several,
    asks_supposing,
    focus,
    identity_subject,
    question_proper,
    question_words,
)
from rag.question.turns import StoryOrder, leans_on_last_turn, session_mentions, sessions_named, story_order
from rag.question.typed import as_asked
from rag.question.who import asked_owner_of, asked_role, asked_verbs, asks_doer, done_to

_FIRST_WORD = re.compile(r"\W*\S+")
_LETTER_WORD = re.compile(r"[^\W\d_]{3,}")
_FILLER = frozenset({"happen", "happened", "happens", "thing", "things"})  # "what happened…" asks for no word
# "How many times did we fight duergar?" asks how often: no amount (the occasions, told one by one), and "times" is
# an asking word there, like "many" and "often" (``STOPWORDS``); read as "How often…" for its kind and its words
_HOW_MANY_TIMES = re.compile(r"\bhow\s+many\s+times\b", re.I)


@dataclass(frozen=True)
class Question:
    """A question as the stages read it. ``text`` is what was asked (a follow-up: its standalone form)."""

    text: str
    # what it asks for
    kind: str  # rag.question.kinds.KINDS: what the short answer must be ("open": none)
    focus: str  # the noun it asks about ("treasure"), "" when none
    subject: str | None  # X of "Who is X?"
    definition: bool  # asks who or what something is (a page about it may answer)
    first_mention: bool  # "When did we first meet X?"
    last_mention: bool  # "When did we last see X?"
    meeting: bool  # ...asks when they met, not when X was first named
    several: bool  # asks about more than one occasion or person ("In which sessions…", "When has…", "Who is in…")
    ending: bool  # asks how a session ended ("Where did we leave off?"; the last one unless it names one)
    number: bool  # asks how much, many, old, far, long, a price or a year
    supposes: bool  # asks what would, could or might be ("What would Percy have as a familiar?"), not what was
    denies: bool  # asks who did not, or never did ("Whom did Keyleth not trust?")
    ours: bool  # asks in the party's voice ("What reward did we get?"): about the characters' story
    question_words: frozenset[str]  # who, what, when… as used anywhere in it
    # who did what
    verbs: frozenset[str]  # the verb(s) a "who" or "where did…" question asks about, by rag.question.who.base
    role: str | None  # "Who is the king of…?" → "king"
    owner_of: str | None  # "Whose skeleton…?" → "skeleton"
    asks_doer: bool  # "Who gave…?" (the doer), not "Who did Locke marry?"
    done_to: frozenset[str]  # "Who took the warhammer?" → {"warhammer"} (stems): what the doer did it to
    # details
    counted: str | None  # "How many healing potions…?" → "healing potions" (its last word is the noun counted)
    attribute: Attribute | None  # "the name of Yosei's father", "Morgan's birthday"
    # names and words
    names: tuple[str, ...]  # capitalised names, without a leading question word
    asked_names: tuple[str, ...]  # names the notes should write (never its first word, nor "NPC", "DM")
    normed: str  # rag.names.norm of the text
    words: frozenset[str]  # case-folded words, a possessive's "'s" dropped
    letter_words: frozenset[str]  # case-folded runs of three letters or more
    content: frozenset[str]  # stemmed content words (keyword overlap)
    terms: tuple[str, ...]  # stemmed content words in order, without repeats or "what happened" filler
    # the conversation and the campaign
    leans_back: bool  # leans on the last turn ("What did she do next?")
    session_mentions: tuple[str, ...]  # "session 5" as written
    sessions_named: tuple[float, ...]  # asked about by number ("in session 5")
    order: StoryOrder | None  # "last session", "between sessions 10 and 12", "before we reached Omu"

    def __str__(self) -> str:
        return self.text

    @property
    def by_order(self) -> bool:
        """Answered by the order of the notes ("When did we first meet X?", "…last see X?"): the earliest or latest
        passage naming X (the search's first-mention stage), not the one that best matches the question's words."""
        return self.first_mention or self.last_mention


# A word typed without capitals that may be a name: letters only, a possessive's mark after it ("strahd's",
# "the briarwoods' feast")
_TYPED_WORD = re.compile(r"(?<![\w'’-])[a-z]+(?=(?:['’]s|(?<=s)['’])?(?![\w'’-]))")
LOWER_CASE_NAME_LETTERS = 4  # shorter words no word list knows are more often "npc", "tpk" or a slip than a name


def named_in_lower_case(text: str, subject: str | None, cased: Mapping[str, bool] | None = None) -> str:
    """The question with its names capitalised when it was typed without capitals, as a chat often is
    (``rag.names.typed_without_capitals``): "who rules whitestone?" names Whitestone as surely as "Who
    rules Whitestone?". The campaign's notes say best which words are names (``cased``, word → whether they write
    it as one: ``rag.campaign.capitals``): "grog" and "clay" are names where they capitalise them, "greatsword" is
    none where they write it in lower case. A word they do not settle is a name when it is no word of everyday
    English (``rag.names.is_everyday_word``: "survivors" and "gizmo" are words, "whitestone" and "strahd" names).
    An identity question's subject is its name whole ("who is lady kima" → "Lady Kima"). A word the notes do not
    settle that is an everyday word typed a letter off, and no name of theirs a letter off, is that word ("wat
    happend in sesion 29" asks what happened in session 29; ``typo_of``). A question with a capital is left as
    typed: its capitals say what it names."""
    if not typed_without_capitals(text):
        return text
    if subject:
        text = text.replace(subject.casefold(), subject)
    cased = cased or {}

    def capitalised(m: re.Match[str]) -> str:
        word = m.group(0)
        if word not in cased and word.endswith("s") and cased.get(word[:-1]):  # "vexs bear": Vex's, typed without
            return f"{word[:-1].capitalize()}'s"  # its apostrophe, as a chat is (the notes never write "vexs")
        as_written = cased.get(word)
        if as_written is None:
            if len(word) < LOWER_CASE_NAME_LETTERS or word in STOPWORDS or is_everyday_word(word):
                return word
            return typo_of(word, cased) or word.capitalize()
        return word.capitalize() if as_written else word

    return _TYPED_WORD.sub(capitalised, text)


def typo_of(word: str, cased: Mapping[str, bool]) -> str | None:
    """The everyday word ``word`` was typed for (``rag.names.everyday_word_meant``: "happend" → "happened"), unless
    a name the notes write is a letter off too ("strhad" may be Strahd, which the spelling stage reads): a chat is
    typed fast, and a slip read as a name was searched for ("they never mention Happend"). Only where the notes are
    known (``cased`` not empty): without them, "strahd" would be read as "strand"."""
    if not cased:
        return None
    meant = everyday_word_meant(word)
    if meant is None or any(cased.get(near) for near in one_letter_away(word)):
        return None
    return meant


def read_question(text: str, cased: Mapping[str, bool] | Callable[[], Mapping[str, bool]] | None = None) -> Question:
    """Read a question once. Cheap (tens of microseconds; the first one typed without capitals loads a word list,
    ``named_in_lower_case``): a pure function of the text and, for a question typed without capitals, of the
    campaign's ``cased`` words (``named_in_lower_case``; given as a function, it is called only for such a
    question). The question is read as if typed straight at a keyboard (``rag.question.typed.as_asked``, which
    ``text`` holds): a phone's curled marks, capitals that say nothing ("WHO GAVE US THE MAP?") and a request
    around it ("Can you tell me who…?") read as the plain question."""
    text = as_asked(text)
    if callable(cased):
        cased = cased() if typed_without_capitals(text) else None
    # What the short answer must be is read from the question proper ("Who is Pumat Sol, and how…?" asks who Pumat
    # Sol is); its names, words and story order from all of it, since the search looks for all of it
    typed = question_proper(text)
    subject = identity_subject(typed)
    # typed without capitals, it is read with its names capitalised, as the player would have written them; but
    # what a "who did it" question says was done to is read as typed: "who took the warhammer?" asks about a thing,
    # even one no word list knows
    named = named_in_lower_case(text, subject, cased)
    proper = typed if named == text else question_proper(named)
    subject = subject or (identity_subject(proper) if named != text else None)  # "what is the underdark?"
    role = asked_role(proper)
    opening = _FIRST_WORD.match(named)
    rest = named[opening.end() :] if opening else named
    asked, asked_all = (_HOW_MANY_TIMES.sub("how often", part) for part in (proper, named))
    found_terms = [t for t in terms(asked_all) if t is not None and t not in _FILLER]
    return Question(
        text=text,
        kind=(kind := answer_kind(asked)),
        focus=focus(proper),
        subject=subject,
        definition=asks_definition(proper),
        first_mention=asks_first_mention(proper),
        last_mention=asks_last_mention(proper),
        meeting=asks_meeting(proper),
        several=asks_several(asked) or asks_several(asked_all),
        ending=asks_ending(named),
        number=asks_number(proper),
        supposes=asks_supposing(proper),
        denies=asks_denial(proper),
        ours=asks_about_us(named),
        question_words=question_words(named),
        verbs=(verbs := asked_verbs(proper, role)),
        role=role,
        owner_of=asked_owner_of(proper),
        asks_doer=(doer := asks_doer(proper)),
        done_to=done_to(typed, verbs) if doer and not role else frozenset(),
        counted=counted(asked),
        attribute=asked_attribute(proper),
        names=tuple(names(named)),
        asked_names=tuple(n for n in names(rest) if not (n.isupper() and len(n) <= 4)),
        normed=norm(text),
        words=frozenset(w.removesuffix("'s") for w in words(text)),
        letter_words=frozenset(w.casefold() for w in _LETTER_WORD.findall(text)),
        content=frozenset(content_words(asked_all)),
        terms=tuple(dict.fromkeys(found_terms)),
        leans_back=leans_on_last_turn(named),
        session_mentions=session_mentions(named),
        sessions_named=(named_sessions := sessions_named(named)),
        order=story_order(named) or (StoryOrder("last") if kind == "recap" and not named_sessions else None),
    )
