"""The Campaign page's evaluation view: where its question file is, and its scores as frames and figures.

Players keep a ``questions.jsonl`` (the format of ``python -m rag eval``, see shared/data/README.md) in
their notes folder, or upload one on the page. It is read by ``rag.measure.questions`` and asked of the
campaign *as it is indexed* by ``rag.measure.evaluation.evaluate``, the scorer ``rag eval`` uses, so the
numbers mean exactly what ``rag eval`` reports. Everything here is pure (no Streamlit) so the numbers behind
every chart can be unit-tested.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go

from app.charts import COLORS
from app.tables import SHOWN
from rag.config import Config
from rag.measure.evaluation import MRR_DEPTH
from rag.models import format_session
from rag.pipeline import Pipeline

QUESTION_FILE = "questions.jsonl"  # looked for in the campaign's notes folder
HEADLINE_K = 5  # "found in the top 5": the missed-questions table and the one-sentence explanation
KIND_COLORS = ["#c9b79c", "#a8875f", "#6f8f72", "#5b7a99", "#9a6b8f"]
METRICS = {  # result key → (label, help)
    "hit@1": ("Found first", "Share of questions whose best passage holds the answer."),
    "hit@3": ("Found in top 3", "Share of questions with a passage holding the answer among the first 3."),
    "hit@5": ("Found in top 5", "Share of questions with a passage holding the answer among the first 5."),
    "hit@10": ("Found in top 10", "Share of questions with a passage holding the answer among the first 10."),
    f"mrr@{MRR_DEPTH}": (
        "MRR@10",
        "Mean reciprocal rank: 1 when the answer is always first, 0.5 when always second, 0 when never in the top 10.",
    ),
    "session_hit@5": (
        "Right session in top 5",
        "Share of answerable questions where one of the first 5 passages comes from a session the answer "
        "is in (even if that passage does not hold the answer itself).",
    ),
}
EXPLANATION = (
    "“Found in the top 5” means that, among the 5 passages a search shows first, at least one comes from "
    "the right session and contains the words your question file gives as evidence."
)


def question_file(config: Config, campaign: str) -> Path | None:
    """``questions.jsonl`` in the folder the campaign was indexed from, if there is one."""
    folder = Pipeline(config).files.source(campaign)
    path = folder / QUESTION_FILE if folder is not None else None
    return path if path is not None and path.is_file() else None


def metric_values(result: dict[str, Any]) -> dict[str, float | None]:
    """The headline metrics, label → value (None when no question counts for it)."""
    overall = result["overall"]
    return {key: overall.get(key) for key in METRICS}


def format_metric(key: str, value: float | None) -> str:
    """MRR as a number, shares as percentages, "–" where no question counts for the metric."""
    if value is None:
        return "–"
    return f"{value:.2f}" if key.startswith("mrr") else f"{value:.0%}"


def hit_at_k_frame(result: dict[str, Any]) -> pd.DataFrame:
    """One row per (question set, k): ``set`` is "all questions" or a kind, ``found`` the hit@k share and
    ``questions`` how many it is a share of (those with evidence: the others only count for sessions)."""
    scored = [q for q in result["per_question"] if q["has_evidence"]]
    sets = [("all questions", result["overall"], len(scored))]
    answerable = [q for q in result["per_question"] if q.get("answerable", True)]
    asked = [k for k in result["by_kind"] if any(q["kind"] == k for q in answerable)]
    if len(asked) > 1:  # per kind only when there is more than one kind of answerable question
        for kind in asked:
            metrics = result["by_kind"][kind]
            sets.append((kind, metrics, sum(1 for q in scored if q["kind"] == kind)))
    rows = [
        {"set": name, "k": k, "found": metrics[f"hit@{k}"], "questions": n}
        for name, metrics, n in sets
        for k in result["ks"]
        if f"hit@{k}" in metrics
    ]
    return pd.DataFrame(rows, columns=["set", "k", "found", "questions"])


def hit_at_k_figure(result: dict[str, Any]) -> go.Figure:
    """Grouped bars: the share found in the top k, per k, for all questions and per kind."""
    frame = hit_at_k_frame(result)
    fig = go.Figure()
    for i, (name, part) in enumerate(frame.groupby("set", sort=False)):
        fig.add_trace(
            go.Bar(
                x=[f"top {k}" for k in part["k"]],
                y=list(part["found"]),
                name=f"{name} ({int(part['questions'].iloc[0])})",
                marker_color=COLORS[SHOWN] if i == 0 else KIND_COLORS[(i - 1) % len(KIND_COLORS)],
                hovertemplate="%{x}: %{y:.0%}<extra>%{fullData.name}</extra>",
            )
        )
    fig.update_layout(
        barmode="group",
        height=320,
        margin=dict(l=10, r=10, t=50, b=10),
        title="Questions whose answer was found, by how many passages are looked at",
        yaxis=dict(title="share of questions", tickformat=".0%", range=[0, 1.05]),
        xaxis_title="passages looked at",
        legend_title_text="questions (count)",
    )
    return fig


def _rank_text(rank: int | None, depth: int) -> str:
    return str(rank) if rank else f"not in the top {depth}"


def missed_frame(result: dict[str, Any], k: int = HEADLINE_K) -> pd.DataFrame:
    """Questions not found in the top ``k``: by evidence when they have some, else by gold session."""
    rows = []
    for q in result["per_question"]:
        key = f"hit@{k}" if q["has_evidence"] else f"session_hit@{k}"
        if q.get(key, 1.0) >= 1.0:
            continue
        rows.append(
            {
                "id": q["id"],
                "question": q["question"],
                "kind": q["kind"],
                "sessions": ", ".join(format_session(s) for s in q["sessions"]),
                "answer passage at": _rank_text(q["first_support"], q["depth"])
                if q["has_evidence"]
                else "no evidence given",
                "right session at": _rank_text(q["first_session"], q["depth"]),
            }
        )
    columns = ["id", "question", "kind", "sessions", "answer passage at", "right session at"]
    return pd.DataFrame(rows, columns=columns)
