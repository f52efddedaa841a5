"""Offline query expansion from the campaign's own notes: the other names of whoever the question names.

Players ask about "the Professor" where the notes write "Locke Hancock", or about "Shadowmantle" where they write
"Valindra". The vault says they are one: a page's front matter ``aliases:`` and links written ``[[Locke
Hancock|the Professor]]``. For every name in the question the alias table knows, each other name of that
person or place makes one more phrasing of the question (the name swapped), searched like the question itself.
With an OpenAI-compatible LLM configured, its phrasings come first and these follow.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

from rag.config import Config
from rag.expanders import QueryExpander, clean_variants
from rag.expanders.llm import LLMExpander
from rag.llm import llm_configured
from rag.models import Hit
from rag.names import STOPWORDS
from rag.search.aliases import AliasTable

FEEDBACK_PASSAGES = 3  # the question's best passages that words are taken from
FEEDBACK_WORDS = 5
NAME_SHARE = 0.5  # a word the best passages capitalise this often is a name, never a feedback word
_WORDS = re.compile(r"[^\W\d_]{3,}")


class VaultExpander(QueryExpander):
    name = "vault"

    def __init__(self, config: Config):
        self.llm = LLMExpander(config) if llm_configured(config.answer) else None

    def expand(
        self, question: str, n: int, aliases: AliasTable | None = None, found: list[Hit] | None = None
    ) -> list[str]:
        phrasings = self.llm.expand(question, n) if self.llm is not None else []
        ours = [*renamed(question, aliases), feedback(question, found or [])]
        return phrasings + clean_variants("\n".join(p for p in ours if p), question, n)


def renamed(question: str, aliases: AliasTable | None) -> list[str]:
    """The question once per other name of each person or place it names, the page's own name first."""
    if not aliases:
        return []
    out = []
    for said, entity in aliases.mentions(question).items():
        pattern = re.compile(rf"(?<!\w){re.escape(said)}(?!\w)", re.IGNORECASE)
        for other in aliases.names[entity]:
            if other.casefold() != said:
                out.append(pattern.sub(lambda _m, other=other: other, question))
    return out


def create(config: Config) -> VaultExpander:
    return VaultExpander(config)


def feedback(question: str, found: list[Hit]) -> str:
    """The question plus the words that set its best passages apart from the other candidates (pseudo-relevance
    feedback): a question about "the boat" whose best passages say "ship" and "cargo" also searches those.
    Never names: when the best passages are about someone else ("What saved Xandala…" → three passages on Ras
    Nsi), their names would pull the whole search to that person (docs/EVALUATION.md)."""
    if len(found) <= FEEDBACK_PASSAGES:
        return ""
    asked = {w.casefold() for w in _WORDS.findall(question)}
    seen = Counter(w for h in found for w in {w.casefold() for w in _WORDS.findall(h.chunk.text)})
    weight: Counter[str] = Counter()
    written: Counter[str] = Counter()
    capitalised: Counter[str] = Counter()
    for hit in found[:FEEDBACK_PASSAGES]:
        said = _WORDS.findall(hit.chunk.text)
        capitalised.update(w.casefold() for w in said if w[0].isupper())
        counts = Counter(w.casefold() for w in said)
        written.update(counts)
        for word, count in counts.items():
            if word not in asked and word not in STOPWORDS:
                weight[word] += count * math.log(len(found) / seen[word])
    # a name the question did not ask about moves the search to someone else
    ranked = (w for w, score in weight.most_common() if score > 0 and capitalised[w] < NAME_SHARE * written[w])
    words = list(itertools.islice(ranked, FEEDBACK_WORDS))
    return f"{question} {' '.join(words)}" if words else ""
