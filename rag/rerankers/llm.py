"""Reranking by the configured OpenAI-compatible LLM: listwise requests score every candidate 0–10.

The passages go in as few requests as fit the model's context (``reranker.llm_context_tokens``, or the smaller
length the server names when it refuses a request as too long; at about four characters a token, the reply's room
included): one round trip for 20 passages on a large context, a few on a
llama.cpp server's default 2,048 tokens (20 passages of 800 characters are ~3,400 tokens), each passage trimmed
when even one alone would not fit. A passage the model leaves unrated scores -1, so it falls below every rated one
but keeps its first-stage order among the unrated (the retriever's sort is stable): a sloppy reply degrades, it
never crashes; a request that fails leaves the search in its first-stage order (``rag.search.retrieval``).
"""

from __future__ import annotations

import re

from rag.config import AnswerConfig, RerankConfig
from rag.errors import ContextTooLongError, LanguageModelError, no_llm_error
from rag.llm import CHARS_PER_TOKEN, LLMClient, llm_configured
from rag.models import Hit
from rag.question import Question
from rag.rerankers import Reranker

PROMPT = (
    "You rate passages from the session notes of a tabletop role-playing campaign. For each passage, rate "
    "how well it answers the player's question, from 0 (unrelated) to 10 (answers it directly). "
    "Reply with one line per passage in the form `P3: 7`, for every passage, and nothing else."
)
MAX_PASSAGE_CHARS = 800  # enough to judge relevance
MIN_PASSAGE_CHARS = 200  # less than this of a passage is not worth rating: the context is too small to re-read
REPLY_TOKENS = 10  # per passage rated ("P12: 7" and a line break), and as much again for the reply's start
TEMPLATE_TOKENS = 32  # the chat template's role markers around the two messages
TOO_LONG = (
    "Lower 'Passages to re-read' in the sidebar, or set reranker.llm_context_tokens to the model's context length."
)
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


def batches(question: Question, texts: list[str], context_tokens: int) -> list[list[str]]:
    """The passages' texts (whitespace folded, at most ``MAX_PASSAGE_CHARS``) in order, grouped into requests
    that fit ``context_tokens`` with the prompt, the question and the reply's room; a passage that would not fit
    even alone is trimmed to what does."""
    fixed = len(PROMPT) + len(f"Question: {question.text}\n\n") + CHARS_PER_TOKEN * (TEMPLATE_TOKENS + REPLY_TOKENS)
    room = CHARS_PER_TOKEN * context_tokens - fixed
    most = min(MAX_PASSAGE_CHARS, room - _cost(""))
    if most < MIN_PASSAGE_CHARS:
        raise LanguageModelError(
            f"The question leaves no room to re-read passages in the model's context ({context_tokens} tokens).",
            hint=TOO_LONG,
        )
    out: list[list[str]] = [[]]
    used = 0
    for text in texts:
        text = " ".join(text.split())[:most]
        if out[-1] and used + _cost(text, len(out[-1]) + 1) > room:
            out.append([])
            used = 0
        out[-1].append(text)
        used += _cost(text, len(out[-1]))
    return out if out[0] else []


def _cost(text: str, number: int = 99) -> int:
    """What one passage takes of the context in characters: "\n\nP12: ", its text and its line of the reply."""
    return len(f"\n\nP{number}: ") + len(text) + CHARS_PER_TOKEN * REPLY_TOKENS


class LLMReranker(Reranker):
    def __init__(self, answer: AnswerConfig, context_tokens: int = 2048):
        if not llm_configured(answer):
            raise no_llm_error("Reranking with the LLM")
        self.llm = LLMClient(answer)
        self.name = f"llm:{self.llm.model}"
        self.context_tokens = context_tokens

    def rerank(self, question: Question, hits: list[Hit]) -> list[float]:
        """Ratings at the configured context length; when the server refuses a request as too long and names its
        own, smaller context (a llama.cpp server started with less than the setting says), once more at that."""
        try:
            return self._rate(question, hits, self.context_tokens)
        except ContextTooLongError as err:
            if err.limit is None or err.limit >= self.context_tokens:
                raise
            return self._rate(question, hits, err.limit)

    def _rate(self, question: Question, hits: list[Hit], context_tokens: int) -> list[float]:
        scores: list[float] = []
        for batch in batches(question, [h.chunk.text for h in hits], context_tokens):
            passages = "\n\n".join(f"P{i}: {text}" for i, text in enumerate(batch, start=1))
            messages = [
                {"role": "system", "content": PROMPT},
                {"role": "user", "content": f"Question: {question.text}\n\n{passages}"},
            ]
            reply = self.llm.complete(messages, max_tokens=REPLY_TOKENS * (len(batch) + 1), too_long=TOO_LONG)
            scores += parse_ratings(reply, len(batch))
        return scores


def create(config: RerankConfig, embedder=None, answer: AnswerConfig | None = None) -> LLMReranker:
    return LLMReranker(answer or AnswerConfig(), config.llm_context_tokens)
