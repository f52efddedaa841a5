"""Two passages the reranker cannot tell apart: the one whose best sentence means most nearly what is asked first.

The learned reranker scores whole passages (their words, their first-stage scores, their neighbours); when it is
nearly as sure of its second passage as of its first, its order says little, and the second passage held the
answer more often than the first (docs/experiments/README.md). A passage of notes tells several things, one
sentence each; the sentence that answers is the one nearest the question in meaning, which a passage's cosine
blurs with every other sentence in it.
"""

from __future__ import annotations

from rag.config import RetrievalConfig
from rag.embedders import Embedder
from rag.models import Hit
from rag.names import sentences
from rag.question import Question
from rag.search.structure import told_elsewhere

SAME = 1e-6  # two cosines closer than this are the same: full-precision vectors agree to about 1e-7


def held_place(hit: Hit) -> bool:
    """A passage placed by a rule, not by the reranker's score: the learned reranker holds the first stage's place
    for a reference page and for a passage the first-mention search found (its ``keep`` columns)."""
    return hit.chunk.is_reference or bool(hit.scores.get("first_mention"))


def best_sentences(question: Question, hits: list[Hit], embedder: Embedder) -> list[tuple[float, str]]:
    """Each passage's best sentence and its cosine with the question, all read in one call of the model."""
    texts = [sentences(hit.chunk.text) for hit in hits]
    vectors = embedder.embed_exactly([question.text, *(t for each in texts for t in each)])
    cosines, start, best = vectors[1:] @ vectors[0], 0, []
    for each in texts:
        if each:
            i = int(cosines[start : start + len(each)].argmax())
            best.append((float(cosines[start + i]), each[i]))
        else:
            best.append((0.0, ""))
        start += len(each)
    return best


def break_tie(
    question: Question,
    hits: list[Hit],
    embedder: Embedder | None,
    margin: float,
    weights: RetrievalConfig | None = None,
) -> list[Hit]:
    """``hits`` in the reranker's order, its first two swapped when they are within ``margin`` of sure-ness, both
    were placed by its score, and the second's best sentence is nearer the question in meaning. A passage the search
    counts for less because it is told elsewhere too (``structure.told_elsewhere`` under ``weights``: a "Last Session
    Recap", or the evening's business asked in the party's voice) is never lifted: a retelling sums the event up in
    a sentence that reads like the question, which is why it is weighed less (training vaults: two of the
    tie-break's thirteen wrong swaps, docs/experiments/README.md)."""
    if margin <= 0 or embedder is None or len(hits) < 2:
        return hits
    first, second = hits[0], hits[1]
    if first.sure is None or second.sure is None or first.sure - second.sure >= margin:
        return hits
    if (
        held_place(first)
        or held_place(second)
        or told_elsewhere(second.chunk, weights or RetrievalConfig(), question.ours) < 1
    ):
        return hits
    (first_cosine, first_text), (second_cosine, second_text) = best_sentences(question, [first, second], embedder)
    # the same sentence in both (passages overlap by a sentence) says nothing either way; its two cosines differ only
    # by the batch's rounding
    if second_text == first_text or second_cosine <= first_cosine + SAME:
        return hits
    for hit, rank in ((second, 1), (first, 2)):  # the tie-break is part of reranking: its charts show this order
        hit.rank = rank
        if "rerank" in hit.ranks:
            hit.ranks["rerank"] = rank
    return [second, first, *hits[2:]]
