"""Generators write the answer from retrieved hits. Backends: ``extractive`` (offline), ``openai``.

One abstract method, streaming: ``generate`` yields text pieces so the chat page can show the answer as it
arrives. The grounding rules (context layout, system prompt) live here so every backend and the run trace
see the same prompt.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rag import registry
from rag.config import AnswerConfig
from rag.llm import prompt_tokens
from rag.models import Hit
from rag.question import Question

History = list[tuple[str, str]]  # (player's question, answer text), oldest first

NOT_IN_NOTES = "The notes don't say"
# No example label: a small model copies one as its citation ("[Session 5 · The Sunken Tavern]"), so the rules
# only say where the labels are. Worded for a small local model (Qwen2.5 1.5B on a llama.cpp server, ten demo
# questions, docs/EVALUATION.md): rules that open with what to do, a reminder that the answer is usually in one of
# the passages (a numbered list of prohibitions made it refuse four answerable questions of ten), and the refusal
# only for when no passage says it.
SYSTEM_PROMPT = (
    "You answer a player's question about their tabletop role-playing campaign from the session notes below, "
    "which are passages each headed by a label in square brackets.\n"
    "- Answer from what the passages say, in one to three short sentences. Read every passage: the answer is "
    "usually in one of them. Do not use outside knowledge.\n"
    "- End each sentence with the label of the passage it comes from, copied exactly with its square brackets.\n"
    "- If the question asks which session or when, name the session.\n"
    f'- Only if no passage says it, reply exactly: "{NOT_IN_NOTES}."'
)
REWRITE_PROMPT = (
    "Rewrite the player's last question as one standalone question, using the conversation to resolve "
    "pronouns and references (who 'she' is, what 'after that' refers to). Reply with the question only."
)


@dataclass(frozen=True)
class Support:
    """What a backend can tell before writing: how well the passages can answer (``score``, 0..1; None when it
    cannot tell), why it is low in a player's words (``note``), and its own reading of the passages (``reading``),
    handed back to ``generate`` so nothing is read twice. Returned, never kept on the backend: one backend object
    answers every player of the app at once."""

    score: float | None = None
    note: str | None = None
    reading: Any = None
    signals: dict[str, float] = field(default_factory=dict)  # what it saw, in numbers (recorded in the trace)


class Generator(ABC):
    """Turns a question and its retrieved passages into an answer, streamed as text pieces. Stateless: a backend
    keeps nothing of one call for the next (the app shares one across every browser session)."""

    name: str = "generator"
    # True when every sentence of an answer is quoted from a passage (the extractive answerer): nothing to check.
    # Otherwise (a language model writes its own sentences) each cited sentence is checked against what it cites.
    quotes_notes: bool = False

    @abstractmethod
    def generate(
        self, question: Question, hits: list[Hit], history: History | None = None, support: Support | None = None
    ) -> Iterator[str]:
        """Yield the answer in pieces. Every claim must carry a ``[Session N · Scene]`` citation. ``support``:
        what ``support`` returned for these hits, if it was called."""

    def support(self, question: Question, hits: list[Hit]) -> Support:
        """How well ``hits`` can answer, when a backend can tell before generating (else a score of None). The
        answerer refuses without generating when the score is below ``answer.refusal_floor``."""
        return Support()

    def rewrite(self, question: Question, history: History) -> str | None:
        """A standalone version of a follow-up question, or None to use the offline rule."""
        return None


def build_context(hits: list[Hit]) -> str:
    """Each passage under its citation label, separated by a rule so passages never run together."""
    blocks = []
    for hit in hits:
        c, where = hit.chunk, hit.chunk.title_and_heading
        blocks.append(f"{c.label}" + (f" ({where})" if where else "") + f"\n{c.text.strip()}")
    return "\n\n---\n\n".join(blocks)


def build_messages(question: Question, hits: list[Hit], history: History | None = None) -> list[dict[str, str]]:
    """The chat messages every LLM backend sends; also recorded in the answer's trace."""
    messages = [{"role": "system", "content": SYSTEM_PROMPT}]
    for asked, answered in history or []:
        messages.append({"role": "user", "content": asked})
        messages.append({"role": "assistant", "content": answered})
    messages.append(
        {"role": "user", "content": f"Session notes:\n\n{build_context(hits)}\n\n---\n\nQuestion: {question.text}"}
    )
    return messages


def fitting(
    question: Question, hits: list[Hit], history: History | None, context_tokens: int, reply_tokens: int
) -> list[Hit]:
    """The best passages (``hits`` in order) whose prompt leaves the reply ``reply_tokens`` in a context of
    ``context_tokens``; at least the first (a model that cannot take even that refuses, and the question is answered
    offline)."""
    for n in range(len(hits), 1, -1):
        if prompt_tokens(build_messages(question, hits[:n], history)) + reply_tokens <= context_tokens:
            return hits[:n]
    return hits[:1]


def get_generator(config: AnswerConfig, embedder=None) -> Generator:
    """``embedder``: the pipeline's own, so the extractive backend scores sentences in the same space."""
    return registry.create("generators", config.backend, config, embedder=embedder)
