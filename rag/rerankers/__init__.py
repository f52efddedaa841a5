"""Rerankers re-score a question's first-stage candidates. Backends: ``cross-encoder``, ``late-interaction``,
``llm``, ``learned``.

A second stage exists because the first stage (a small bi-encoder plus BM25) ranks ~50 passages cheaply
but coarsely; a reranker spends more compute on only the top few. Backends are found by config string
like embedders (``rag.rerankers.<name>`` with dashes as underscores), so tests register fakes the same way.

A backend gets the candidates as ``Hit``s, not bare passages: each carries its first-stage scores and ranks
(``Hit.scores``/``Hit.ranks``), which a learned ranker needs as features; text models read ``hit.chunk``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from rag import registry
from rag.config import AnswerConfig, RerankConfig
from rag.models import Hit
from rag.question import Question

if TYPE_CHECKING:
    from rag.embedders import Embedder


class Reranker(ABC):
    """One method to implement. Scores only need to order the hits of one question (higher is better)."""

    name: str = "reranker"

    @abstractmethod
    def rerank(self, question: Question, hits: list[Hit]) -> list[float]:
        """Return one relevance score per hit, in the order given (best first-stage hit first). The hits are
        the question's candidates with their first-stage scores; a backend must not change them."""

    def verdict(self, score: float) -> str | None:
        """How likely a passage with this score is to answer the question ("high", "medium", "low"), for the
        answer's confidence; None when the backend's scores have no fixed scale (the default)."""
        return None

    def certainty(self, score: float) -> float | None:
        """How sure, from 0 to 1, the backend is that a passage with this score answers (``Hit.sure``: the
        answerer weighs its passages' sentences by it); None when its scores have no fixed scale (the default)."""
        return None


def get_reranker(
    config: RerankConfig, embedder: Embedder | None = None, answer: AnswerConfig | None = None
) -> Reranker:
    """Build the configured backend. ``embedder`` lets a backend reuse an already-loaded model; ``answer``
    says which LLM the ``llm`` backend calls."""
    name = config.backend  # a registered fake may keep its dashes; a module name cannot
    if name not in registry.available("rerankers"):
        name = name.replace("-", "_")
    return registry.create("rerankers", name, config, embedder, answer)
