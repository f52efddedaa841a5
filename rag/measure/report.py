"""``python -m rag report``: docs/EVALUATION.md tables from the JSON that ``eval --json`` wrote.

Keeping the JSON files in the repo means every number in the document can be traced to the command, commit and
configuration that produced it (all three are inside each file). Each set is reported by part: *tune* (what a
choice may look at), *test* (what reports it) and *held out* (a vault no choice looks at), from the per-question
rows, with ``docs/eval/splits.json`` saying which question is in which part.
"""

from __future__ import annotations

import json
from pathlib import Path

from rag.errors import ChroniclerError
from rag.measure import answer_eval, evaluation
from rag.measure.doc_sections import DOCS, write_section
from rag.measure.stats import p50_p95

DOC = DOCS / "EVALUATION.md"
SPLITS = DOCS / "eval" / "splits.json"
MAIN = ["hit@1", "hit@5", "mrr@10", "session_hit@5", "all_sessions@10"]
ANSWER_COLUMNS = [
    "refusal_accuracy",
    "false_refusal_rate",
    "citation_precision",
    "answer_has_evidence",
    "short_answer_correct",
    "short_answer_precision",
    "answer_f1",
    "cited_evidence",
]
LEVELS = ("high", "medium", "low")


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise ChroniclerError(f"Cannot read eval result {path}: {err}") from None


def set_name(result: dict) -> str:
    return Path(result.get("questions", "?")).name.removesuffix(".jsonl")


def _fmt(v) -> str:
    return "–" if v is None else f"{v:.3f}"


def parts(result: dict, splits: dict) -> list[tuple[str, set[str] | None]]:
    """(part, its question ids) for one result: tune and test when the set is split, else all of it as held out;
    None: every question."""
    split = splits.get(set_name(result))
    if not split:
        return [("held out", None)]
    return [("tune", set(split["tune"])), ("test", set(split["test"]))]


def _rows(rows: list[dict], ids: set[str] | None) -> list[dict]:
    return rows if ids is None else [r for r in rows if r["id"] in ids]


def render_retrieval(results: list[dict], splits: dict) -> str:
    lines = [
        "| set | part | n | " + " | ".join(MAIN) + " | p50 ms |",
        "|---|---|---|" + "---|" * len(MAIN) + "---|",
    ]
    for r in results:
        if not r.get("scored"):  # unanswerable questions test the answer, not the search
            continue
        for part, ids in parts(r, splits):
            rows = _rows(r["per_question"], ids)
            o = evaluation.summarise(rows)["overall"]
            p50 = p50_p95([q["ms"] for q in rows])[0] if rows else "–"
            cells = " | ".join(_fmt(o.get(k)) for k in MAIN)
            lines.append(f"| {set_name(r)} | {part} | {len(rows)} | {cells} | {p50} |")
    return "\n".join(lines + _provenance(results))


def render_answers(results: list[dict], splits: dict) -> str:
    """Answer rows by part, then how the confidence label tracks correctness (a reliability table)."""
    for r in results:
        if not r.get("answers"):
            raise ChroniclerError(f"{set_name(r)}: no answers in this result; run eval with --answers.")
    lines = [
        "| set | part | n | " + " | ".join(ANSWER_COLUMNS) + " | p50 s |",
        "|---|---|---|" + "---|" * len(ANSWER_COLUMNS) + "---|",
    ]
    for r in results:
        for part, ids in parts(r, splits):
            rows = _rows(r["answers"]["per_question"], ids)
            o = answer_eval.summarise(rows)
            cells = " | ".join(_fmt(o.get(k)) for k in ANSWER_COLUMNS)
            lines.append(f"| {set_name(r)} | {part} | {len(rows)} | {cells} | {_seconds(rows)} |")
    lines += [
        "",
        "Confidence against what the answer holds (answered questions with an evidence span, every part): per"
        " label, the share of answers that hold an evidence span, and the citation precision. The labels state how likely an answer"
        ' holds what answers it: "Found it" (high) at least .7, "Probably" (medium) .5 to .7, "Not sure" (low)'
        " below .5 (`answer.confidence_high`, `confidence_medium`):",
        "",
        "| set | high | medium | low |",
        "|---|---|---|---|",
    ]
    for r in results:
        answerable = _answered_with_evidence(r)
        if not answerable:
            continue
        cells = []
        for level in LEVELS:
            rows = [q for q in answerable if q["confidence"] == level]
            o = answer_eval.summarise(rows)
            held = f"{_fmt(o.get('answer_has_evidence'))} / {_fmt(o.get('citation_precision'))} (n={len(rows)})"
            cells.append(held if rows else "–")
        lines.append(f"| {set_name(r)} | " + " | ".join(cells) + " |")
    return "\n".join(lines + _reliability(results) + _provenance(results))


def _answered_with_evidence(result: dict) -> list[dict]:
    """The answered questions that have an evidence span: the only ones whose answer can hold one (FairytaleQA
    leaves the span out of half its questions, whose answers word the story their own way). An answer row has
    ``citations`` counted exactly then (``answer_eval.score_answer``)."""
    return [q for q in result["answers"]["per_question"] if "citations" in q]


def _reliability(results: list[dict]) -> list[str]:
    """Stated against observed, per label: the mean likelihood the confidence model stated for the answers under
    a label, and the share of them that held an evidence span. A label a player can trust is one where the two
    agree (within .10, the next issue's target). Only results that recorded the stated likelihood."""
    stated = [r for r in results if any(q.get("holds_evidence") is not None for q in _answered_with_evidence(r))]
    if not stated:
        return []
    lines = [
        "",
        "Reliability of the labels (answered questions with an evidence span, every part): per label, the"
        " likelihood the confidence model stated (mean) against the share that held an evidence span:",
        "",
        "| set | high: stated / held | medium: stated / held | low: stated / held |",
        "|---|---|---|---|",
    ]
    for r in stated:
        answered = [q for q in _answered_with_evidence(r) if q.get("holds_evidence") is not None]
        cells = []
        for level in LEVELS:
            rows = [q for q in answered if q["confidence"] == level]
            if not rows:
                cells.append("–")
                continue
            said = sum(q["holds_evidence"] for q in rows) / len(rows)
            held = sum(q["has_evidence"] for q in rows) / len(rows)
            cells.append(f"{said:.2f} / {held:.2f} (n={len(rows)})")
        lines.append(f"| {set_name(r)} | " + " | ".join(cells) + " |")
    return lines


def _seconds(rows: list[dict]) -> str:
    times = [q["seconds"] for q in rows if "seconds" in q]
    return f"{p50_p95(times, 2)[0]:.2f}" if times else "–"


def _provenance(results: list[dict]) -> list[str]:
    lines = ["", "Each set's command, and the commit and settings (against `configs/base.yaml`) it ran with:", ""]
    for r in results:
        diff = r.get("config_difference") or {}
        changed = ", ".join(f"`{k}={v}`" for k, v in diff.items()) or "the default"
        lines.append(f"- {set_name(r)}: `{r.get('command', '?')}` (commit {r.get('commit', '?')}; {changed})")
    return lines


def render_eval_doc(files: list[Path], section: str) -> str:
    results = [_load(f) for f in files]
    splits = json.loads(SPLITS.read_text(encoding="utf-8")) if SPLITS.exists() else {}
    md = render_answers(results, splits) if section == "answers" else render_retrieval(results, splits)
    write_section(DOC, f"eval:{section}", md, "Evaluation")
    return md
