"""Session notes and reference pages: what a question wants from each.

A campaign vault holds two kinds of notes. Session notes say what happened, and when; reference pages (people,
places, factions, lore: a third to a half of a real vault's passages) say who or what something is. A page is
short and starts with its subject's name, so it matches almost any question that names the subject and crowds
the session passages out of the top k. Three rules, each a setting, measured in docs/experiments/history.md:

- a question about what happened counts page passages for less (``retrieval.reference_weight``);
- "Who is X?" gets first the session passage whose sentence starts by saying what X is ("Avantika is the chosen
  of Uk'otoa…"), else the one introducing X ("the illithid, named Clarota"): where the notes tell who X is in the
  story, then X's own page (``retrieval.subject_first``; "page" puts X's own page first instead);
- a page that matches lends its score to the session passages that ``[[link]]`` it
  (``retrieval.link_weight``): the notes' own links say where its subject acted, even when those passages share
  no word with the question ("the dragon turtle" → the Aremag page → the session where the party paid Aremag).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from rag.campaign.aliases import AliasTable
from rag.campaign.evening import retells, the_evening
from rag.config import RetrievalConfig
from rag.models import Chunk
from rag.names import CLAUSE_BEFORE, WHO_IS, in_full, introduction, norm
from rag.question import Question

# "X is a …", "X was the …", "X is one of …": a sentence saying what X is, not what X did ("X is knocked out")
_KIND = r"(?:a|an|the|one\s+of)\b"
_DEFINES = rf"(?:is|was|are|were)\s+{_KIND}"
# "Grog, the goliath barbarian.": a short description set off by commas; not "Grog, the party interrogates the…"
_APPOSITION = r",\s+(?:a|an|the)\s+(?:[\w'’-]+\s+){0,4}[\w'’-]+(?=\s*(?:[.,;:)]|$))"
DEFINITION_DEPTH = 20  # the best passages searched for one

LinkSearch = Callable[[tuple[str, ...]], list[Chunk]]  # page names → session passages linking them


def page_names(chunk: Chunk) -> tuple[str, ...]:
    """How ``[[links]]`` name the page a passage is from: its file name (Obsidian links by it), and its title."""
    return tuple(dict.fromkeys(n for n in (PurePosixPath(chunk.source).stem, chunk.title) if n))


def reweigh(
    question: Question,
    fused: dict[str, float],
    chunks: dict[str, Chunk],
    config: RetrievalConfig,
    link_search: LinkSearch | None,
) -> tuple[dict[str, float], dict[str, float]]:
    """The fused scores with the page rules applied, and the link bonus per passage that got one.

    Passages found only through a link are added to ``chunks`` and ``fused``."""
    fused = dict(fused)
    links: dict[str, float] = {}
    if config.link_weight > 0 and link_search is not None:
        top = sorted(fused, key=lambda cid: -fused[cid])[: config.link_pages]
        pages: dict[str, str] = {}  # a page's source → its best passage among the top: one bonus per page
        for cid in top:
            if chunks[cid].is_reference:
                pages.setdefault(chunks[cid].source, cid)
        for cid in pages.values():
            for passage in link_search(page_names(chunks[cid])):
                if passage.session is None:
                    continue
                chunks.setdefault(passage.id, passage)
                links[passage.id] = links.get(passage.id, 0.0) + config.link_weight * fused[cid]
        for cid, bonus in links.items():
            fused[cid] = fused.get(cid, 0.0) + bonus
    if not question.definition:  # what happened: told in a session note, where it happened
        for cid in fused:
            fused[cid] *= told_elsewhere(chunks[cid], config, question.ours)
    return fused, links


def told_elsewhere(chunk: Chunk, config: RetrievalConfig, ours: bool = False) -> float:
    """How much a passage counts for a question about what happened: a page's (``reference_weight``) or a scene's
    retelling an earlier session, or the note's own summary in its front matter (``retold_weight``), for less, each
    told where it happened too. Asked in the party's
    voice ("What reward did we get?"), a scene of the evening's own business (the show's announcements, the break,
    the questions to the cast) counts for ``table_talk_weight``: it tells what the players did, not their
    characters' story."""
    weight = config.reference_weight if chunk.is_reference else 1.0
    if retells(chunk) or chunk.summary:  # a note's front matter summary retells it too, in brief
        return weight * config.retold_weight
    return weight * config.table_talk_weight if ours and the_evening(chunk.heading) else weight


def subject_passages(
    question: Question, order: list[str], chunks: dict[str, Chunk], aliases: AliasTable | None, prefer: str
) -> list[str]:
    """For "Who is X?": the passages to put first, in order (``retrieval.subject_first``). "session": the session
    passage saying what X is (``defining_passage``; failing one, the session passage that matches the question
    best), where the notes tell who X is in the story, then X's own page, which says it in a line the answer can
    lead with: the tune parts' players pointed at a session passage, never the page, for every "Who is X?" with a
    page (docs/experiments/README.md). "page": X's page, else that passage. "off": none."""
    if prefer == "off" or not question.definition:
        return []
    page = own_page(question, order, chunks, aliases)
    story = [cid for cid in order if not chunks[cid].is_reference]
    told = defining_passage(question, story, chunks) if prefer == "session" or page is None else None
    if prefer == "page" or page is None:
        return [cid for cid in (page or told,) if cid is not None]
    first = told or next(iter(story), None)  # else the story's best match for the question
    return [cid for cid in (first, page) if cid is not None]


def own_page(question: Question, order: list[str], chunks: dict[str, Chunk], aliases: AliasTable | None) -> str | None:
    """The best-ranked passage of X's own page (by its name, or a name the notes give X), or None."""
    wanted = {norm(n) for n in question.names}
    if aliases is not None:
        wanted |= {norm(entity) for entity in aliases.mentions(question.text).values()}
    said = f" {question.normed} "
    for cid in order:
        chunk = chunks[cid]
        if chunk.is_reference and any(
            norm(n) in wanted or f" {norm(n)} " in said for n in page_names(chunk) if len(norm(n)) >= 3
        ):
            return cid
    return None


def defining_passage(question: Question, order: list[str], chunks: dict[str, Chunk]) -> str | None:
    """For "Who is X?" in notes without a page for X: the best-ranked passage with a sentence that starts by
    saying what X is ("Avantika is the chosen of Uk'otoa…"), where the other passages only mention X; failing
    that, the best-ranked of all candidates where the notes introduce X ("the illithid, named Clarota") or say in
    passing what X is ("Grog, the goliath barbarian."): a cast list names X once, so it ranks far down."""
    subjects = [n for n in question.names if len(n) >= 3]
    if not subjects:
        return None
    # a name asked by one word may be written in full; a full name is not another's first name ("Ichiro Toshekatsu")
    alternatives = "|".join(
        re.escape(n) if " " in n else in_full(re.escape(n)) for n in sorted(subjects, key=len, reverse=True)
    )
    defines = re.compile(rf"(?:^|[.!?]\s+|\n)[-*+\s]*(?:{alternatives})\s+{_DEFINES}", re.IGNORECASE)
    introduces = re.compile(introduction(alternatives), re.I)
    in_passing = re.compile(rf"\b(?:{alternatives}){_APPOSITION}", re.I | re.M)
    relative = re.compile(rf"\b(?:{alternatives}){WHO_IS}\s+{_KIND}", re.I)

    def describes(text: str) -> bool:
        if introduces.search(text) or relative.search(text):
            return True
        # "Not getting anywhere with Grog, the party interrogates…": a clause ends at the name
        return any(
            not CLAUSE_BEFORE.search(re.split(r"[.!?]\s+|\n", text[: m.start()])[-1]) for m in in_passing.finditer(text)
        )

    return next((cid for cid in order[:DEFINITION_DEPTH] if defines.search(chunks[cid].text)), None) or next(
        (cid for cid in order if describes(chunks[cid].text)), None
    )
