"""Retrieval evaluation in exactly the format and matching rule of shared/data/README.md.

Anyone can run it on their own campaign: a notes folder plus a JSON Lines question file
(``id, question, sessions, evidence, kind`` and optionally ``campaign`` or ``story``).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.config import slug
from rag.errors import ChroniclerError
from rag.models import Chunk, Hit
from rag.names import norm  # the matching rule of shared/data/README.md
from rag.pipeline import Pipeline

KINDS = ("fact", "which-session", "entity", "multi-session", "unanswerable")
MRR_DEPTH = 10


@dataclass
class Question:
    id: str
    question: str
    sessions: list[float]
    evidence: list[str]
    kind: str
    campaign: int | None = None
    story: str | None = None
    answer: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def answerable(self) -> bool:
        return self.kind != "unanswerable" and bool(self.sessions)


def load_questions(path: str | Path) -> list[Question]:
    path = Path(path)
    if not path.is_file():
        raise ChroniclerError(f"Question file {path} does not exist.")
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            q = Question(
                id=str(raw["id"]),
                question=str(raw["question"]),
                sessions=[float(s) for s in raw.get("sessions") or []],
                evidence=[str(e) for e in raw.get("evidence") or []],
                kind=str(raw.get("kind") or "fact"),
                campaign=raw.get("campaign"),
                story=raw.get("story"),
                answer=str(raw.get("answer") or ""),
            )
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
            raise ChroniclerError(f"{path}:{lineno} is not a valid question ({type(err).__name__}: {err}).") from None
        out.append(q)
    if not out:
        raise ChroniclerError(f"{path} holds no questions.")
    return out


def from_gold_session(chunk: Chunk, q: Question) -> bool:
    if chunk.session is None or float(chunk.session) not in q.sessions:
        return False
    return q.campaign is None or chunk.campaign_no is None or chunk.campaign_no == q.campaign


def supports(chunk: Chunk, q: Question) -> bool:
    if not from_gold_session(chunk, q):
        return False
    text = norm(chunk.text)
    return any(norm(e) and norm(e) in text for e in q.evidence)


def score_question(q: Question, hits: list[Hit], ks: list[int]) -> dict[str, float]:
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


def corpora(notes_dir: Path, questions: list[Question], story_dirs: bool) -> dict[str, tuple[Path, list[Question]]]:
    """campaign name → (folder, its questions). FairytaleQA: one corpus per story sub-folder."""
    if not notes_dir.is_dir():
        raise ChroniclerError(f"Notes folder {notes_dir} does not exist.")
    if not story_dirs:
        return {f"eval-{slug(notes_dir.name)}": (notes_dir, questions)}
    by_story: dict[str, list[Question]] = {}
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


def indexed_corpora(pipeline: Pipeline, notes_dir, questions: list[Question], story_dirs: bool, log):
    """Each corpus indexed (incrementally: unchanged chunks are not re-embedded) before its questions."""
    for campaign, (folder, qs) in corpora(Path(notes_dir), questions, story_dirs).items():
        report = pipeline.index(folder, campaign)
        if report.embedded:
            log(f"indexed {campaign}: {report.summary()}")
        yield campaign, qs


def run_eval(
    pipeline: Pipeline,
    notes_dir: str | Path,
    questions_path: str | Path,
    ks: list[int] = (1, 3, 5, 10),
    story_dirs: bool = False,
    log: Callable[[str], None] = lambda s: None,
) -> dict[str, Any]:
    """Index each corpus (incrementally: unchanged chunks are not re-embedded) and score every question."""
    started = time.perf_counter()
    ks = sorted(set(int(k) for k in ks))
    depth = max(max(ks), MRR_DEPTH)
    questions = load_questions(questions_path)
    rows, per_question, latencies = [], [], []
    for campaign, qs in indexed_corpora(pipeline, notes_dir, questions, story_dirs, log):
        for q in qs:
            t0 = time.perf_counter()
            hits = pipeline.retrieve(q.question, campaign, k=depth).hits
            latencies.append(time.perf_counter() - t0)
            metrics = score_question(q, hits, ks)
            rows.append((q.kind, metrics))
            per_question.append({"id": q.id, "kind": q.kind, **metrics, "top": [h.chunk.name for h in hits[:3]]})
    by_kind = {}
    for kind in sorted({k for k, _ in rows}, key=lambda k: KINDS.index(k) if k in KINDS else 99):
        by_kind[kind] = {"n": sum(1 for k, _ in rows if k == kind), **aggregate([m for k, m in rows if k == kind])}
    lat_ms = sorted(x * 1000 for x in latencies)
    return {
        "questions": str(questions_path),
        "notes": str(notes_dir),
        "n": len(rows),
        "overall": aggregate([m for _, m in rows]),
        "by_kind": by_kind,
        "latency_ms": {
            "p50": round(statistics.median(lat_ms), 1) if lat_ms else 0.0,
            "p95": round(lat_ms[min(len(lat_ms) - 1, int(0.95 * len(lat_ms)))], 1) if lat_ms else 0.0,
        },
        "config": pipeline.config.snapshot(),
        "seconds": round(time.perf_counter() - started, 1),
        "per_question": per_question,
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
