"""OpenAI (or any OpenAI-compatible server) embeddings, 100 texts per request."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from rag.config import EmbeddingConfig
from rag.embedders import Embedder, normalise
from rag.errors import ChroniclerError, ConfigError, ModelUnavailableError

_BATCH = 100
_KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


class OpenAIEmbedder(Embedder):
    def __init__(self, model: str, api_key: str | None, base_url: str | None = None):
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key and not base_url:
            raise ConfigError(
                "The openai embedding backend needs an API key.",
                hint="Set OPENAI_API_KEY or `embedding.api_key`, or use `embedding.backend: local`.",
            )
        from openai import OpenAI

        self.client = OpenAI(api_key=key or "not-needed", base_url=base_url, max_retries=3, timeout=60)
        self.model = model or "text-embedding-3-small"
        self.name = f"openai:{self.model}"
        self.dim = _KNOWN_DIMS.get(self.model) or len(self.embed_batch(["dimension probe"])[0])

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        import openai

        out: list[list[float]] = []
        for start in range(0, len(texts), _BATCH):
            try:
                resp = self.client.embeddings.create(model=self.model, input=list(texts[start : start + _BATCH]))
            except openai.AuthenticationError:
                raise ConfigError("The embedding API rejected the key.", hint="Check OPENAI_API_KEY.") from None
            except openai.NotFoundError:
                raise ModelUnavailableError(f"The embedding model '{self.model}' does not exist there.") from None
            except openai.APIConnectionError:
                raise ChroniclerError(
                    "Cannot reach the embedding server.", hint="Check `embedding.base_url`."
                ) from None
            out.extend(d.embedding for d in sorted(resp.data, key=lambda d: d.index))
        return normalise(np.array(out, dtype=np.float32))


def create(config: EmbeddingConfig) -> OpenAIEmbedder:
    return OpenAIEmbedder(config.model, config.api_key, config.base_url)
