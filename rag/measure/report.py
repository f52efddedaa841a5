"""``python -m rag report``: docs/EVALUATION.md tables from the JSON that ``eval --json`` wrote.

Keeping the JSON files in the repo means every number in the document can be traced to the command and
configuration that produced it (both are inside each file).
"""

from __future__ import annotations

import json
from pathlib import Path

from rag.errors import ChroniclerError
from rag.measure.doc_sections import DOCS, write_section

DOC = DOCS / "EVALUATION.md"
MAIN = ["hit@1", "hit@3", "hit@5", "hit@10", "session_hit@5", "mrr@10", "all_sessions@10"]


def _load(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise ChroniclerError(f"Cannot read eval result {path}: {err}") from None


def _set_name(result: dict) -> str:
    return Path(result.get("questions", "?")).name.removesuffix(".jsonl")


def _fmt(v) -> str:
    return "–" if v is None else f"{v:.3f}"


def render_tables(results: list[dict]) -> str:
    lines = [
        "| configuration | set | n | " + " | ".join(MAIN) + " | p50 ms | p95 ms |",
        "|---|---|---|" + "---|" * len(MAIN) + "---|---|",
    ]
    for r in results:
        o, lat = r["overall"], r.get("latency_ms", {})
        cells = " | ".join(_fmt(o.get(k)) for k in MAIN)
        lines.append(
            f"| {r.get('label', '?')} | {_set_name(r)} | {r['n']} | {cells} | {lat.get('p50', '–')} "
            f"| {lat.get('p95', '–')} |"
        )
    kinds = sorted({k for r in results for k in r["by_kind"] if k != "unanswerable"})
    lines += [
        "",
        "Per kind, hit@5 / session_hit@5 (`–`: no question of that kind counts for it):",
        "",
        "| configuration | set | " + " | ".join(kinds) + " |",
        "|---|---|" + "---|" * len(kinds),
    ]
    for r in results:
        cells = []
        for k in kinds:
            m = r["by_kind"].get(k, {})
            cells.append(f"{_fmt(m.get('hit@5'))} / {_fmt(m.get('session_hit@5'))} (n={m.get('n', 0)})" if m else "")
        lines.append(f"| {r.get('label', '?')} | {_set_name(r)} | " + " | ".join(cells) + " |")
    lines += ["", "Commands:", ""]
    lines += [f"- `{r.get('command', '?')}`" for r in results]
    return "\n".join(lines)


ANSWER_COLUMNS = [
    "refusal_accuracy",
    "false_refusal_rate",
    "citation_precision",
    "answer_has_evidence",
    "short_answer_correct",
]


def render_answer_tables(results: list[dict]) -> str:
    """Answers rows (``eval --answers``), then how the confidence label tracks correctness."""
    lines = [
        "| answerer | set | n | " + " | ".join(ANSWER_COLUMNS) + " | p50 s per answer |",
        "|---|---|---|" + "---|" * len(ANSWER_COLUMNS) + "---|",
    ]
    for r in results:
        a = r.get("answers")
        if not a:
            raise ChroniclerError(f"{r.get('label', '?')}: no answers in this result; run eval with --answers.")
        cells = " | ".join(_fmt(a["overall"].get(k)) for k in ANSWER_COLUMNS)
        lines.append(
            f"| {r.get('label', '?')} | {_set_name(r)} | {r['n']} | {cells} | {a.get('latency_ms_p50', 0) / 1000:.2f} |"
        )
    lines += [
        "",
        "Confidence label against correctness (answerable questions): share of answers that contain "
        "an evidence span, and citation precision, per label:",
        "",
        "| answerer | set | high | medium | low |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        by = r["answers"].get("by_confidence", {})
        cells = [
            f"{_fmt(by[lv].get('answer_has_evidence'))} / {_fmt(by[lv].get('citation_precision'))} (n={by[lv]['n']})"
            if by.get(lv, {}).get("n")
            else "–"
            for lv in ("high", "medium", "low")
        ]
        lines.append(f"| {r.get('label', '?')} | {_set_name(r)} | " + " | ".join(cells) + " |")
    kinds = sorted({k for r in results for k in r["answers"].get("by_kind", {}) if k != "unanswerable"})
    lines += [
        "",
        "Short answers per kind: share whose lead line holds the gold answer's key term (`–`: none counted):",
        "",
        "| answerer | set | " + " | ".join(kinds) + " |",
        "|---|---|" + "---|" * len(kinds),
    ]
    for r in results:
        by_kind = r["answers"].get("by_kind", {})
        cells = [_fmt(by_kind.get(k, {}).get("short_answer_correct")) for k in kinds]
        lines.append(f"| {r.get('label', '?')} | {_set_name(r)} | " + " | ".join(cells) + " |")
    lines += ["", "Commands:", ""] + [f"- `{r.get('command', '?')}`" for r in results]
    return "\n".join(lines)


def render_eval_doc(files: list[Path], section: str) -> str:
    results = [_load(f) for f in files]
    md = render_answer_tables(results) if section == "answers" else render_tables(results)
    write_section(DOC, f"eval:{section}", md, "Evaluation")
    return md
