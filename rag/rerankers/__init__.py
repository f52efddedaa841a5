"""Rerankers re-score a question's first-stage candidates. Backends: ``cross-encoder``, ``late-interaction``,
``llm``.

A second stage exists because the first stage (a small bi-encoder plus BM25) ranks ~50 passages cheaply
but coarsely; a reranker spends more compute on only the top few. Backends are found by config string
like embedders (``rag.rerankers.<name>`` with dashes as underscores), so tests register fakes the same way.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from rag import registry
from rag.config import AnswerConfig, RerankConfig
from rag.models import Chunk

if TYPE_CHECKING:
    from rag.embedders import Embedder


class Reranker(ABC):
    """One method to implement. Scores only need to order the chunks of one question (higher is better)."""

    name: str = "reranker"

    @abstractmethod
    def rerank(self, question: str, chunks: list[Chunk]) -> list[float]:
        """Return one relevance score per chunk, in the order given."""


def get_reranker(
    config: RerankConfig, embedder: Embedder | None = None, answer: AnswerConfig | None = None
) -> Reranker:
    """Build the configured backend. ``embedder`` lets a backend reuse an already-loaded model; ``answer``
    says which LLM the ``llm`` backend calls."""
    name = config.backend  # a registered fake may keep its dashes; a module name cannot
    if name not in registry.available("rerankers"):
        name = name.replace("-", "_")
    return registry.create("rerankers", name, config, embedder, answer)
