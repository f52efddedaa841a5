"""One way to talk to the configured OpenAI-compatible LLM, shared by every stage that can use one.

The answerer, the query expander and the ``llm`` reranker all reach the same server (OpenAI, Ollama,
vLLM, llama.cpp server, LM Studio: set by ``answer.base_url``, ``answer.model`` and a key), so a player
configures one LLM once, on the Settings page. Retries with exponential backoff are the openai client's
own (``max_retries``); every failure a player can cause or fix (key, server address, model name, too much
context) becomes one ``rag.errors.LanguageModelError`` sentence, on which a question is answered offline instead
(``rag.llm.fallback``).
"""

from __future__ import annotations

import os
import re

from rag.config import AnswerConfig
from rag.errors import ContextTooLongError, LanguageModelError, LanguageModelKeyError, LanguageModelMissingError

_CONTEXT_WORDS = ("context length", "context_length", "maximum context", "context size", "too many tokens", "too long")
# how servers name their limit: OpenAI, vLLM and llama-cpp-python "maximum context length is 2048 tokens"; llama.cpp's
# own server "the request exceeds the available context size (2048 tokens)"
_CONTEXT_LIMIT = re.compile(r"(?:maximum context length is|context size|context window)\D{0,12}(\d{3,7})", re.I)
DEFAULT_MODEL = "gpt-4o-mini"
# A rough count of English text, on the long side (20 passages of notes: 16,000 characters, 3,361 tokens)
CHARS_PER_TOKEN = 4
MESSAGE_TOKENS = 8  # the chat template's role markers around each message
TOO_LONG_FOR_THE_ANSWER = (
    "Set answer.context_tokens to the model's context length, or lower 'Passages to show (top-k)' in the sidebar."
)


def prompt_tokens(messages: list[dict[str, str]]) -> int:
    """About how many tokens of a model's context ``messages`` take (on the long side: a request estimated to fit
    does)."""
    return sum(len(m.get("content", "")) for m in messages) // CHARS_PER_TOKEN + MESSAGE_TOKENS * len(messages)


def llm_configured(config: AnswerConfig) -> bool:
    """True when the player chose an OpenAI-compatible answer provider (the only LLM Chronicler knows)."""
    return config.uses_llm


class LLMClient:
    """A thin, error-translating wrapper around ``openai.OpenAI`` built from the ``answer`` section."""

    def __init__(self, config: AnswerConfig):
        key = config.api_key or os.environ.get("OPENAI_API_KEY")
        if not key and not config.base_url:
            raise LanguageModelKeyError(
                "The OpenAI-compatible LLM needs an API key.",
                hint="Set OPENAI_API_KEY or `answer.api_key`, set `answer.base_url` for a local server, "
                "or use `answer.backend: extractive`.",
            )
        from openai import OpenAI

        self.config = config
        self.model = config.model or DEFAULT_MODEL
        self.client = OpenAI(
            api_key=key or "not-needed",
            base_url=config.base_url or None,
            timeout=config.timeout,
            max_retries=config.max_retries,
        )

    def create(
        self,
        messages: list[dict[str, str]],
        stream: bool,
        max_tokens: int | None = None,
        too_long: str = TOO_LONG_FOR_THE_ANSWER,
    ):
        """``chat.completions.create`` with the configured model and sampling; errors become one sentence.
        ``too_long``: what to do when the request does not fit the model's context (the setting that sizes it)."""
        import openai

        kwargs = {
            "model": self.model,
            "messages": messages,
            "temperature": self.config.temperature,
            "max_tokens": max_tokens or self.config.max_tokens,
            "stream": stream,
        }
        if self.config.seed is not None:
            kwargs["seed"] = self.config.seed
        try:
            return self.client.chat.completions.create(**kwargs)
        except openai.AuthenticationError:
            raise LanguageModelKeyError(
                "The LLM server rejected the API key.", hint="Check OPENAI_API_KEY or `answer.api_key`."
            ) from None
        except openai.PermissionDeniedError:
            raise LanguageModelKeyError("The API key may not use this model.", hint="Check `answer.model`.") from None
        except openai.NotFoundError:
            raise LanguageModelMissingError(
                f"The model '{self.model}' does not exist on the LLM server.",
                hint="Check `answer.model` (and `answer.base_url`).",
            ) from None
        except openai.BadRequestError as err:
            if any(w in str(err).lower() for w in _CONTEXT_WORDS):
                limit = _CONTEXT_LIMIT.search(str(err))
                raise ContextTooLongError(
                    "The question and passages are too long for the LLM.",
                    hint=too_long,
                    limit=int(limit.group(1)) if limit else None,
                ) from None
            raise LanguageModelError(f"The LLM server refused the request: {short(err)}") from None
        except openai.APITimeoutError:
            raise LanguageModelError(
                f"The LLM server did not reply within {self.config.timeout:g} seconds.",
                hint="Try again, or raise `answer.timeout`.",
            ) from None
        except openai.APIConnectionError:
            raise LanguageModelError(
                f"Cannot reach the LLM server at {self.config.base_url or 'api.openai.com'}.",
                hint="Is it running? Check `answer.base_url`.",
            ) from None
        except openai.RateLimitError:
            raise LanguageModelError("The LLM server is rate-limiting requests.", hint="Wait a minute.") from None
        except openai.APIStatusError as err:
            raise LanguageModelError(f"The LLM server failed ({err.status_code}): {short(err)}") from None

    def complete(
        self, messages: list[dict[str, str]], max_tokens: int | None = None, too_long: str = TOO_LONG_FOR_THE_ANSWER
    ) -> str:
        """The whole reply as text (empty when the server sent no choice)."""
        resp = self.create(messages, stream=False, max_tokens=max_tokens, too_long=too_long)
        return (resp.choices[0].message.content or "").strip() if resp.choices else ""


def short(err: Exception) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text[:200]
