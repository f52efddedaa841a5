"""Reranking by the configured OpenAI-compatible LLM: one listwise request scores every candidate 0–10.

One request for all candidates (not one per passage) keeps a 20-passage rerank to a single round trip.
A passage the model leaves unrated scores -1, so it falls below every rated one but keeps its first-stage
order among the unrated (the retriever's sort is stable): a sloppy reply degrades, it never crashes.
"""

from __future__ import annotations

import re

from rag.config import AnswerConfig, RerankConfig
from rag.errors import no_llm_error
from rag.llm import LLMClient, llm_configured
from rag.models import Hit
from rag.question import Question
from rag.rerankers import Reranker

PROMPT = (
    "You rate passages from the session notes of a tabletop role-playing campaign. For each passage, rate "
    "how well it answers the player's question, from 0 (unrelated) to 10 (answers it directly). "
    "Reply with one line per passage in the form `P3: 7`, for every passage, and nothing else."
)
MAX_PASSAGE_CHARS = 800  # enough to judge relevance; keeps 20 passages well inside small contexts
_RATING = re.compile(r"\bP?\s*(\d+)\s*[:=\-–]\s*(\d+(?:\.\d+)?)", re.IGNORECASE)
UNRATED = -1.0


def parse_ratings(reply: str, count: int) -> list[float]:
    """``P1: 7`` lines → one score per passage; missing or out-of-range entries are UNRATED."""
    scores = [UNRATED] * count
    for line in reply.splitlines():
        m = _RATING.search(line)
        if not m:
            continue
        index, value = int(m.group(1)) - 1, float(m.group(2))
        if 0 <= index < count and 0 <= value <= 10 and scores[index] == UNRATED:
            scores[index] = value
    return scores


class LLMReranker(Reranker):
    def __init__(self, answer: AnswerConfig):
        if not llm_configured(answer):
            raise no_llm_error("Reranking with the LLM")
        self.llm = LLMClient(answer)
        self.name = f"llm:{self.llm.model}"

    def rerank(self, question: Question, hits: list[Hit]) -> list[float]:
        if not hits:
            return []
        chunks = [h.chunk for h in hits]
        passages = "\n\n".join(
            f"P{i}: {' '.join(c.text.split())[:MAX_PASSAGE_CHARS]}" for i, c in enumerate(chunks, start=1)
        )
        messages = [
            {"role": "system", "content": PROMPT},
            {"role": "user", "content": f"Question: {question.text}\n\n{passages}"},
        ]
        return parse_ratings(self.llm.complete(messages, max_tokens=10 * len(hits) + 20), len(hits))


def create(config: RerankConfig, embedder=None, answer: AnswerConfig | None = None) -> LLMReranker:
    return LLMReranker(answer or AnswerConfig())
