"""The answerer's learned decisions: how likely an answer is to hold what answers it (``holds_evidence``), from
the numbers the offline answerer records (``_signals``); how likely a "which session" short answer names the right
session (``session_right``, ``session_lead.json``: ``session_standing``).

Trained by ``scripts/train_answerer.py`` on FairytaleQA *train* only (no headline number comes from it): a
logistic model per decision over standardised signals, shipped as ``decisions.json`` beside this module with its
provenance. The confidence bands it is read with (``answer.confidence_high``, ``confidence_medium``) were chosen
on the dev sets' *tune* parts. (An answerability model, ``--answerable``, was tried and not shipped:
docs/experiments/README.md.)
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

from rag.models import Chunk, Hit

DECISIONS_PATH = Path(__file__).with_name("decisions.json")
SESSION_LEAD_PATH = Path(__file__).with_name("session_lead.json")
SessionKey = tuple[int | None, float]  # (campaign number, session) of a session note
RULES = {  # a rule's refusal note → the signal saying it fired (as scripts/train_answerer.py reads it)
    "rule_says_unknown": " only says ",
    "rule_unsaid": "no passage found ",
    "rule_missing_detail": " never give",
}


class Decisions:
    def __init__(self, spec: dict):
        self.features: list[str] = spec["features"]
        self.models: dict[str, dict] = spec["models"]
        self.spec = spec

    def probability(self, decision: str, signals: dict[str, float]) -> float | None:
        """P(``decision``) for these signals, or None when the model does not know this decision or the
        answerer recorded no signals (a language model answered)."""
        model = self.models.get(decision)
        if model is None or not signals:
            return None
        z = model["bias"]
        for name, w, m, s in zip(self.features, model["weights"], model["mean"], model["scale"], strict=True):
            z += w * (float(signals.get(name, 0.0)) - m) / (s or 1.0)
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))


def with_rules(signals: dict[str, float], support: float | None, note: str | None) -> dict[str, float]:
    """The signals with the support score and which rule fired, as the models read them."""
    out = dict(signals)
    out["support"] = support or 0.0
    for name, marker in RULES.items():
        out[name] = float(marker in (note or ""))
    return out


def session_of(chunk: Chunk) -> SessionKey | None:
    """The session note a passage is from (campaign number, session), or None for a page or another document:
    what a "which session" answer would name (``_reading.session_label``)."""
    return (chunk.campaign_no, chunk.session) if chunk.session is not None and chunk.file_type == "markdown" else None


def session_standing(hits: list[Hit], session: SessionKey) -> dict[str, float]:
    """How far the reranker puts one session's passages above every other session's: the best ``Hit.sure`` of a
    passage of that session note, and its margin over the best of any other session note. A "which session" answer
    names one session; when another session's passage matches the question nearly as well, the notes tell of it
    there too, or the search is guessing (scripts/train_session_lead.py). Empty (nothing to decide by) when the
    reranker gives no sure-ness on a scale."""
    best: dict[SessionKey, float] = {}
    for h in hits:
        key = session_of(h.chunk)
        if h.sure is not None and key is not None:
            best[key] = max(best.get(key, 0.0), h.sure)
    if session not in best:
        return {}
    others = max((sure for key, sure in best.items() if key != session), default=0.0)
    return {"session_sure": best[session], "session_margin": best[session] - others}


@lru_cache(maxsize=4)
def load_decisions(path: str = str(DECISIONS_PATH)) -> Decisions | None:
    p = Path(path)
    return Decisions(json.loads(p.read_text(encoding="utf-8"))) if p.is_file() else None
