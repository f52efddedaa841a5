"""Hits, chunks and index reports as pandas frames and plotly figures, for the Streamlit pages.

Kept out of the pages so the numbers behind every table and chart can be unit-tested without a
browser, and so the pages stay layout only. A stage that did not run (or did not see a chunk) is
``<NA>``, never 0: a zero would read as "scored badly" when the truth is "was not asked".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from rag.models import Chunk, Hit, format_session

if TYPE_CHECKING:  # rag.ingest.indexing pulls in the notes parser; the frames only need the report's shape
    from rag.ingest.indexing import IndexReport

STAGES = ("dense", "keyword", "context", "first_mention", "fused", "rerank")
STAGE_LABELS = {
    "dense": "Meaning (dense)",
    "keyword": "Exact words (keyword)",
    "context": "Exact words nearby (keyword, with neighbouring passages)",
    "first_mention": "First mention (earliest passages naming who you asked about)",
    "fused": "Combined (fused)",
    "rerank": "Reranked",
}
MODE_STAGES = {"dense": ("dense",), "keyword": ("keyword",), "hybrid": ("dense", "keyword", "fused")}
SHOWN, BELOW, BEYOND = "shown", "below threshold", "not in top-k"
COLORS = {SHOWN: "#7b4f2c", "other": "#c9b79c", "threshold": "#b03a2e"}
NO_SESSION = "no session"


def session_label(session) -> str:
    return format_session(session) or NO_SESSION


def stages_run(mode: str, hits: Sequence[Hit] = ()) -> tuple[str, ...]:
    """The stages a retrieval ran: from its mode, plus any extra stage the hits carry (a reranker)."""
    ran = list(MODE_STAGES.get(mode, ()))
    for stage in STAGES:
        if stage not in ran and any(stage in h.scores for h in hits):
            ran.append(stage)
    return tuple(s for s in STAGES if s in ran)


def hit_status(hit: Hit, shown_ids: set[str]) -> str:
    if hit.chunk.id in shown_ids:
        return SHOWN
    return BEYOND if hit.kept else BELOW


def hits_frame(candidates: Sequence[Hit], shown: Sequence[Hit] | None = None) -> pd.DataFrame:
    """One row per candidate: rank, where it comes from, every stage's score, and why it is (not) shown."""
    shown_ids = {h.chunk.id for h in (candidates if shown is None else shown)}
    rows = []
    for h in candidates:
        c = h.chunk
        row = {
            "rank": h.rank,
            "session": session_label(c.session),
            "name": c.name,
            "heading": c.heading,
            "source": c.source,
        }
        row.update({stage: h.scores.get(stage) for stage in STAGES})
        row.update({"score": h.score, "status": hit_status(h, shown_ids), "found by": h.variant, "text": c.text})
        rows.append(row)
    columns = ["rank", "session", "name", "heading", "source", *STAGES, "score", "status", "found by", "text"]
    frame = pd.DataFrame(rows, columns=columns)
    for stage in (*STAGES, "score"):
        frame[stage] = pd.array(frame[stage].tolist(), dtype="Float64")
    frame["rank"] = frame["rank"].astype("Int64")
    return frame


def _label(hit: Hit) -> str:
    return f"#{hit.rank} {hit.chunk.name}"


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


def _session_sort_key(label: str) -> tuple[int, float]:
    try:
        return (0, float(label))
    except ValueError:
        return (1, 0.0)


def hits_per_session_figure(candidates: Sequence[Hit], shown: Sequence[Hit]) -> go.Figure:
    """Which sessions the answer would draw on, against where the other candidates came from."""
    shown_ids = {h.chunk.id for h in shown}
    kept = Counter(session_label(h.chunk.session) for h in shown)
    other = Counter(session_label(h.chunk.session) for h in candidates if h.chunk.id not in shown_ids)
    sessions = sorted(set(kept) | set(other), key=_session_sort_key)
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


FILE_TYPE_LABELS = {"markdown": "notes", "pdf": "PDF", "email": "e-mail", "html": "web page", "docx": "Word"}


def report_frame(report: IndexReport) -> pd.DataFrame:
    """One row per file: what it was read as (PDF pages, passages) or why it was skipped."""
    rows = [
        {
            "file": f.source,
            "read as": FILE_TYPE_LABELS.get(f.file_type, f.file_type),
            "status": f.status,
            "pages": f.pages,
            "chunks": f.chunks,
            "added": f.added,
            "updated": f.updated,
            "deleted": f.deleted,
            "note": f.reason,
        }
        for f in report.per_file
    ]
    columns = ["file", "read as", "status", "pages", "chunks", "added", "updated", "deleted", "note"]
    frame = pd.DataFrame(rows, columns=columns)
    frame["pages"] = frame["pages"].astype("Int64")  # <NA> for files without pages, never 0
    return frame


def chunk_session(chunk: Chunk) -> str:
    """The session and where its number came from ("12 (from subject)"); without one, where the passage is
    from instead of a bare "no session": the mail's sender and date, or the file."""
    if chunk.session is not None:
        origin = f" (from {chunk.session_from})" if chunk.session_from else ""
        return format_session(chunk.session) + origin
    if chunk.sender:
        return f"{NO_SESSION}: mail from {chunk.sender}" + (f", {chunk.date}" if chunk.date else "")
    return f"{NO_SESSION}: {chunk.source}"


def chunks_frame(chunks: Sequence[Chunk]) -> pd.DataFrame:
    rows = [
        {
            "#": c.position + 1,
            "name": c.name,
            "session": chunk_session(c),
            "page": c.page,
            "heading": c.heading,
            "lines": f"{c.line_start}–{c.line_end}",
            "entities": ", ".join(c.entities),
            "text": c.text,
        }
        for c in chunks
    ]
    frame = pd.DataFrame(rows, columns=["#", "name", "session", "page", "heading", "lines", "entities", "text"])
    frame["page"] = frame["page"].astype("Int64")
    return frame


def files_frame(chunks: Sequence[Chunk]) -> pd.DataFrame:
    """One row per indexed file: the overview a group checks after adding notes."""
    per: dict[str, dict] = {}
    for c in chunks:
        row = per.setdefault(
            c.source,
            {
                "file": c.source,
                "session": session_label(c.session),
                "kind": c.kind,
                "chunks": 0,
                "entities": set(),
            },
        )
        row["chunks"] += 1
        row["entities"].update(c.entities)
    rows = [{**r, "entities": len(r["entities"])} for r in per.values()]
    rows.sort(key=lambda r: (_session_sort_key(r["session"]), r["file"]))
    return pd.DataFrame(rows, columns=["file", "session", "kind", "chunks", "entities"])


def sessions_of(chunks: Sequence[Chunk]) -> list:
    return sorted({c.session for c in chunks if c.session is not None})


def top_entities(chunks: Sequence[Chunk], n: int = 15) -> pd.DataFrame:
    counts = Counter(e for c in chunks for e in set(c.entities))
    return pd.DataFrame(counts.most_common(n), columns=["entity", "passages"])


def chunks_per_session_figure(chunks: Sequence[Chunk]) -> go.Figure:
    counts = Counter(session_label(c.session) for c in chunks)
    sessions = sorted(counts, key=_session_sort_key)
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
