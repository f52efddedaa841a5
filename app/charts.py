"""Hits and passages as plotly figures, for the pages' charts: why each passage was chosen.

Kept out of the pages so the numbers behind every chart can be unit-tested without a browser. The labels
and stage names come from ``app.tables``, so a chart and the table beside it always say the same thing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app.tables import (
    BELOW,
    BEYOND,
    MATCH_LABELS,
    SHOWN,
    STAGE_LABELS,
    contributions,
    hit_status,
    session_label,
    session_sort_key,
    stages_run,
)
from rag.config import RetrievalConfig
from rag.models import Answer, Chunk, Hit

COLORS = {SHOWN: "#7b4f2c", "other": "#c9b79c", "threshold": "#b03a2e"}
MATCH_COLORS = {
    "keyword": "#7b4f2c",
    "dense": "#4f7b8c",
    "context": "#c9a25c",
    "first_mention": "#8c4f7b",
    "links": "#6b8c4f",
    "expansion": "#9c6b4f",
}
WHY_CAPTION = (
    "Each bar is one passage, best first. Its colours show what made it match your question; the longest bar "
    "matched best (100). A note after a bar says when the closer second look moved it."
)


def _label(hit: Hit) -> str:
    return f"#{hit.rank} {hit.chunk.name}"


def why_figure(
    hits: Sequence[Hit], retrieval: RetrievalConfig, mode: str, cited: frozenset[str] = frozenset()
) -> go.Figure:
    """One horizontal bar per passage, split by what matched (``MATCH_LABELS``), scaled so the best-matching
    passage is 100; passages the reranker moved say from where, and an answer's ``cited`` ones say so. The
    player's "why this passage" chart."""
    parts = [contributions(h, retrieval, mode) for h in hits]
    top = max((sum(p.values()) for p in parts), default=0.0) or 1.0
    labels = [_label(h) + (" (cited)" if h.chunk.id in cited else "") for h in hits]
    fig = go.Figure()
    for stage, name in MATCH_LABELS.items():
        values = [100 * p.get(stage, 0.0) / top for p in parts]
        if any(values):
            fig.add_trace(
                go.Bar(
                    y=labels,
                    x=values,
                    name=name,
                    orientation="h",
                    marker_color=MATCH_COLORS[stage],
                    hovertemplate="%{y}<br>" + name + ": %{x:.0f}<extra></extra>",
                )
            )
    for hit, label, part in zip(hits, labels, parts, strict=True):
        before = hit.ranks.get("first_stage")
        if "rerank" in hit.scores and before and before != hit.rank:
            where = "up" if before > hit.rank else "down"
            fig.add_annotation(
                y=label,
                x=100 * sum(part.values()) / top,
                text=f"moved {where} from #{before}",
                showarrow=False,
                xanchor="left",
                xshift=6,
                font=dict(size=11, color="#555"),
            )
    fig.update_layout(
        barmode="stack",
        height=140 + 34 * len(hits),
        margin=dict(l=10, r=10, t=70, b=10),
        title="Why each passage was chosen",
        xaxis=dict(title="how well it matched (best = 100)", range=[0, 130]),
        yaxis=dict(autorange="reversed", title=None, automargin=True),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0, title=None),
    )
    return fig


def stage_scores_figure(hits: Sequence[Hit], mode: str) -> go.Figure:
    """One row of bars per stage that ran: each stage has its own scale (cosine, BM25, RRF)."""
    stages = stages_run(mode, hits) or ("dense",)
    fig = make_subplots(
        rows=len(stages),
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.08,
        subplot_titles=[STAGE_LABELS[s] for s in stages],
    )
    labels = [_label(h) for h in hits]
    for row, stage in enumerate(stages, start=1):
        fig.add_trace(
            go.Bar(
                x=labels,
                y=[h.scores.get(stage) for h in hits],
                name=STAGE_LABELS[stage],
                marker_color=COLORS[SHOWN] if row == len(stages) else COLORS["other"],
                hovertemplate="%{x}<br>score %{y:.4f}<extra></extra>",
            ),
            row=row,
            col=1,
        )
    fig.update_layout(
        showlegend=False,
        height=170 + 150 * len(stages),
        margin=dict(l=10, r=10, t=80, b=10),
        title="Score per search stage for the shown passages",
    )
    fig.update_xaxes(tickangle=-30, automargin=True)
    return fig


def score_distribution_figure(
    candidates: Sequence[Hit], threshold: float | None, shown: Sequence[Hit] | None = None
) -> go.Figure:
    """Every candidate's final score, split by what happened to it, with the threshold drawn in."""
    shown_ids = {h.chunk.id for h in (candidates if shown is None else shown)}
    fig = go.Figure()
    for status, color in ((SHOWN, COLORS[SHOWN]), (BEYOND, COLORS["other"]), (BELOW, "#e3d8c6")):
        scores = [h.score for h in candidates if hit_status(h, shown_ids) == status]
        if scores:
            fig.add_trace(
                go.Histogram(x=scores, name=status, marker_color=color, xbins=dict(size=_bin_size(candidates)))
            )
    if threshold is not None:
        fig.add_vline(
            x=threshold,
            line_dash="dash",
            line_color=COLORS["threshold"],
            line_width=2,
            annotation_text=f"threshold {threshold:g}",
            annotation_position="top left",
        )
    return _stacked_counts(fig, "Scores of all candidates", "final score")


def rank_movement_figure(candidates: Sequence[Hit], shown: Sequence[Hit] | None = None) -> go.Figure | None:
    """One line per reranked passage from its first-stage rank to its reranked rank (None: no rerank ran).

    Rank 1 is drawn at the top, so a line going up is a passage the reranker promoted."""
    moved = [h for h in candidates if "rerank" in h.ranks and "first_stage" in h.ranks]
    if not moved:
        return None
    shown_ids = {h.chunk.id for h in (candidates if shown is None else shown)}
    fig = go.Figure()
    for h in sorted(moved, key=lambda h: h.ranks["rerank"]):
        is_shown = h.chunk.id in shown_ids
        fig.add_trace(
            go.Scatter(
                x=["first stage", "reranked"],
                y=[h.ranks["first_stage"], h.ranks["rerank"]],
                mode="lines+markers",
                name=_label(h),
                line=dict(color=COLORS[SHOWN] if is_shown else COLORS["other"], width=3 if is_shown else 1.5),
                hovertemplate=f"{h.chunk.name}: %{{y}}<extra></extra>",
                showlegend=False,
            )
        )
    fig.update_yaxes(autorange="reversed", title="rank", dtick=1 if len(moved) <= 20 else None)
    fig.update_layout(
        height=340, margin=dict(l=10, r=10, t=50, b=10), title="How reranking moved the passages (dark: shown)"
    )
    return fig


def _stacked_counts(fig: go.Figure, title: str, xaxis_title: str, **layout) -> go.Figure:
    """The shared look of the two "how many passages" charts: stacked shown / other, legend below."""
    fig.update_layout(
        barmode="stack",
        height=340,
        margin=dict(l=10, r=10, t=50, b=10),
        title=title,
        xaxis_title=xaxis_title,
        yaxis_title="passages",
        legend=dict(orientation="h", y=-0.3),
        **layout,
    )
    return fig


def _bin_size(hits: Sequence[Hit]) -> float:
    scores = [h.score for h in hits]
    spread = (max(scores) - min(scores)) if scores else 0.0
    return spread / 25 if spread > 0 else 0.01


def hits_per_session_figure(candidates: Sequence[Hit], shown: Sequence[Hit]) -> go.Figure:
    """Which sessions the answer would draw on, against where the other candidates came from."""
    shown_ids = {h.chunk.id for h in shown}
    kept = Counter(session_label(h.chunk.session) for h in shown)
    other = Counter(session_label(h.chunk.session) for h in candidates if h.chunk.id not in shown_ids)
    sessions = sorted(set(kept) | set(other), key=session_sort_key)
    fig = go.Figure(
        [
            go.Bar(x=sessions, y=[kept.get(s, 0) for s in sessions], name="shown", marker_color=COLORS[SHOWN]),
            go.Bar(
                x=sessions,
                y=[other.get(s, 0) for s in sessions],
                name="other candidates",
                marker_color=COLORS["other"],
            ),
        ]
    )
    return _stacked_counts(fig, "Passages per session", "session", xaxis_type="category")


def chunks_per_session_figure(chunks: Sequence[Chunk]) -> go.Figure:
    counts = Counter(session_label(c.session) for c in chunks)
    sessions = sorted(counts, key=session_sort_key)
    fig = go.Figure(go.Bar(x=sessions, y=[counts[s] for s in sessions], marker_color=COLORS[SHOWN]))
    fig.update_layout(
        height=280,
        margin=dict(l=10, r=10, t=40, b=10),
        title="Passages per session",
        xaxis_title="session",
        xaxis_type="category",
        yaxis_title="passages",
    )
    return fig


def cited_scores_figure(result: Answer) -> go.Figure:
    """The passages the answer was given, best first, by retrieval score; cited ones in the accent colour."""
    cited = {c.chunk_id for c in result.citations if c.chunk_id}
    hits = list(reversed(result.hits))
    fig = go.Figure(
        go.Bar(
            x=[h.score for h in hits],
            y=[f"#{h.rank} {h.chunk.name}" for h in hits],
            orientation="h",
            marker_color=[COLORS[SHOWN] if h.chunk.id in cited else COLORS["other"] for h in hits],
            hovertext=[h.chunk.text[:160] for h in hits],
        )
    )
    fig.update_layout(
        height=60 + 28 * len(hits),
        margin=dict(l=10, r=10, t=30, b=10),
        title="Passages given to the answerer (dark = cited)",
        xaxis_title="retrieval score",
    )
    return fig
