"""What searching and answering produce: the ``Filters`` a search obeys, ``Hit``s with every stage's score,
and the ``Answer`` with its citations. Validated on construction, like the passages they carry."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rag.models.passages import OPTIONAL_FIELDS, VISIBILITIES, Chunk, match_words


@dataclass(frozen=True)
class Filters:
    """What a search may return. Every field is optional; empty means no restriction."""

    session_min: float | None = None
    session_max: float | None = None  # "as of session N": nothing from later sessions
    campaign_no: int | None = None
    sources: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    senders: tuple[str, ...] = ()  # e-mail from any of these: address, its local part, name or a word of it
    subject: str = ""  # e-mail whose subject has every word of this (case-insensitive)
    # "player": GM-only passages are left out inside the store query; the default, so a search that forgets
    # to say who is reading shows a player's view. The Pipeline sets it from ``config.view``.
    view: str = "player"

    def __post_init__(self):
        if self.view not in VISIBILITIES:
            raise ValueError(f"Filters.view must be one of {', '.join(VISIBILITIES)}, got {self.view!r}")
        if self.session_min is not None and self.session_max is not None and self.session_min > self.session_max:
            raise ValueError("Filters.session_min must not be above session_max")
        object.__setattr__(self, "sources", tuple(self.sources))
        object.__setattr__(self, "entities", tuple(self.entities))
        object.__setattr__(self, "kinds", tuple(self.kinds))
        senders = (" ".join(s.split()).casefold() for s in self.senders)
        object.__setattr__(self, "senders", tuple(s for s in senders if s))
        object.__setattr__(self, "subject", " ".join(self.subject.split()))

    @property
    def subject_words(self) -> list[str]:
        return match_words(self.subject)

    def is_empty(self) -> bool:
        return self == Filters()


@dataclass
class Hit:
    """A retrieved chunk with the score of every stage that saw it.

    ``scores`` keys: ``dense``, ``keyword``, ``context`` (keyword over the passage with its neighbours),
    ``fused``, ``rerank`` (absent when the stage did not run
    or did not find this chunk). ``score`` is the one the final order was made by.
    """

    chunk: Chunk
    score: float
    rank: int  # 1-based, after the last stage
    scores: dict[str, float] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)  # rank per stage, for rank-movement charts
    variant: str = ""  # the query text (original or expansion) that found it
    kept: bool = True  # False when dropped by the score threshold
    # the score the search gave it before any re-reading: what the threshold cuts, on the scale of the search's
    # mode (a reranker's scores have another, and it re-reads only the best few)
    searched: float | None = None
    sure: float | None = None  # how sure the reranker is of it, 0-1; None without one whose scores have a scale

    def __post_init__(self):
        if self.rank < 1:
            raise ValueError("Hit.rank is 1-based")
        if self.sure is not None and not 0.0 <= self.sure <= 1.0:
            raise ValueError(f"Hit.sure must be within 0 and 1, got {self.sure!r}")

    def as_dict(self) -> dict[str, Any]:
        c = self.chunk
        return {
            "rank": self.rank,
            "score": round(self.score, 6),
            "scores": {k: round(v, 6) for k, v in self.scores.items()},
            "ranks": dict(self.ranks),
            "variant": self.variant,
            "kept": self.kept,
            "id": c.id,
            "session": c.session,
            "campaign_no": c.campaign_no,
            "source": c.source,
            "name": c.name,
            "heading": c.heading,
            "text": c.text,
            "entities": list(c.entities),
            **{k: getattr(c, k) for k in ("page", "sender", "subject", "date") if getattr(c, k) != OPTIONAL_FIELDS[k]},
        }


@dataclass(frozen=True)
class Citation:
    label: str  # as written in the answer, e.g. "Session 5 · The Sunken Tavern"
    chunk_id: str | None  # None when it resolves to no chunk in the context: flagged, never dropped


@dataclass
class Answer:
    question: str
    text: str
    citations: list[Citation] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    refused: bool = False  # "the notes don't say"
    confidence: str = "low"
    trace: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.confidence not in ("high", "medium", "low"):
            raise ValueError("Answer.confidence is high, medium or low")

    @property
    def cited(self) -> list[Chunk]:
        """The passages its citations name, in the order it cites them (a passage cited twice is here twice); a
        citation that names no passage it was given is left out (``rag.citations.check_citations`` says so)."""
        by_id = {h.chunk.id: h.chunk for h in self.hits}
        return [by_id[c.chunk_id] for c in self.citations if c.chunk_id in by_id]

    @property
    def borrowed(self) -> dict[str, Any] | None:
        """The follow-up rewrite (``trace["rewrite"]``) when the question borrowed from the earlier turn, else None."""
        rewrite = self.trace.get("rewrite") or {}
        return rewrite if rewrite.get("method") not in (None, "none") else None

    @property
    def respelt(self) -> dict[str, str]:
        """The question's names read as the notes spell them ({"Clarrota": "Clarota"}), when they write them only
        so (``rag.answering.respelt_question``)."""
        return dict((self.trace.get("rewrite") or {}).get("respelt") or {})

    @property
    def read_as(self) -> str:
        """The question as it was searched and answered: rewritten as a follow-up, respelt, or as asked."""
        return (self.trace.get("rewrite") or {}).get("standalone") or self.question
