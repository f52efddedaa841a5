"""First mentions: "When did we first meet Osiris?" is answered where the notes first name Osiris.

Word matching cannot answer such questions: the passage that introduces a character rarely says "first",
and later sessions name the character far more often, so the first stages rank them higher. This stage
asks the store for the earliest session note that names each name in the question (capitalised, or, where the
question shows none, a word the campaign's notes write as a name), and offers that note's first passages naming it
as one more ranked list for the fusion.

Which name: the one whose first mention is latest. "When did Vox Machina first meet Clarota?" names the
party from session 1 on, and Clarota only from the meeting.
Only passages with a session number count: a character page says who someone is, not when they
appeared.

A first mention is not always a first meeting: session 1 may send the party to find Lady Kima, whom they meet in
session 6. When the question asks when they met (met, encountered, fought, saw), and the first passage naming
the person says nothing of a meeting, the earliest passage that names them *and* says the party meets,
encounters, fights or talks to them is offered instead. Anywhere in the passage: read only in the sentences naming
them (``tells_meeting``, as the answer's lead reads it), notes that tell a meeting over a paragraph ("Artur tries
to explain we mean no harm… The guy is Letek.") lost theirs (docs/experiments/README.md, fiftieth session).

Last mentions the same way round: "When did we last see Kima?" is answered where the notes last name Kima, the
latest session note naming her, its last passages naming her first; of several names, the one whose last mention
is earliest ("When did Vox Machina last see Kima?": the party is named to the end).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rag.models import Chunk, Filters
from rag.names import STOPWORDS, norm, sentences
from rag.question import Question
from rag.stores import Store

# What a passage says when the party actually meets someone (``Question.meeting``: a question that wants that).
MEETS = re.compile(
    r"\b(meet|meets|met|meeting|encounter\w*|fight\w*|fought|battl\w*|talk\w*|speak\w*|spoke|introduc\w*|"
    r"greet\w*|rescu\w*|confront\w*|ambush\w*|attack\w*|join\w*|free[sd]?|"
    r"(?:come|comes|came|coming)\s+across|(?:run|runs|ran|running|bump\w*)\s+into)\b",  # as questions ask it
    re.IGNORECASE,
)
PROBE = 100  # keyword hits read per probe; chunks naming the whole name rank first among them
MAX_PROBES = 8  # each probe looks only before the earliest mention found so far
PASSAGES = 3  # passages of the first note offered (in note order)
NO_SESSION_BELOW = -1e9  # a lower bound every session number passes
# Never what a first-time question without names is about: words without content, and the question's own frame.
_FRAME = (
    "first earliest last latest recently time times meet met meeting see saw seen encounter encountered appear appeared hear heard "
    "mention mentioned introduce introduced show showed run ran come came across learn learned find found "
    "episode session party group"
)
COMMON = STOPWORDS | frozenset(_FRAME.split())


def subjects(question: Question, cased: Mapping[str, bool]) -> list[str]:
    """What a first-time question is about: its names. One that shows none ("When did we first meet the keeper?")
    is about the words the campaign's notes write as names (``cased``: ``AliasTable.cased``, counted once at index
    time by ``rag.campaign.capitals``), neighbouring name words making one name ("vox machina")."""
    if question.names:
        return list(dict.fromkeys(question.names))
    words = question.normed.split()
    proper = {w for w in set(words) if len(w) >= 3 and w not in COMMON and cased.get(w)}
    phrases, run = [], []
    for word in [*words, ""]:
        if word in proper:
            run.append(word)
        elif run:
            phrases.append(" ".join(run))
            run = []
    return list(dict.fromkeys(phrases))


def _key(chunk: Chunk) -> tuple:
    return (chunk.campaign_no or 0, chunk.session, chunk.source, chunk.position)


def end_mention(
    store: Store, collection: str, name: str, filters: Filters, last: bool = False, says: re.Pattern | None = None
) -> Chunk | None:
    """The earliest passage (campaign, session, note, position) whose text names ``name`` in full, or with
    ``last`` the latest (and, with ``says``, matches it: a meeting).

    Each probe is a keyword search for the name limited to sessions up to (from, with ``last``) the best mention so
    far, so a name mentioned in thousands of passages still takes a few small searches. Any session bound skips
    unnumbered notes: a page says who someone is, not when they appeared."""
    wanted = f" {norm(name)} "
    pick, beyond = (max, lambda a, b: a > b) if last else (min, lambda a, b: a < b)
    best: Chunk | None = None
    for _ in range(MAX_PROBES):
        so_far = best.session if best else None
        lows = [s for s in (filters.session_min, so_far if last else None) if s is not None]
        highs = [s for s in (filters.session_max, None if last else so_far) if s is not None]
        probe = Filters(
            **{
                **vars(filters),
                "session_min": max(lows, default=NO_SESSION_BELOW),
                "session_max": min(highs, default=None),
            }
        )
        found = [c for c, _ in store.keyword_search(collection, name, PROBE, probe) if wanted in f" {norm(c.text)} "]
        found = [
            c for c in found if (says is None or says.search(c.text)) and (best is None or beyond(_key(c), _key(best)))
        ]
        if not found:
            return best
        best = pick(found, key=_key)
    return best


def tells_meeting(text: str, name: str) -> bool:
    """A sentence of ``text`` that names ``name``, or the one right before it, says the meeting (``MEETS``): notes
    tell an introduction over two sentences ("We meet a guy in the lab. The guy is Letek."). What the answer's lead
    reads to say "First met in": "Klarg stands near one of the pools" follows "they come across the bugbear named
    Klarg", and "We meet Burgomaster Ismark" a few sentences before "Strahd lives in Ravenloft" meets no Strahd."""
    wanted = f" {norm(name)} "
    said = sentences(text)
    return any(
        MEETS.search(s) or (i and MEETS.search(said[i - 1])) for i, s in enumerate(said) if wanted in f" {norm(s)} "
    )


def mention_passages(
    store: Store, collection: str, question: Question, filters: Filters, cased: Mapping[str, bool]
) -> list[Chunk]:
    """For a first-time question, the first passages naming its newest name, from its earliest note; for a
    last-time question, the last passages naming its name last seen earliest, from its latest note (latest first);
    [] for other questions, or names the notes never mention. ``cased``: which words the notes write as names."""
    last = question.last_mention
    if not (last or question.first_mention):
        return []
    ends = []
    for name in subjects(question, cased):
        chunk = end_mention(store, collection, name, filters, last)
        if chunk is not None:
            ends.append((_key(chunk), name, chunk))
    if not ends:
        return []
    _, name, end = min(ends) if last else max(ends)
    if question.first_mention and question.meeting and not MEETS.search(end.text):  # named before they were met
        met = end_mention(store, collection, name, Filters(**{**vars(filters), "session_min": end.session}), says=MEETS)
        end = met or end
    wanted = f" {norm(name)} "
    note = store.chunks(collection, end.source, Filters(view=filters.view))
    note = [c for c in note if c.position <= end.position] if last else [c for c in note if c.position >= end.position]
    return [c for c in (reversed(note) if last else note) if wanted in f" {norm(c.text)} "][:PASSAGES]
