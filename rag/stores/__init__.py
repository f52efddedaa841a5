"""Vector stores. ``qdrant`` (qdrant-client: embedded folder, ``:memory:`` or a server ``url``) and
``edge`` (qdrant-edge-py, Qdrant's Rust engine in-process).

Both keep one collection per campaign; each point is a chunk: its dense vector, its text for
keyword (BM25) search, and its payload (``Chunk.payload()`` plus ``stored_hash``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from rag import registry
from rag.config import Config
from rag.models import Chunk, Filters

ScoredChunks = list[tuple[Chunk, float]]
# (payload key, how it matches, what); "not": the key must not hold the value (a missing key passes)
Condition = tuple[str, Literal["range", "any", "value", "not"], Any]


class Store(ABC):
    """The seam between retrieval and the engine. Scores are the engine's own (cosine, BM25)."""

    @abstractmethod
    def ensure_collection(self, name: str, dim: int) -> bool:
        """Create the collection if missing; recreate it empty if its vector size differs.
        Returns True when the collection was (re)created empty."""

    @abstractmethod
    def collections(self) -> list[str]: ...

    @abstractmethod
    def drop(self, name: str) -> None: ...

    @abstractmethod
    def count(self, name: str, filters: Filters | None = None) -> int:
        """Points the filters allow; None is the player view, as for every read."""

    @abstractmethod
    def stored_hashes(self, name: str) -> dict[str, str]:
        """id → stored_hash of every point, so sync can skip unchanged chunks without re-embedding."""

    @abstractmethod
    def upsert(self, name: str, chunks: Sequence[Chunk], vectors: np.ndarray, stored_hashes: Sequence[str]) -> None: ...

    @abstractmethod
    def delete(self, name: str, ids: Sequence[str]) -> None: ...

    @abstractmethod
    def dense_search(
        self, name: str, vector: np.ndarray, limit: int, filters: Filters | None = None
    ) -> ScoredChunks: ...

    @abstractmethod
    def keyword_search(
        self, name: str, text: str, limit: int, filters: Filters | None = None, context: bool = False
    ) -> ScoredChunks:
        """BM25 over each passage's text, or with ``context`` over the passage with its neighbours
        (``Chunk.context``; the passage alone where the index has no context)."""

    @abstractmethod
    def rewrite_payload(self, name: str, chunks: Sequence[Chunk], stored_hashes: Sequence[str]) -> None:
        """Replace these chunks' stored details (visibility, lines, title…) on their existing points, keeping
        their vectors: a note marked GM-only, or one whose front matter grew, changes no passage's words."""

    @abstractmethod
    def vectors(self, name: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The dense vectors of these points (those that exist): a note moved to another folder keeps its
        passages' vectors under their new ids instead of being embedded again."""

    @abstractmethod
    def chunks(self, name: str, source: str | None = None, filters: Filters | None = None) -> list[Chunk]:
        """Every chunk (or one file's) the filters allow, in source/position order: previews, alias tables,
        entity lists. Like every search, None means the player view: GM-only chunks are left out."""

    def close(self) -> None:  # noqa: B027 - optional: only embedded stores hold a lock
        """Release the folder lock of an embedded store. Safe to call twice."""


def filter_conditions(filters: Filters | None) -> list[Condition]:
    """What a ``Filters`` asks of the payload, engine-neutral; each store turns these into its own query types,
    so the engines cannot drift apart. A session range never matches a passage without a session (a null
    value fails a range); several subject words must all be in the subject. No filters is the player view:
    GM-only passages are excluded inside the engine's query, never by reading results afterwards."""
    filters = filters or Filters()
    out: list[Condition] = [("visibility", "not", "gm")] if filters.view == "player" else []
    if filters.session_min is not None or filters.session_max is not None:
        bounds = tuple(None if b is None else float(b) for b in (filters.session_min, filters.session_max))
        out.append(("session", "range", bounds))
    if filters.campaign_no is not None:
        out.append(("campaign_no", "value", int(filters.campaign_no)))
    for key, values in (("source", filters.sources), ("entities", filters.entities), ("kind", filters.kinds)):
        if values:
            out.append((key, "any", list(values)))
    if filters.senders:  # lower-cased keys on both sides: address, its local part, name, name words
        out.append(("sender_keys", "any", list(filters.senders)))
    out += [("subject_words", "value", word) for word in filters.subject_words]
    return out


def check_batch(chunks: Sequence[Chunk], vectors: np.ndarray, stored_hashes: Sequence[str]) -> np.ndarray:
    """Mismatched lengths are a caller bug: fail before anything is written."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or len(vectors) != len(chunks) or len(stored_hashes) != len(chunks):
        raise ValueError(
            f"upsert needs one vector and one hash per chunk: {len(chunks)} chunks, "
            f"vectors of shape {vectors.shape}, {len(stored_hashes)} hashes"
        )
    return vectors


def get_store(config: Config) -> Store:
    """A server ``url`` always goes through qdrant-client: the edge engine is in-process only."""
    backend = "qdrant" if config.store.url else config.store.backend
    return registry.create("stores", backend, config)
