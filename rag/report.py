"""``python -m rag report``: docs/EVALUATION.md tables from the JSON that ``eval --json`` wrote.

Keeping the JSON files in the repo means every number in the document can be traced to the command and
configuration that produced it (both are inside each file).
"""

from __future__ import annotations

import json
from pathlib import Path

from rag.docs import DOCS, write_section
from rag.errors import ChroniclerError

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
        lines.append(f"| {r.get('label', '?')} | {_set_name(r)} | {r['n']} | {cells} | {lat.get('p50', '–')} "
                     f"| {lat.get('p95', '–')} |")
    kinds = sorted({k for r in results for k in r["by_kind"] if k != "unanswerable"})
    lines += ["", "Per kind, hit@5 / session_hit@5 (`–`: no question of that kind counts for it):", "",
              "| configuration | set | " + " | ".join(kinds) + " |", "|---|---|" + "---|" * len(kinds)]
    for r in results:
        cells = []
        for k in kinds:
            m = r["by_kind"].get(k, {})
            cells.append(f"{_fmt(m.get('hit@5'))} / {_fmt(m.get('session_hit@5'))} (n={m.get('n', 0)})" if m else "")
        lines.append(f"| {r.get('label', '?')} | {_set_name(r)} | " + " | ".join(cells) + " |")
    lines += ["", "Commands:", ""]
    lines += [f"- `{r.get('command', '?')}`" for r in results]
    return "\n".join(lines)


def render_eval_doc(files: list[Path], section: str) -> str:
    results = [_load(f) for f in files]
    md = render_tables(results)
    write_section(DOC, f"eval:{section}", md, "Evaluation")
    return md
