"""Any OpenAI-compatible chat server: OpenAI, Ollama, vLLM, llama.cpp server, LM Studio (by ``base_url``).

The connection, retries and error sentences live in ``rag.llm`` (shared with query expansion and the
``llm`` reranker); this backend adds the grounded prompt and token-by-token streaming.
"""

from __future__ import annotations

from collections.abc import Iterator

from rag.config import AnswerConfig
from rag.errors import ChroniclerError
from rag.generators import REWRITE_PROMPT, Generator, History, Support, build_messages
from rag.llm import LLMClient, short
from rag.models import Hit
from rag.question import Question


class OpenAIGenerator(Generator):
    def __init__(self, config: AnswerConfig):
        self.llm = LLMClient(config)
        self.config = config
        self.model = self.llm.model
        self.name = f"openai:{self.model}"

    def generate(
        self, question: Question, hits: list[Hit], history: History | None = None, support: Support | None = None
    ) -> Iterator[str]:
        import openai

        stream = self.llm.create(build_messages(question, hits, history), stream=True)
        try:
            for event in stream:
                if not event.choices:
                    continue
                piece = event.choices[0].delta.content
                if piece:
                    yield piece
        except openai.APIError as err:
            raise ChroniclerError(f"The answer stream broke off: {short(err)}", hint="Try again.") from None

    def rewrite(self, question: Question, history: History) -> str | None:
        lines = [f"Player: {q}\nAnswer: {a}" for q, a in history]
        messages = [
            {"role": "system", "content": REWRITE_PROMPT},
            {"role": "user", "content": "\n\n".join(lines) + f"\n\nLast question: {question.text}"},
        ]
        return self.llm.complete(messages, max_tokens=100) or None


def create(config: AnswerConfig, embedder=None) -> OpenAIGenerator:
    return OpenAIGenerator(config)
