"""A campaign's own retrieval evaluation, for the Campaign page: question file → scores → frames and figures.

Players keep a ``questions.jsonl`` (the format of ``python -m rag eval``, see shared/data/README.md) in
their notes folder, or upload one on the page. The questions are asked of the campaign *as it is
indexed* (no second copy of the notes is embedded, unlike ``rag.measure.evaluation.run_eval``, which indexes the
folder into its own ``eval-…`` collection), and scored with ``rag.measure.evaluation``'s own matching rule and
metrics, so the numbers mean exactly what ``rag eval`` reports. Everything here is pure (no Streamlit) so
the numbers behind every chart can be unit-tested.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import plotly.graph_objects as go

from rag.errors import ChroniclerError
from rag.measure.evaluation import KINDS, MRR_DEPTH, Question, aggregate, from_gold_session, score_question, supports
from rag.models import Filters, format_session
from app.charts import COLORS, SHOWN

if TYPE_CHECKING:
    from rag.config import Config
    from rag.pipeline import Pipeline

QUESTION_FILE = "questions.jsonl"  # looked for in the campaign's notes folder
KS = (1, 3, 5, 10)
HEADLINE_K = 5  # "found in the top 5": the missed-questions table and the one-sentence explanation
SEARCH_DEPTH = 20  # passages looked at per question: metrics use the top 10, the table says where beyond
MAX_LINES = 5000
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


class QuestionFileError(ChroniclerError):
    """The question file cannot be used; the message names the line."""


def question_file(config: Config, campaign: str) -> Path | None:
    """``questions.jsonl`` in the folder the campaign was indexed from, if there is one."""
    from rag.ingest.uploads import notes_source

    folder = notes_source(config, campaign)
    path = folder / QUESTION_FILE if folder is not None else None
    return path if path is not None and path.is_file() else None


def _number_list(raw: dict, name: str) -> list[float]:
    value = raw.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or any(isinstance(v, bool) or not isinstance(v, int | float) for v in value):
        raise ValueError(f"'{name}' must be a list of session numbers, like [2] or [3, 7]")
    return [float(v) for v in value]


def _text_list(raw: dict, name: str) -> list[str]:
    value = raw.get(name)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"'{name}' must be a list of quotes from the notes, like [\"gives them a map\"]")
    return value


def _question(raw: Any) -> Question:
    if not isinstance(raw, dict):
        raise ValueError("each line must be one JSON object, {…}")
    for name in ("id", "question"):
        if raw.get(name) in (None, ""):
            raise ValueError(f"it has no '{name}'")
    if not isinstance(raw["question"], str):
        raise ValueError("'question' must be text")
    kind = raw.get("kind") or "fact"
    if not isinstance(kind, str):
        raise ValueError(f"'kind' must be one of {', '.join(KINDS)}")
    campaign = raw.get("campaign")
    if campaign is not None and (isinstance(campaign, bool) or not isinstance(campaign, int)):
        raise ValueError("'campaign' must be a whole number, like 1")
    return Question(
        id=str(raw["id"]),
        question=raw["question"].strip(),
        sessions=_number_list(raw, "sessions"),
        evidence=_text_list(raw, "evidence"),
        kind=kind,
        campaign=campaign,
        story=raw.get("story"),
        answer=str(raw.get("answer") or ""),
    )


def parse_questions(data: str | bytes, name: str = QUESTION_FILE) -> list[Question]:
    """JSON Lines → questions; the first bad line is a ``QuestionFileError`` naming the file and line."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise QuestionFileError(f"{name} is not a text file (UTF-8): save it as plain text.") from None
    questions, seen = [], {}
    lines = data.splitlines()
    if len(lines) > MAX_LINES:
        raise QuestionFileError(f"{name} has {len(lines)} lines; at most {MAX_LINES} questions are measured.")
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            q = _question(json.loads(line))
        except json.JSONDecodeError as err:
            raise QuestionFileError(
                f"{name}, line {lineno}: not valid JSON ({err.msg} at column {err.colno})."
            ) from None
        except ValueError as err:
            raise QuestionFileError(f"{name}, line {lineno}: {err}.") from None
        if q.id in seen:
            raise QuestionFileError(f"{name}, line {lineno}: the id '{q.id}' is already used on line {seen[q.id]}.")
        seen[q.id] = lineno
        questions.append(q)
    if not questions:
        raise QuestionFileError(f"{name} holds no questions.")
    return questions


def _first_rank(chunks: Sequence, test: Callable) -> int | None:
    return next((i for i, c in enumerate(chunks, start=1) if test(c)), None)


def evaluate(
    pipeline: Pipeline,
    campaign: str,
    questions: Sequence[Question],
    ks: Sequence[int] = KS,
    filters: Filters | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Ask every question of the indexed campaign and score it with ``rag.measure.evaluation``'s rule.

    The result has ``rag eval``'s shape (``n``, ``overall``, ``by_kind``, ``per_question``) plus, per
    question, its text, gold sessions and the rank of the first supporting / gold-session passage."""
    ks = sorted({int(k) for k in ks})
    depth = max(SEARCH_DEPTH, *ks, MRR_DEPTH)
    rows, per_question = [], []
    for done, q in enumerate(questions, start=1):
        if q.answerable:  # unanswerable questions test the answer, not the search
            hits = pipeline.retrieve(q.question, campaign, k=depth, filters=filters).hits
            chunks = [h.chunk for h in hits]
            metrics = score_question(q, hits, ks)
            rows.append((q.kind, metrics))
            per_question.append(
                {
                    "id": q.id,
                    "question": q.question,
                    "kind": q.kind,
                    "sessions": q.sessions,
                    "has_evidence": bool(q.evidence),
                    "first_support": _first_rank(chunks, lambda c, q=q: supports(c, q)) if q.evidence else None,
                    "first_session": _first_rank(chunks, lambda c, q=q: from_gold_session(c, q)),
                    "depth": depth,
                    **metrics,
                }
            )
        if progress:
            progress(done, len(questions))
    kinds = sorted({k for k, _ in rows}, key=lambda k: (KINDS.index(k) if k in KINDS else 99, k))
    return {
        "n": len(rows),
        "skipped": len(questions) - len(rows),
        "ks": ks,
        "overall": aggregate([m for _, m in rows]),
        "by_kind": {
            kind: {"n": sum(1 for k, _ in rows if k == kind), **aggregate([m for k, m in rows if k == kind])}
            for kind in kinds
        },
        "per_question": per_question,
    }


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
    if len(result["by_kind"]) > 1:
        for kind, metrics in result["by_kind"].items():
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
