"""Query expanders write other phrasings of a question; each phrasing is searched and the best score
per passage wins. Backends: ``vault`` (offline: the names the campaign's own notes give the people and places
the question names, plus the LLM's phrasings when one is configured) and ``llm`` (the LLM only).

Players ask "who gave us the map?" while the notes say "Herris hands them a chart of the mines"; a
model that knows the language can bridge that where BM25 and a small embedder cannot. Expansion is a
stage of its own, found by config string (``retrieval.expander``) like every other backend.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod

from rag import registry
from rag.campaign.aliases import AliasTable
from rag.config import Config
from rag.models import Hit
from rag.question import Question


class QueryExpander(ABC):
    """One method to implement: up to ``n`` other search queries for ``question`` (never the question)."""

    name: str = "expander"

    @abstractmethod
    def expand(
        self, question: Question, n: int, aliases: AliasTable | None = None, found: list[Hit] | None = None
    ) -> list[str]:
        """Other phrasings, best first; fewer than ``n`` (or none) is allowed. For backends that use the vault:
        ``aliases``, the campaign's names for its people and places (built at index time), and ``found``, what
        the question itself found, best first (pseudo-relevance feedback)."""


def get_expander(config: Config) -> QueryExpander:
    return registry.create("expanders", config.retrieval.expander, config)


_NUMBERING = re.compile(r"^\s*(?:[-*•]+|\(?\d+[.):]|q\d+[.):])\s*", re.IGNORECASE)


def clean_variants(reply: str, asked: str, n: int) -> list[str]:
    """One query per line, without numbering, quotes, duplicates or the question (``asked``, its text) itself."""
    seen = {" ".join(asked.casefold().split())}
    out: list[str] = []
    for line in reply.splitlines():
        text = _NUMBERING.sub("", line).strip().strip("\"'`").strip()
        key = " ".join(text.casefold().split())
        if len(key) < 3 or key in seen or len(text) > 300:
            continue
        seen.add(key)
        out.append(" ".join(text.split()))
        if len(out) == n:
            break
    return out
