"""Any OpenAI-compatible chat server: OpenAI, Ollama, vLLM, llama.cpp server, LM Studio (by ``base_url``).

Retries with exponential backoff are the openai client's own (``max_retries``); every failure a player can
cause or fix (key, server address, model name, too much context) becomes one ``rag.errors`` sentence.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from rag.config import AnswerConfig
from rag.errors import ChroniclerError, ConfigError, ModelUnavailableError
from rag.generators import REWRITE_PROMPT, Generator, History, build_messages
from rag.models import Hit

_CONTEXT_WORDS = ("context length", "context_length", "maximum context", "too many tokens", "too long")


class OpenAIGenerator(Generator):
    def __init__(self, config: AnswerConfig):
        key = config.api_key or os.environ.get("OPENAI_API_KEY")
        if not key and not config.base_url:
            raise ConfigError(
                "The openai answerer needs an API key.",
                hint="Set OPENAI_API_KEY or `answer.api_key`, set `answer.base_url` for a local server, "
                "or use `answer.backend: extractive`.",
            )
        from openai import OpenAI

        self.config = config
        self.model = config.model or "gpt-4o-mini"
        self.name = f"openai:{self.model}"
        self.client = OpenAI(
            api_key=key or "not-needed", base_url=config.base_url or None,
            timeout=config.timeout, max_retries=config.max_retries,
        )

    def _create(self, messages: list[dict[str, str]], stream: bool, max_tokens: int | None = None):
        import openai

        kwargs = {"model": self.model, "messages": messages, "temperature": self.config.temperature,
                  "max_tokens": max_tokens or self.config.max_tokens, "stream": stream}
        if self.config.seed is not None:
            kwargs["seed"] = self.config.seed
        try:
            return self.client.chat.completions.create(**kwargs)
        except openai.AuthenticationError:
            raise ConfigError(
                "The answer server rejected the API key.", hint="Check OPENAI_API_KEY or `answer.api_key`."
            ) from None
        except openai.PermissionDeniedError:
            raise ConfigError("The API key may not use this model.", hint="Check `answer.model`.") from None
        except openai.NotFoundError:
            raise ModelUnavailableError(
                f"The answer model '{self.model}' does not exist on the server.",
                hint="Check `answer.model` (and `answer.base_url`).",
            ) from None
        except openai.BadRequestError as err:
            if any(w in str(err).lower() for w in _CONTEXT_WORDS):
                raise ChroniclerError(
                    "The question and passages are too long for the answer model.",
                    hint="Lower 'Passages to show (top-k)' in the sidebar, or use a model with a longer context.",
                ) from None
            raise ChroniclerError(f"The answer server refused the request: {_short(err)}") from None
        except openai.APITimeoutError:
            raise ChroniclerError(
                f"The answer server did not reply within {self.config.timeout:g} seconds.",
                hint="Try again, or raise `answer.timeout`.",
            ) from None
        except openai.APIConnectionError:
            raise ChroniclerError(
                f"Cannot reach the answer server at {self.config.base_url or 'api.openai.com'}.",
                hint="Is it running? Check `answer.base_url`.",
            ) from None
        except openai.RateLimitError:
            raise ChroniclerError("The answer server is rate-limiting requests.", hint="Wait a minute.") from None
        except openai.APIStatusError as err:
            raise ChroniclerError(f"The answer server failed ({err.status_code}): {_short(err)}") from None

    def generate(self, question: str, hits: list[Hit], history: History | None = None) -> Iterator[str]:
        import openai

        stream = self._create(build_messages(question, hits, history), stream=True)
        try:
            for event in stream:
                if not event.choices:
                    continue
                piece = event.choices[0].delta.content
                if piece:
                    yield piece
        except openai.APIError as err:
            raise ChroniclerError(f"The answer stream broke off: {_short(err)}", hint="Try again.") from None

    def rewrite(self, question: str, history: History) -> str | None:
        lines = [f"Player: {q}\nAnswer: {a}" for q, a in history]
        messages = [
            {"role": "system", "content": REWRITE_PROMPT},
            {"role": "user", "content": "\n\n".join(lines) + f"\n\nLast question: {question}"},
        ]
        resp = self._create(messages, stream=False, max_tokens=100)
        text = (resp.choices[0].message.content or "").strip() if resp.choices else ""
        return text or None


def _short(err: Exception) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text[:200]


def create(config: AnswerConfig, embedder=None) -> OpenAIGenerator:
    return OpenAIGenerator(config)
