"""Offline query expansion from the campaign's own notes: the question plus the words its best passages share.

Players ask about "the boat" where the notes say "ship" and "cargo". Without a language model the vault itself
says which words go with the question: those that set its best passages apart from the other candidates
(pseudo-relevance feedback, ``feedback``). That phrasing is searched like the question and adds to what the
question found (``rag.search.retrieval.with_phrasings``). With an OpenAI-compatible LLM configured, its phrasings
come first.

Swapping in the other names the notes give a person ("the Professor" → "Locke Hancock", from ``aliases:`` and
``[[Locke Hancock|the Professor]]``) was a phrasing too until 2026-11-26: measured, it lowered vault-toa's hit@1 and
MRR and CRD3's hit@5 next to feedback alone (docs/experiments/history.md), so names stay with the keyword stage's own
spellings and the ``retrieval.alias_expansion`` setting.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from functools import lru_cache

from rag.campaign.aliases import AliasTable
from rag.config import Config
from rag.expanders import QueryExpander, clean_variants
from rag.expanders.llm import LLMExpander
from rag.llm import llm_configured
from rag.models import Hit
from rag.names import STOPWORDS
from rag.question import Question

FEEDBACK_PASSAGES = 3  # the question's best passages that words are taken from
FEEDBACK_WORDS = 5
NAME_SHARE = 0.5  # a word the best passages capitalise this often is a name, never a feedback word
_WORDS = re.compile(r"[^\W\d_]{3,}")


class VaultExpander(QueryExpander):
    name = "vault"

    def __init__(self, config: Config):
        self.llm = LLMExpander(config) if llm_configured(config.answer) else None

    def expand(
        self, question: Question, n: int, aliases: AliasTable | None = None, found: list[Hit] | None = None
    ) -> list[str]:
        phrasings = self.llm.expand(question, n) if self.llm is not None else []
        return phrasings + clean_variants(feedback(question, found or []), question.text, n)


def create(config: Config) -> VaultExpander:
    return VaultExpander(config)


@lru_cache(maxsize=8192)
def _read(text: str) -> tuple[Counter[str], Counter[str]]:
    """A passage's words (case-folded, counted) and how often each is capitalised: read once per passage, as
    the same passages come back question after question (this was most of the phrasing's cost). The counters are
    shared between calls: read them, never change them."""
    said = _WORDS.findall(text)
    return Counter(w.casefold() for w in said), Counter(w.casefold() for w in said if w[0].isupper())


def feedback(question: Question, found: list[Hit]) -> str:
    """The question plus the words that set its best passages apart from the other candidates (pseudo-relevance
    feedback): a question about "the boat" whose best passages say "ship" and "cargo" also searches those.
    Never names: when the best passages are about someone else ("What saved Xandala…" → three passages on Ras
    Nsi), their names would pull the whole search to that person (docs/experiments/history.md)."""
    if len(found) <= FEEDBACK_PASSAGES:
        return ""
    asked = question.letter_words
    seen: Counter[str] = Counter()
    for hit in found:  # in how many candidates each word is written
        seen.update(_read(hit.chunk.text)[0].keys())
    weight: Counter[str] = Counter()
    written: Counter[str] = Counter()
    capitalised: Counter[str] = Counter()
    for hit in found[:FEEDBACK_PASSAGES]:
        counts, caps = _read(hit.chunk.text)
        capitalised.update(caps)
        written.update(counts)
        for word, count in counts.items():
            if word not in asked and word not in STOPWORDS:
                weight[word] += count * math.log(len(found) / seen[word])
    # a name the question did not ask about moves the search to someone else
    ranked = (w for w, score in weight.most_common() if score > 0 and capitalised[w] < NAME_SHARE * written[w])
    words = list(itertools.islice(ranked, FEEDBACK_WORDS))
    return f"{question.text} {' '.join(words)}" if words else ""
