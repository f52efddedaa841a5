"""Plain value objects passed between stages.

They validate themselves when constructed so a bad object fails where it is made,
not three stages later inside Qdrant or a chart.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

Session = int | float | None  # "Session 20.5.md" exists in real vaults
_ID_NAMESPACE = uuid.UUID("6f1c2d1e-6a55-4c8e-9d3b-6d2f0b9a7c11")


def format_session(session: Session) -> str:
    if session is None:
        return ""
    if isinstance(session, float) and session.is_integer():
        session = int(session)
    return str(session)


@dataclass(frozen=True)
class Note:
    """One file of the vault, parsed but not yet chunked."""

    source: str  # path relative to the notes folder, with forward slashes
    title: str
    body: str  # the narrative part, Markdown as written (front matter removed)
    body_line: int = 1  # 1-based line number of the first line of ``body`` in the file
    session: Session = None
    campaign_no: int | None = None  # the ``C2`` of ``C2 Session 20.md``
    kind: str = "session"  # "session", else the note's folder (or "note" at the top level)
    front_matter: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.source or self.source.startswith("/") or ".." in self.source.split("/"):
            raise ValueError(f"Note.source must be a relative path inside the vault, got {self.source!r}")
        if self.session is not None and self.session < 0:
            raise ValueError(f"Note.session must be >= 0, got {self.session}")


@dataclass(frozen=True)
class Chunk:
    """A passage as indexed. ``text`` is what is embedded, searched and matched against evidence."""

    campaign: str
    source: str
    position: int  # 0-based order of the chunk inside its note
    text: str
    name: str  # "Session 5 · Part 3"
    heading: str = ""
    session: Session = None
    campaign_no: int | None = None
    kind: str = "session"
    title: str = ""
    entities: tuple[str, ...] = ()  # canonical page names of [[wikilinks]]
    aliases: tuple[tuple[str, str], ...] = ()  # (shown text, page name) pairs where they differ
    line_start: int = 0
    line_end: int = 0
    id: str = ""
    content_hash: str = ""

    def __post_init__(self):
        if not self.campaign:
            raise ValueError("Chunk.campaign must not be empty")
        if not self.text.strip():
            raise ValueError(f"Chunk {self.source}#{self.position} has no text")
        if self.position < 0:
            raise ValueError("Chunk.position must be >= 0")
        if self.line_end < self.line_start:
            raise ValueError("Chunk.line_end must be >= line_start")
        object.__setattr__(self, "entities", tuple(self.entities))
        object.__setattr__(self, "aliases", tuple(tuple(a) for a in self.aliases))
        if not self.id:
            object.__setattr__(self, "id", chunk_id(self.campaign, self.source, self.position))
        if not self.content_hash:
            object.__setattr__(self, "content_hash", self._hash())

    def _hash(self) -> str:
        data = self.payload()
        data.pop("content_hash", None)
        data.pop("id", None)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:32]

    def payload(self) -> dict[str, Any]:
        data = asdict(self)
        data["entities"] = list(self.entities)
        data["aliases"] = [list(a) for a in self.aliases]
        return data

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Chunk:
        known = {k: v for k, v in payload.items() if k in cls.__dataclass_fields__}
        known["entities"] = tuple(known.get("entities") or ())
        known["aliases"] = tuple(tuple(a) for a in known.get("aliases") or ())
        return cls(**known)

    @property
    def label(self) -> str:
        """How a citation names this chunk: ``[Session 5 · Part 3]``."""
        return f"[{self.name}]"


def chunk_id(campaign: str, source: str, position: int) -> str:
    """Stable across runs and machines, so re-indexing updates points instead of duplicating them."""
    return str(uuid.uuid5(_ID_NAMESPACE, f"{campaign}\x1f{source}\x1f{position}"))


@dataclass(frozen=True)
class Filters:
    """What a search may return. Every field is optional; empty means no restriction."""

    session_min: float | None = None
    session_max: float | None = None  # "as of session N": nothing from later sessions
    campaign_no: int | None = None
    sources: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    def __post_init__(self):
        if (
            self.session_min is not None
            and self.session_max is not None
            and self.session_min > self.session_max
        ):
            raise ValueError("Filters.session_min must not be above session_max")
        object.__setattr__(self, "sources", tuple(self.sources))
        object.__setattr__(self, "entities", tuple(self.entities))
        object.__setattr__(self, "kinds", tuple(self.kinds))

    def is_empty(self) -> bool:
        return self == Filters()


@dataclass
class Hit:
    """A retrieved chunk with the score of every stage that saw it.

    ``scores`` keys: ``dense``, ``keyword``, ``fused``, ``rerank`` (absent when the stage did not run
    or did not find this chunk). ``score`` is the one the final order was made by.
    """

    chunk: Chunk
    score: float
    rank: int  # 1-based, after the last stage
    scores: dict[str, float] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)  # rank per stage, for rank-movement charts
    variant: str = ""  # the query text (original or expansion) that found it
    kept: bool = True  # False when dropped by the score threshold

    def __post_init__(self):
        if self.rank < 1:
            raise ValueError("Hit.rank is 1-based")

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
        }


@dataclass(frozen=True)
class Citation:
    label: str  # as written in the answer, e.g. "Session 5 · Part 3"
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
