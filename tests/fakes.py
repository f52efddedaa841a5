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


# -- generators (appended for the answerer) -------------------------------------------------------------
from rag.generators import Generator, Support  # noqa: E402


class FakeGenerator(Generator):
    """Answers with the first sentence of the top hit and its label (quoted, as the extractive answerer quotes), or
    a scripted ``reply`` (checked, as a language model's answer is), and records
    every call, so tests can assert that a refusal never reached the generator. ``support`` is scripted."""

    name = "fake-generator"
    instances: list[FakeGenerator] = []

    def __init__(self, config=None, embedder=None, reply: str | None = None, support: float | None = None):
        self.config, self.embedder, self.reply, self._support = config, embedder, reply, support
        self.calls: list[tuple[str, list, list]] = []
        self.quotes_notes = reply is None  # a scripted reply is written like a language model's: it is checked
        FakeGenerator.instances.append(self)

    def generate(self, question, hits, history=None, support=None):
        self.calls.append((question.text, list(hits), list(history or [])))
        if self.reply is not None:
            yield from self.reply.split(" ")[:1]
            rest = self.reply.split(" ", 1)[1:]
            if rest:
                yield " " + rest[0]
            return
        top = hits[0].chunk
        first = top.text.splitlines()[-1].split(". ")[0].rstrip(".")
        yield f"{first}. "
        yield top.label

    def support(self, question, hits):
        return Support(self._support)
