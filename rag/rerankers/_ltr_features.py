"""Features of the ``learned`` reranker: one row per candidate of a question, one column per ``FEATURES`` name.

Every feature comes from the hits of one question alone: their stage scores and ranks (``Hit.scores``,
``Hit.ranks``) and their passages. Term statistics (IDF) come from the candidates themselves, so nothing is
built at index time. Kept apart from the model code so that training (``scripts/train_ranker.py``) and the
product compute exactly the same numbers.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import PurePosixPath

import numpy as np

from rag.models import Hit
from rag.names import norm_words, terms
from rag.question import Question
from rag.question.kinds import WH_WORDS

STAGES = ("dense", "keyword", "context")
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_QTYPES = WH_WORDS
_NUMBER = re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|twenty|hundred|thousand)\b")

# Column order of ``features``; a model names the columns it uses, so adding one here breaks no shipped model.
FEATURES = (
    # first stages: raw, relative to the best candidate (a stage that did not find a passage scored it below
    # every passage it found: the lowest found score stands in), reciprocal rank, and whether the stage found it
    *(f"{s}_{part}" for s in STAGES for part in ("raw", "rel", "rr", "missing")),
    "fused_rel",  # fused score / best fused score
    "first_rr",  # 1 / first-stage rank
    "first_log",  # log of the first-stage rank
    "links_rel",  # link bonus / best fused score
    "links_has",
    "first_mention",  # the first-mention stage's score (1, 1/2, ...), 0 when it did not run or find it
    "stages_found",  # how many of dense/keyword/context found it (0-3)
    # the question's content words (stopwords out, light stemming) in the passage
    "cov",  # share of the question's words in the passage
    "cov_idf",  # the same, each word weighted by its IDF over the candidates
    "cov_rel",  # cov_idf / the best cov_idf among the candidates
    "sent_cov",  # the best sentence's (or line's) cov_idf
    "cov_heading",  # share of the question's words in the heading, title or file name
    "bigram",  # share of the question's adjacent word pairs adjacent in the passage
    "prox",  # matched words / the shortest span of the passage holding them all (0 if fewer than two)
    "names_cov",  # share of the question's proper names in the passage
    "names_title",  # a proper name of the question is the page's title or file name, or one of its links
    "names_none",  # the question names no one
    "detail",  # the question asks for an amount or a year and the passage has a number
    "len_log",  # log(1 + words of the passage)
    "reference",  # a reference page (no session), not a session passage
    "ref_definition",  # reference page x "Who/What is X?"
    # the question
    *(f"q_{t}" for t in _QTYPES),
    "q_definition",
    "q_first",
    "q_words",  # content words of the question
    # the passage's note among the candidates
    "note_best_rr",  # 1 / the best first-stage rank of any candidate of the same note
    "note_share",  # share of the candidates from the same note
    "note_order_rr",  # 1 / the passage's place among its note's candidates (by first-stage rank)
    # neighbours (the passages just before and after it in its note, when they are candidates)
    "nb_has",
    "nb_fused_rel",
    "nb_cov_idf",
)
COLUMN = {name: i for i, name in enumerate(FEATURES)}


def _shortest_span(positions: dict[str, list[int]]) -> int:
    """The fewest consecutive words holding one occurrence of every matched term."""
    events = sorted((p, t) for t, ps in positions.items() for p in ps)
    need, have, best, left = len(positions), {}, math.inf, 0
    for pos, term in events:
        have[term] = have.get(term, 0) + 1
        while len(have) == need:
            best = min(best, pos - events[left][0] + 1)
            t = events[left][1]
            have[t] -= 1
            if not have[t]:
                del have[t]
            left += 1
    return int(best)


def _norm(text: str) -> str:
    """``rag.names.norm`` (case-folded letters and digits, single spaces), by regex: ten times faster."""
    return " ".join(norm_words(text))


@lru_cache(maxsize=4096)
def _passage(text: str) -> tuple[tuple[str | None, ...], str, tuple[frozenset[str], ...]]:
    """A passage's terms, its normal form (for names) and each sentence's terms, kept for the passages that
    come back often."""
    sentences = tuple(frozenset(t for t in terms(part) if t) for part in _SENTENCES.split(text) if part.strip())
    return tuple(terms(text)), f" {_norm(text)} ", sentences


def _names_in(said: str, wanted: list[str]) -> int:
    return sum(f" {n} " in said for n in wanted)


def features(question: Question, hits: list[Hit]) -> np.ndarray:
    """One row per hit, one column per name in ``FEATURES``."""
    n = len(hits)
    x = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if not n:
        return x
    col = COLUMN
    # -- first stages
    for s in STAGES:
        raw = np.array([h.scores.get(s, 0.0) for h in hits])
        found = np.array([s in h.scores for h in hits])
        best = raw[found].max() if found.any() else 0.0
        x[:, col[f"{s}_raw"]] = raw
        low = raw[found].min() if found.any() else 0.0
        x[:, col[f"{s}_rel"]] = np.where(found, raw, low) / best if best > 0 else 0.0
        x[:, col[f"{s}_rr"]] = [1.0 / h.ranks[s] if s in h.ranks else 0.0 for h in hits]
        x[:, col[f"{s}_missing"]] = ~found
    fused = np.array([h.scores.get("fused", h.score) for h in hits])
    top = fused.max() if fused.max() > 0 else 1.0
    x[:, col["fused_rel"]] = fused / top
    first = np.array([h.ranks.get("first_stage", h.rank) for h in hits], dtype=np.float64)
    x[:, col["first_rr"]] = 1.0 / first
    x[:, col["first_log"]] = np.log(first)
    links = np.array([h.scores.get("links", 0.0) for h in hits])
    x[:, col["links_rel"]] = links / top
    x[:, col["links_has"]] = links > 0
    x[:, col["first_mention"]] = [h.scores.get("first_mention", 0.0) for h in hits]
    x[:, col["stages_found"]] = (x[:, [col[f"{s}_missing"] for s in STAGES]] == 0).sum(axis=1)

    # -- words
    q_terms = list(question.terms)
    q_set = set(q_terms)
    q_pairs = {(a, b) for a, b in zip(q_terms, q_terms[1:], strict=False)}
    q_names = [_norm(m) for m in question.names]
    q_names = [m for m in dict.fromkeys(q_names) if len(m) >= 2]
    analysed = [_passage(h.chunk.text) for h in hits]
    passage_terms = [a[0] for a in analysed]
    present = [set(t) & q_set for t in passage_terms]
    # sums run in the question's word order, never a set's: the same features, to the bit, in every process
    df = {t: sum(t in p for p in present) for t in q_terms}
    idf = {t: math.log(1.0 + n / (1.0 + df[t])) for t in q_terms}
    idf_total = sum(idf.values()) or 1.0
    definition = question.definition
    amount = question.number
    for i, (hit, toks, got) in enumerate(zip(hits, passage_terms, present, strict=True)):
        c = hit.chunk
        row = x[i]
        stem_name = PurePosixPath(c.source).stem
        if q_set:
            row[col["cov"]] = len(got) / len(q_set)
            row[col["cov_idf"]] = sum(idf[t] for t in q_terms if t in got) / idf_total
            row[col["sent_cov"]] = (
                max((sum(idf[t] for t in q_terms if t in sentence) for sentence in analysed[i][2]), default=0.0)
                / idf_total
            )
            label = " ".join((c.heading, c.title, stem_name))
            row[col["cov_heading"]] = len(set(terms(label)) & q_set) / len(q_set)
        if q_pairs:
            content = [t for t in toks if t is not None]
            pairs = set(zip(content, content[1:], strict=False))
            row[col["bigram"]] = len(pairs & q_pairs) / len(q_pairs)
        if len(got) >= 2:
            positions: dict[str, list[int]] = {}
            for p, t in enumerate(toks):
                if t in got:
                    positions.setdefault(t, []).append(p)
            row[col["prox"]] = len(got) / _shortest_span(positions)
        if q_names:
            row[col["names_cov"]] = _names_in(analysed[i][1], q_names) / len(q_names)
            page = [stem_name, c.title, *c.entities]
            row[col["names_title"]] = any(_norm(p) in q_names for p in page if p)
        else:
            row[col["names_none"]] = 1.0
        row[col["detail"]] = amount and bool(_NUMBER.search(c.text.casefold()))
        row[col["len_log"]] = math.log1p(len(toks))
        row[col["reference"]] = c.is_reference
        row[col["ref_definition"]] = c.is_reference and definition
    best_cov = x[:, col["cov_idf"]].max()
    if best_cov > 0:
        x[:, col["cov_rel"]] = x[:, col["cov_idf"]] / best_cov

    # -- the question
    for t in _QTYPES:
        x[:, col[f"q_{t}"]] = t in question.question_words
    x[:, col["q_definition"]] = definition
    x[:, col["q_first"]] = question.first_mention
    x[:, col["q_words"]] = len(q_terms)

    # -- notes and neighbours
    by_note: dict[str, list[int]] = {}
    for i in np.argsort(first, kind="stable"):
        by_note.setdefault(hits[i].chunk.source, []).append(int(i))
    at = {(h.chunk.source, h.chunk.position): i for i, h in enumerate(hits)}
    for members in by_note.values():
        for order, i in enumerate(members, start=1):
            x[i, col["note_best_rr"]] = 1.0 / first[members[0]]
            x[i, col["note_share"]] = len(members) / n
            x[i, col["note_order_rr"]] = 1.0 / order
    for i, h in enumerate(hits):
        near = [
            at[k] for k in ((h.chunk.source, h.chunk.position - 1), (h.chunk.source, h.chunk.position + 1)) if k in at
        ]
        if near:
            x[i, col["nb_has"]] = 1.0
            x[i, col["nb_fused_rel"]] = max(x[j, col["fused_rel"]] for j in near)
            x[i, col["nb_cov_idf"]] = max(x[j, col["cov_idf"]] for j in near)
    return x
