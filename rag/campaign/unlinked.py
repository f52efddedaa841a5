"""People, places and things the notes name but never link nor give a page: what People & places lists of a vault
written without ``[[links]]``.

Why: most players link a name once in a note, or never. A detective campaign's 33 session logs hold one link in
all; its People & places page listed the five player characters (who have pages) and no one else, though the
notes write "Mme Arlette" in 28 passages and "Adrian von Brahm" in a dozen. A name is known by how the notes write
it, as a question typed without capitals is read (``rag.campaign.capitals``):

- **a name is a run of words the notes capitalise in mid-sentence nearly every time** ("Arlette", "Brahm"), with
  the particles between them ("Adrian von Brahm") and an abbreviated title before them ("Prof. Mink", whose
  "Mink" the notes' capitals cannot tell from a sentence's first word); a word written in lower case as often
  ("tavern") breaks the run. "Nearly every time" is measured against the names the notes link or page
  (``name_share``): a player who types in lower case capitalises "Izaya" one time in five, and "Linzi" as often;
- **written in two passages or more** (``MIN_PASSAGES``): a name said once is a passing mention;
- **not a word of the language on its own** ("Common", "Inn", "Lord"), nor a day or a month (``calendar``'s
  names): a one-word name that is a dictionary word is capitalised as a title or a heading is, and tells no one's
  name;
- **not an abbreviation** ("Prof." in "Prof. Mink", "Mrs." in "Mrs. Wachter"): a word the notes write with a
  period after it nearly every time is a title's short form, no one's name;
- **not part of a name already known**: a run that writes a linked or paged entity's name ("Percy de Rolo")
  is that entity, and a name holding one of its words that no dictionary has ("Rolo", "Musel Klossowski de
  Rolo") is that entity or its family, no one new, unless the notes write that word alone more often than there
  ("Vundus", once typed beside "Varkanus" where a sentence ended without its period);
- **not in the evening's own business** (``rag.campaign.evening.the_evening``): the announcements and the break
  name the show's sponsors and conventions, no one of the story;
- **not another way of writing a known name**: with an "s" after it ("Edgars", "Cedriks house": a possessive
  typed without its apostrophe) or one letter off ("Cedrick" for the linked Cedrik; as
  ``rag.campaign.spelling.misspelt`` reads a misspelt link); two unlinked names so alike are one ("Jamison" and
  "Jameson"), written as the notes write it most;
- **one entry per person**: a shorter name that only one longer name holds ("Brahm", "Adrian" in "Adrian von
  Brahm") is that one; held by several ("Cimber" of Artus and Valindra), or after an "of" ("Waterdeep" in
  "Blackstaff of Waterdeep"), it is kept apart.
"""

from __future__ import annotations

import calendar
import re
from collections import Counter
from collections.abc import Iterable, Iterator

from rag.campaign.capitals import CASE_LETTERS, NAME_SHARE, Capitals
from rag.campaign.evening import the_evening
from rag.campaign.mentions import Naming
from rag.campaign.spelling import misspellings
from rag.models import Chunk
from rag.names import NAME_PARTICLES, STOPWORDS, is_a_word

MIN_PASSAGES = 2  # passages a name must be written in to be listed: said once, it is a passing mention
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_TOKEN = re.compile(r"[^\W\d_][\w'’-]*|[^\w\s]|\d+")  # a word, or each mark or number on its own
_CAPITALISED = re.compile(r"\b([A-Z][\w'’-]*)(\.?)")
_CALENDAR = frozenset(n.casefold() for n in (*calendar.day_name, *calendar.month_name, *calendar.day_abbr) if n)


def _words(run: str) -> list[str]:
    return _WORD.findall(run)


def _fold(word: str) -> str:
    return word.casefold().replace("’", "'").removesuffix("'s")


def _named_runs(line: str, name_words: set[str], abbreviations: set[str]) -> Iterator[str]:
    """The runs of ``line`` made of the notes' name words (``name_words``, folded), with the particles between them
    and an abbreviation's period after its word (``abbreviations``): "met Prof. Mink and Adrian von Brahm at the
    Tavern" → "Prof. Mink", "Adrian von Brahm" (when the notes write "tavern" in lower case too). A possessive ends
    a run ("Brahm's factory")."""
    start = end = None  # the run so far: from its first name word to its last
    going = False  # what came since its last name word may go on with it (a particle, an abbreviation's period)
    titled = False  # an abbreviated title came last ("Prof."): the capitalised word after it is a name
    for m in _TOKEN.finditer(line):
        token = m.group(0)
        if _a_name_word(token, name_words) or (titled and token[:1].isupper() and not token.isupper()):
            if start is None or not going:
                if start is not None:
                    yield _own(line[start:end])
                start = m.start()
            end, going, titled = m.end(), _own(token) == token, False
        elif start is not None and going and token in NAME_PARTICLES:
            continue
        elif start is not None and going and token == "." and m.start() == end and line[start:end] in abbreviations:
            titled = True  # "Prof. Mink", where the notes' capitals cannot tell "Mink" from a sentence's first word
        else:
            if start is not None:
                yield _own(line[start:end])
            start = end = None
            going = titled = False
    if start is not None:
        yield _own(line[start:end])


def _a_name_word(token: str, name_words: set[str]) -> bool:
    """A word capitalised as a name is ("Arlette", not "ARLETTE") that the notes write so (``name_words``), and no
    day or month."""
    folded = _fold(token)
    return (
        token[:1].isupper()
        and not token.isupper()
        and folded in name_words
        and folded.removesuffix("s") not in _CALENDAR
    )


def _own(run: str) -> str:
    """ "Blinsky's" is Blinsky."""
    return re.sub(r"['’]s$", "", run)


def _a_name(run: str) -> bool:
    words = _words(run)
    return bool(words) and (len(words) > 1 or not is_a_word(_fold(words[0])))


def _other_forms(words: set[str]) -> dict[str, set[str]]:
    """Each of ``words`` (folded) → those of them it is written another way of, either way: with an "s" after it,
    as a possessive typed without its apostrophe ("Cedriks house") or a plural ("the Cedriks"), or one name
    misspelt (``rag.campaign.spelling.misspellings``: "Cedrick")."""
    forms: dict[str, set[str]] = {}
    pairs = [(w, w.removesuffix("s")) for w in words if w.endswith("s") and w.removesuffix("s") in words]
    for a, b in pairs + misspellings(words):
        forms.setdefault(a, set()).add(b)
        forms.setdefault(b, set()).add(a)
    return forms


def unlinked_names(chunks: Iterable[Chunk], known: Naming, known_names: Iterable[str]) -> list[list[str]]:
    """The names the notes write that no known entity (``known``: the linked and paged ones, called
    ``known_names``) goes by, grouped one list per person, place or thing: its fullest name first, then its other
    names, most written first (the module's docstring)."""
    chunks = list(chunks)
    known_names = list(known_names)
    capitals = Capitals.count(c.text for c in chunks)
    name_words = set(capitals.names(share=name_share(capitals, known_names)))
    passages: Counter[str] = Counter()
    written, stopped = Counter(), Counter()  # capitalised words: how often written, how often with a period after
    knows: dict[str, bool] = {}  # a run → whether it writes a known entity's name
    beside_known: Counter[str] = Counter()  # folded words no dictionary has → passages where they stand in a known name
    story = [c for c in chunks if not the_evening(c.heading)]
    for c in story:
        for m in _CAPITALISED.finditer(c.text):
            written[m.group(1)] += 1
            stopped[m.group(1)] += bool(m.group(2))
    abbreviations = {w for w, n in written.items() if stopped[w] >= NAME_SHARE * n}
    for c in story:
        found = {run for line in c.text.splitlines() for run in _named_runs(line, name_words, abbreviations)}
        beside: set[str] = set()
        for run in found:
            if run not in knows:  # read in mid-sentence, where a name of ordinary words is one too
                knows[run] = bool(known.named(f"and {run}"))
            if knows[run]:
                beside.update(f for w in _words(run) if not is_a_word(f := _fold(w)))
            else:
                passages[run] += 1
        beside_known.update(beside)
    # a word written in a known name at least as often as on its own is part of it ("Rolo" of Percy de Rolo), not a
    # name that once stood beside one ("Varkanus Vundus", a sentence's end typed without its period)
    alone = Counter({_fold(run): n for run, n in passages.items() if len(_words(run)) == 1})
    taken = {w for w, n in beside_known.items() if n >= alone[w]}
    runs = [
        run
        for run, n in passages.items()
        if n >= MIN_PASSAGES
        and _a_name(run)
        and not any(_fold(w) in taken for w in _words(run))
        and not (len(_words(run)) == 1 and run in abbreviations)
    ]
    known_words = {f for name in known_names for w in _words(name) if len(f := _fold(w)) >= CASE_LETTERS}
    single = {_fold(r) for r in runs if len(_words(r)) == 1}
    forms = _other_forms(single | known_words)
    runs = [r for r in runs if len(_words(r)) > 1 or not forms.get(_fold(r), set()) & known_words]
    folded = {run: tuple(_fold(w) for w in _words(run)) for run in runs}
    longest_first = sorted(runs, key=lambda r: (-len(folded[r]), -passages[r], r))
    group_of: dict[str, str] = {}  # a run → the fullest name of its group
    for run in longest_first:
        holders = {group_of[longer] for longer in group_of if _holds(folded[longer], folded[run])}
        if not holders and len(folded[run]) == 1:  # "Cedriks", "Jamison": a name written more often, another way
            holders = {
                group_of[r] for r in group_of if len(folded[r]) == 1 and folded[r][0] in forms.get(folded[run][0], ())
            }
        group_of[run] = holders.pop() if len(holders) == 1 else run
    groups: dict[str, list[str]] = {}
    for run in longest_first:
        groups.setdefault(group_of[run], []).append(run)
    return [
        [head, *sorted((r for r in members if r != head), key=lambda r: (-passages[r], r))]
        for head, members in groups.items()
    ]


def name_share(capitals: Capitals, known_names: list[str]) -> float:
    """How often a word must be capitalised in mid-sentence to be a name in these notes: ``NAME_SHARE`` of how
    often they capitalise the names they link or give a page (their words no dictionary has), at most
    ``NAME_SHARE``. Some players type in lower case: a real vault writes its linked "Izaya" capitalised one time in
    five and "linzi", "amiri", "tartuccio" as often, and People & places listed none of the NPCs it names in every
    session (vault-kingmaker walk). Notes whose known names are capitalised, as most are, keep ``NAME_SHARE``."""
    own = {
        f
        for name in known_names
        for w in _words(name)
        if len(f := _fold(w)) >= CASE_LETTERS and f not in STOPWORDS and not is_a_word(f)
    }
    share = capitals.share_of(own)
    return NAME_SHARE if share is None else NAME_SHARE * min(share, 1.0)


def _holds(longer: tuple[str, ...], shorter: tuple[str, ...]) -> bool:
    """``shorter``'s words stand together in ``longer``, which has more of them, and not after an "of": what a name
    is "of" is another thing ("Waterdeep" is no name of the Blackstaff of Waterdeep, "Vord" none of Lady Kima of
    Vord)."""
    n = len(shorter)
    return len(longer) > n and any(
        longer[i : i + n] == shorter and "of" not in longer[:i] for i in range(len(longer) - n + 1)
    )
