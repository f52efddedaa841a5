"""Retrieval evaluation in exactly the format and matching rule of shared/data/README.md: one scorer.

``evaluate`` asks a campaign that is already indexed every question and scores the passages it gets;
``run_eval`` (``python -m rag eval``) indexes a notes folder into its own ``eval-…`` campaign(s) first and
calls it per corpus; the Campaign page calls it on the campaign as the players indexed it. Both write the
same per-question rows, with the rank of the first passage that holds the evidence and of the first from a
gold session, so a miss can be read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from rag.access import require
from rag.config import slug
from rag.errors import ChroniclerError
from rag.measure.questions import KINDS, GoldQuestion, load_questions
from rag.measure.stats import p50_p95
from rag.models import Chunk, Filters, Hit
from rag.names import norm  # the matching rule of shared/data/README.md
from rag.pipeline import Pipeline

__all__ = ["KINDS", "GoldQuestion", "evaluate", "norm", "run_eval", "score_question", "supports"]

KS = (1, 3, 5, 10)
MRR_DEPTH = 10
SEARCH_DEPTH = 20  # passages looked at per question: metrics use at most the top 10, the rows say where beyond


def from_gold_session(chunk: Chunk, q: GoldQuestion) -> bool:
    if chunk.session is None or float(chunk.session) not in q.sessions:
        return False
    return q.campaign is None or chunk.campaign_no is None or chunk.campaign_no == q.campaign


def supports(chunk: Chunk, q: GoldQuestion) -> bool:
    if not from_gold_session(chunk, q):
        return False
    text = norm(chunk.text)
    return any(norm(e) and norm(e) in text for e in q.evidence)


def score_question(q: GoldQuestion, hits: list[Hit], ks: list[int]) -> dict[str, float]:
    """Per-question metrics; keys absent where the question does not count for that metric."""
    chunks = [h.chunk for h in hits]
    out: dict[str, float] = {}
    if q.evidence and q.answerable:
        first = next((i for i, c in enumerate(chunks[:MRR_DEPTH], start=1) if supports(c, q)), 0)
        for k in ks:
            out[f"hit@{k}"] = float(any(supports(c, q) for c in chunks[:k]))
        out[f"mrr@{MRR_DEPTH}"] = 1.0 / first if first else 0.0
    if q.answerable:
        for k in ks:
            out[f"session_hit@{k}"] = float(any(from_gold_session(c, q) for c in chunks[:k]))
    if q.kind == "multi-session" and q.answerable:
        for k in sorted(set(ks) | {MRR_DEPTH}):
            found = {float(c.session) for c in chunks[:k] if from_gold_session(c, q)}
            out[f"all_sessions@{k}"] = float(found >= set(q.sessions))
    return out


def aggregate(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = sorted({k for r in rows for k in r}, key=_metric_order)
    out = {}
    for key in keys:
        values = [r[key] for r in rows if key in r]
        out[key] = round(sum(values) / len(values), 4) if values else 0.0
    return out


def _metric_order(key: str) -> tuple:
    name, _, k = key.partition("@")
    order = ["hit", "session_hit", "mrr", "all_sessions"]
    return (order.index(name) if name in order else 9, int(k) if k.isdigit() else 0)


def corpora(
    notes_dir: Path, questions: list[GoldQuestion], story_dirs: bool
) -> dict[str, tuple[Path, list[GoldQuestion]]]:
    """campaign name → (folder, its questions). FairytaleQA: one corpus per story sub-folder."""
    if not notes_dir.is_dir():
        raise ChroniclerError(f"Notes folder {notes_dir} does not exist.")
    if not story_dirs:
        return {f"eval-{slug(notes_dir.name)}": (notes_dir, questions)}
    by_story: dict[str, list[GoldQuestion]] = {}
    for q in questions:
        if not q.story:
            raise ChroniclerError(f"Question {q.id} has no 'story', needed with --story-dirs.")
        by_story.setdefault(q.story, []).append(q)
    out = {}
    for story, qs in sorted(by_story.items()):
        folder = notes_dir / story
        if not folder.is_dir():
            raise ChroniclerError(f"Story folder {folder} for question {qs[0].id} does not exist.")
        out[f"eval-{slug(notes_dir.name)}-{slug(story)}"] = (folder, qs)
    return out


def indexed_corpora(
    pipeline: Pipeline, notes_dir, questions: list[GoldQuestion], story_dirs: bool, log: Callable[[str], None]
) -> Iterator[tuple[str, list[GoldQuestion]]]:
    """Each corpus indexed (incrementally: unchanged chunks are not re-embedded) before its questions."""
    for campaign, (folder, qs) in corpora(Path(notes_dir), questions, story_dirs).items():
        report = pipeline.index(folder, campaign)
        if report.embedded:
            log(f"indexed {campaign}: {report.summary()}")
        yield campaign, qs


def _first_rank(chunks: Sequence[Chunk], test: Callable[[Chunk], bool]) -> int | None:
    return next((i for i, c in enumerate(chunks, start=1) if test(c)), None)


def evaluate(
    pipeline: Pipeline,
    campaign: str,
    questions: Sequence[GoldQuestion],
    ks: Sequence[int] = KS,
    filters: Filters | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Ask every question of an indexed campaign and score the passages it gets.

    Returns ``n`` (questions), ``scored`` (answerable ones: unanswerable questions test the answer, not the
    search), ``overall`` and ``by_kind`` metrics, ``ks``, and one row per question with its metrics, the
    rank of the first supporting / gold-session passage, its latency and the names of its top passages.
    In a shared app's player view it is refused (``rag.access``): it is the GM's tool, and hundreds of searches."""
    require(pipeline.config.role, "measure")
    ks = sorted({int(k) for k in ks})
    depth = max(SEARCH_DEPTH, *ks, MRR_DEPTH)
    searcher = pipeline.with_settings({"retrieval.k": depth})
    rows = []
    for done, q in enumerate(questions, start=1):
        t0 = time.perf_counter()
        hits = searcher.search(q.question, campaign, filters).hits
        ms = 1000 * (time.perf_counter() - t0)
        chunks = [h.chunk for h in hits]
        rows.append(
            {
                "id": q.id,
                "question": q.question,
                "kind": q.kind,
                "sessions": q.sessions,
                "answerable": q.answerable,
                "has_evidence": bool(q.evidence),
                "first_support": _first_rank(chunks, lambda c, q=q: supports(c, q)) if q.evidence else None,
                "first_session": _first_rank(chunks, lambda c, q=q: from_gold_session(c, q)),
                "depth": depth,
                "ms": round(ms, 1),
                **score_question(q, hits, ks),
                "top": [h.chunk.name for h in hits[:5]],
            }
        )
        if progress:
            progress(done, len(questions))
    return {**summarise(rows), "ks": ks, "per_question": rows}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """``n``, ``scored``, ``overall`` and ``by_kind`` from per-question rows (their ``…@k`` keys)."""
    metrics = [(r["kind"], {k: v for k, v in r.items() if "@" in k}) for r in rows]
    kinds = sorted({k for k, _ in metrics}, key=lambda k: (KINDS.index(k) if k in KINDS else 99, k))
    return {
        "n": len(rows),
        "scored": sum(r["answerable"] for r in rows),
        "overall": aggregate([m for _, m in metrics]),
        "by_kind": {
            kind: {"n": sum(1 for k, _ in metrics if k == kind), **aggregate([m for k, m in metrics if k == kind])}
            for kind in kinds
        },
    }


def run_eval(
    pipeline: Pipeline,
    notes_dir: str | Path,
    questions_path: str | Path,
    ks: Sequence[int] = KS,
    story_dirs: bool = False,
    log: Callable[[str], None] = lambda s: None,
) -> dict[str, Any]:
    """Index each corpus (incrementally: unchanged chunks are not re-embedded) and score every question."""
    started = time.perf_counter()
    questions = load_questions(questions_path)
    rows: list[dict[str, Any]] = []
    for campaign, qs in indexed_corpora(pipeline, notes_dir, questions, story_dirs, log):
        rows += evaluate(pipeline, campaign, qs, ks)["per_question"]
    p50, p95 = p50_p95([r["ms"] for r in rows])
    return {
        "questions": str(questions_path),
        "notes": str(notes_dir),
        **summarise(rows),
        "latency_ms": {"p50": p50, "p95": p95},
        "config": pipeline.config.snapshot(),
        "seconds": round(time.perf_counter() - started, 1),
        "per_question": rows,
    }


def format_table(result: dict[str, Any]) -> str:
    """Plain-text table: one row for all questions, then one per kind."""
    keys = list(result["overall"])
    header = ["set", "n", *keys]
    rows = [["all", str(result["n"]), *(f"{result['overall'].get(k, 0):.3f}" for k in keys)]]
    for kind, m in result["by_kind"].items():
        rows.append([kind, str(m["n"]), *(f"{m[k]:.3f}" if k in m else "-" for k in keys)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in [header, *rows]]
    lat = result["latency_ms"]
    lines.append(f"query latency p50 {lat['p50']} ms, p95 {lat['p95']} ms; {result['seconds']} s in all")
    return "\n".join(lines)
