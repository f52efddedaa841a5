"""The search's tie-break: two passages the reranker is nearly as sure of are ordered by their best sentence's
meaning, and only then."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rag.config import RetrievalConfig
from rag.embedders import Embedder
from rag.models import Chunk, Hit
from rag.question import read_question
from rag.search.ties import break_tie

QUESTION = read_question("Where did we sleep after the bridge?")


class ByWord(Embedder):
    """A sentence means what the question asks when it says "slept": cosine 1, else 0."""

    def embed_batch(self, texts):
        return np.array([[1.0, 0.0] if i == 0 or "slept" in t else [0.0, 1.0] for i, t in enumerate(texts)])


def hit(text: str, rank: int, sure: float) -> Hit:
    chunk = Chunk("demo", f"Session {rank}.md", 0, text, f"Session {rank}", session=rank)
    return Hit(chunk, 1.0, rank, sure=sure)


CAMP = hit("We crossed the bridge. The goblins were loud.", 1, 0.55)
NEST = hit("We reached the keep. We slept in a nest of snakes.", 2, 0.50)


def texts(hits: list[Hit]) -> list[str]:
    return [h.chunk.text for h in hits]


def test_the_passage_whose_sentence_answers_comes_first_when_the_reranker_cannot_tell_them_apart():
    reranked = [replace(CAMP, ranks={"rerank": 1}), replace(NEST, ranks={"rerank": 2})]
    hits = break_tie(QUESTION, reranked, ByWord(), 0.1)
    assert texts(hits) == [NEST.chunk.text, CAMP.chunk.text]
    assert [h.rank for h in hits] == [1, 2]
    assert [h.ranks["rerank"] for h in hits] == [1, 2]  # the reranking chart shows the order the player sees


def test_a_reranker_sure_of_its_first_passage_keeps_its_order():
    hits = break_tie(QUESTION, [replace(CAMP, sure=0.9), replace(NEST, sure=0.2)], ByWord(), 0.1)
    assert texts(hits) == [CAMP.chunk.text, NEST.chunk.text]


def test_a_page_or_a_first_mention_keeps_the_place_a_rule_gave_it():
    page = replace(CAMP, chunk=replace(CAMP.chunk, session=None))
    assert texts(break_tie(QUESTION, [page, replace(NEST)], ByWord(), 0.1))[0] == CAMP.chunk.text
    mention = replace(CAMP, scores={"first_mention": 1.0})
    assert texts(break_tie(QUESTION, [mention, replace(NEST)], ByWord(), 0.1))[0] == CAMP.chunk.text


def test_off_at_margin_zero_or_without_a_model():
    assert texts(break_tie(QUESTION, [replace(CAMP), replace(NEST)], ByWord(), 0.0))[0] == CAMP.chunk.text
    assert texts(break_tie(QUESTION, [replace(CAMP), replace(NEST)], None, 0.1))[0] == CAMP.chunk.text


def test_the_sentence_two_overlapping_passages_share_decides_nothing():
    """Passages overlap by a sentence; when that sentence is the best of both, the reranker's order stands."""
    shared = "We slept in a nest of snakes."
    first = replace(CAMP, chunk=replace(CAMP.chunk, text=f"We crossed the bridge. {shared}"))
    second = replace(NEST, chunk=replace(NEST.chunk, text=f"{shared} The snakes woke up."))
    assert texts(break_tie(QUESTION, [first, second], Rounding(), 0.1))[0] == first.chunk.text


class Rounding(ByWord):
    """As ``ByWord``, with the batch's rounding: a sentence read later in the batch comes out a hair nearer."""

    def embed_batch(self, texts):
        vectors = super().embed_batch(texts)
        vectors[1:, 0] *= 1 + 1e-7 * np.arange(1, len(texts))
        return vectors


def test_a_retold_scene_is_not_lifted_above_the_telling():
    """A "Last Session Recap" sums the event up in a sentence that reads like the question, and the search weighs it
    less for being told where it happened too; the tie-break does not undo that. The telling is lifted over it."""
    recap = replace(NEST, chunk=replace(NEST.chunk, heading="Last Session Recap", session=3))
    assert texts(break_tie(QUESTION, [replace(CAMP), recap], ByWord(), 0.1))[0] == CAMP.chunk.text
    retold_first = replace(CAMP, chunk=replace(CAMP.chunk, heading="Previously"))
    assert texts(break_tie(QUESTION, [retold_first, replace(NEST)], ByWord(), 0.1))[0] == NEST.chunk.text


def test_what_the_search_weighs_less_is_what_the_tie_break_keeps_down():
    """The search's own weight decides: with retellings counted in full (``retold_weight`` 1) a recap may be lifted
    again; asked in the party's voice, the evening's business (a stream's announcements) is not lifted."""
    recap = replace(NEST, chunk=replace(NEST.chunk, heading="Last Session Recap", session=3))
    full = RetrievalConfig(retold_weight=1.0)
    assert texts(break_tie(QUESTION, [replace(CAMP), recap], ByWord(), 0.1, full))[0] == NEST.chunk.text
    show = replace(NEST, chunk=replace(NEST.chunk, heading="Announcements"))
    assert texts(break_tie(QUESTION, [replace(CAMP), show], ByWord(), 0.1))[0] == CAMP.chunk.text
    asked = read_question("Where did the stream say the viewers slept?")
    assert texts(break_tie(asked, [replace(CAMP), show], ByWord(), 0.1))[0] == NEST.chunk.text
