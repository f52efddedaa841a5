"""Hits and passages as plotly figures, for the pages' charts: why each passage was chosen.

Kept out of the pages so the numbers behind every chart can be unit-tested without a browser. The labels
and stage names come from ``app.tables``, so a chart and the table beside it always say the same thing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from app.tables import (
    BELOW,
    BEYOND,
    MATCH_LABELS,
    SHOWN,
    STAGE_LABELS,
    contributions,
    count_of,
    hit_status,
    session_label,
    session_sort_key,
    stages_run,
)
from rag.config import RetrievalConfig
from rag.models import Answer, Chunk, Hit, format_session

COLORS = {SHOWN: "#7b4f2c", "other": "#c9b79c", "threshold": "#b03a2e"}
# What matched, one colour each: hues told apart with any colour vision (after Okabe and Ito) and, stacked side by
# side in one bar, a lightness (CIELAB L*) at least 11 apart from every other, so they differ in grey too
# (tests/test_tables_and_charts.py measures it).
MATCH_COLORS = {
    "keyword": "#4a2a0f",  # dark brown, L* 21
    "dense": "#0b5394",  # blue, 35
    "context": "#c2410c",  # vermillion, 46
    "first_mention": "#cc79a7",  # reddish purple, 61
    "links": "#7cc4ef",  # sky blue, 76
    "expansion": "#f0e442",  # yellow, 89
}
WHY_CAPTION = (
    "Each bar is one passage, in the order shown. Its colours show what made the search find it; the longest bar "
    "matched best (100). The closer second look reads the passages again and may put a shorter bar above a longer "
    'one: beside a passage\'s name it says so ("moved up from #4").'
)
CITED_CAPTION = WHY_CAPTION + " It also says which passages the answer cites."
WHY_TITLE = "Why each passage was chosen"
LABEL_CHARS = 44  # a passage's label longer than this takes two lines (a phone is ~50 characters wide)
ROW, ROW_TWO_LINES, BAR = 46, 64, 16  # pixels per passage (its label above its bar), and a bar's thickness


def _label(hit: Hit) -> str:
    return f"#{hit.rank} {hit.chunk.name}"


def _wrapped(name: str, notes: Sequence[str] = (), width: int = LABEL_CHARS) -> str:
    """A passage's label and its notes ("cited", "moved up from #3") on one line, or on two when long: the notes go
    to the second line, then the scene too (cut after "Session 4 ·"), so no name is ever split."""
    full = " · ".join([name, *notes])
    if len(full) <= width:
        return full
    if len(name) <= width and notes:
        return name + "<br>" + " · ".join(notes)
    head, _, scene = name.partition(" · ")
    return head + "<br>" + " · ".join([scene, *notes]) if scene else full


def moved_out(hits: Sequence[Hit], placed: Mapping[int, tuple[str, int]] | None = None) -> str | None:
    """The sentence naming the passages the closer second look put below the list, or None when it moved none
    out. The chart names where each shown passage came from ("moved up from #2"); without this, the passage
    the search had put first could leave the list with nothing saying so. ``placed`` (the first search's place of
    every passage searched → its name and its place after the second look: ``first_places``) names them;
    without it their first places are said."""
    before = {h.ranks["first_stage"] for h in hits if "rerank" in h.scores and "first_stage" in h.ranks}
    if not before:  # no second look ran
        return None
    gone = [place for place in range(1, len(hits) + 1) if place not in before]
    if not gone:
        return None
    placed = placed or {}
    named = [
        f"{placed[p][0]} (was #{p}, now #{placed[p][1]})"
        if p in placed
        else f"a passage the first search had placed #{p}"
        for p in gone
    ]
    return "The closer second look put below this list: " + "; ".join(named) + "."


def first_places(candidates: Sequence[Hit] | Sequence[dict]) -> dict[int, tuple[str, int]]:
    """The first search's place of each passage searched → (its name, its place after the second look): from the
    search's candidates, or from an answer's run record, which keeps them as rows (``Hit.as_dict``)."""
    rows = (c.as_dict() if isinstance(c, Hit) else c for c in candidates)
    return {r["ranks"]["first_stage"]: (r["name"], r["rank"]) for r in rows if "first_stage" in r.get("ranks", {})}


def why_figure(
    hits: Sequence[Hit], retrieval: RetrievalConfig, mode: str, cited: frozenset[str] = frozenset()
) -> go.Figure:
    """One horizontal bar per passage, split by what matched (``MATCH_LABELS``), scaled so the best-matching
    passage is 100 (the axis ends there); each passage's name is written above its bar, with whether the answer
    cites it and from where the reranker moved it, so nothing sits beside a bar to be cut at either edge on a
    phone. The legend is drawn by the page under the chart (``why_legend``): a plotly legend wraps over the title
    on a narrow screen. The player's "why this passage" chart."""
    parts = [contributions(h, retrieval, mode) for h in hits]
    top = max((sum(p.values()) for p in parts), default=0.0) or 1.0
    rows = [f"#{h.rank}" for h in hits]  # the bars' own axis: each passage once, whatever its name
    fig = go.Figure()
    for stage, name in MATCH_LABELS.items():
        values = [100 * p.get(stage, 0.0) / top for p in parts]
        if any(values):
            fig.add_trace(
                go.Bar(
                    y=rows,
                    x=values,
                    name=name,
                    orientation="h",
                    marker_color=MATCH_COLORS[stage],
                    customdata=[h.chunk.name for h in hits],
                    hovertemplate="%{customdata}<br>" + name + ": %{x:.0f}<extra></extra>",
                )
            )
    labels = []
    for hit, row in zip(hits, rows, strict=True):
        notes = ["cited"] if hit.chunk.id in cited else []
        before = hit.ranks.get("first_stage")
        if "rerank" in hit.scores and before and before != hit.rank:
            notes.append(f"moved {'up' if before > hit.rank else 'down'} from #{before}")
        labels.append(_wrapped(_label(hit), notes))
        fig.add_annotation(
            y=row,
            x=0,
            xref="paper",
            xanchor="left",
            yanchor="bottom",
            yshift=BAR / 2 + 3,  # just above its own bar
            text=labels[-1],
            showarrow=False,
            align="left",
            font=dict(size=12, color="#2b2118"),
        )
    row = ROW_TWO_LINES if any("<br>" in label for label in labels) else ROW
    fig.update_layout(
        barmode="stack",
        bargap=1 - BAR / row,
        height=110 + row * len(hits),
        margin=dict(l=4, r=12, t=10, b=10),
        title=dict(
            text=WHY_TITLE, x=0, xref="paper", xanchor="left", automargin=True, y=1, yref="container", pad=dict(b=14)
        ),
        showlegend=False,
        xaxis=dict(title="how well it matched (best = 100)", range=[0, 100], fixedrange=True, automargin=True),
        yaxis=dict(type="category", autorange="reversed", title=None, showticklabels=False, fixedrange=True),
    )
    return fig


def why_legend(fig: go.Figure) -> str:
    """The chart's legend, written by the page under it (HTML): a coloured square and the words for each thing
    that matched in this chart. Kept out of the chart so it can wrap on a phone without covering the title."""
    items = [
        f'<span style="white-space:nowrap;margin-right:1.2em"><span style="color:{t.marker.color};'
        f'font-size:1.1em">■</span> {t.name}</span>'
        for t in fig.data
    ]
    return '<div class="why-legend" style="font-size:0.9em;line-height:1.8">' + " ".join(items) + "</div>"


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
    """Every candidate's search score (what the threshold cuts, ``Hit.searched``), split by what happened to it,
    with the threshold drawn in."""
    shown_ids = {h.chunk.id for h in (candidates if shown is None else shown)}
    fig = go.Figure()
    for status, color in ((SHOWN, COLORS[SHOWN]), (BEYOND, COLORS["other"]), (BELOW, "#e3d8c6")):
        scores = [_searched(h) for h in candidates if hit_status(h, shown_ids) == status]
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
    return _stacked_counts(fig, "Scores of all candidates", "search score (what the minimum score cuts)")


def _searched(hit: Hit) -> float:
    return hit.score if hit.searched is None else hit.searched


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
    scores = [_searched(h) for h in hits]
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
    """Passages per session; the passages of no session (pages of people and places, handouts) are counted in the
    title, not drawn as a last bar: among thirty sessions its label was left out and it read as one huge session."""
    counts = Counter(session_label(c.session) for c in chunks if c.session is not None)
    others = sum(c.session is None for c in chunks)
    sessions = sorted(counts, key=session_sort_key)
    fig = go.Figure(go.Bar(x=sessions, y=[counts[s] for s in sessions], marker_color=COLORS[SHOWN]))
    # the notes besides the sessions on a line of their own: on one line the title ran past a phone's chart
    fig.update_layout(
        height=290 if others else 280,
        margin=dict(l=10, r=10, t=55 if others else 40, b=10),
        title="Passages per session"
        + (f"<br><sup>and {count_of(others, 'passage')} on other notes</sup>" if others else ""),
        xaxis_title="session",
        xaxis_type="category",
        yaxis_title="passages",
    )
    return fig


def cited_scores_figure(result: Answer) -> go.Figure:
    """The passages the answer was given, best first, by retrieval score; cited ones in the accent colour. A score
    below zero (the reranker's) is drawn from the lowest one, so that the best passage has the longest bar: drawn
    from zero, the worst passage's ran furthest and looked best."""
    cited = {c.chunk_id for c in result.citations if c.chunk_id}
    hits = list(reversed(result.hits))
    scores = [h.score for h in hits]
    low = min(scores, default=0.0)
    base = 0.0 if low >= 0 else low - 0.05 * ((max(scores) - low) or 1.0)
    fig = go.Figure(
        go.Bar(
            x=[s - base for s in scores],
            base=base,
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


def found_in(result: Answer, most: int = 3) -> str:
    """Every session or page the answer quotes, in the order it quotes them ("Session 18", "Sessions 1 and 18",
    "Session 3 and Mayor Dagult"), for the chat's "Found it in …": naming only the first, it said "Found it in
    Session 1" over an answer whose deciding sentence came from Session 18, after a list of targets it quoted first.
    More than ``most`` places: "your notes"."""
    cited = result.cited
    sessions = list(dict.fromkeys(format_session(c.session) for c in cited if c.session is not None))
    pages = list(dict.fromkeys(c.title or c.source for c in cited if c.session is None))
    if not cited or len(sessions) + len(pages) > most:
        return "your notes"
    places = [f"Session{'s' if len(sessions) > 1 else ''} {sessions[0]}", *sessions[1:]] if sessions else []
    places += pages
    return places[0] if len(places) == 1 else f"{', '.join(places[:-1])} and {places[-1]}"
