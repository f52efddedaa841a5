"""Fakes registered like real backends (never ``mock.patch`` of our own code).

FakeEmbedder: a deterministic hashed bag of words. It checks plumbing and lets tests assert simple
word-overlap rankings; it says nothing about the real model's quality.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from rag.embedders import Embedder, normalise

DIM = 64


class FakeEmbedder(Embedder):
    name = "fake-bow"
    dim = DIM

    def __init__(self, config=None):
        self.calls = 0
        self.texts_embedded = 0

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                h = int(hashlib.md5(word.encode()).hexdigest(), 16)
                out[i, h % DIM] += 1.0
            out[i, DIM - 1] += 0.01  # never all zeros
        return normalise(out)
