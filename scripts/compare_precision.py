"""Retrieval at full precision against int8 passages (``embedding.precision``), on every dev set: the table in
docs/EVALUATION.md ("Embedding precision"). Each precision indexes into its own temporary data folder (their
passages' hashes differ), retrieval only, numbers only.

    .venv/bin/python scripts/compare_precision.py          # ~6 min on 2 cores

Prints a Markdown table: hit@1, hit@5 and MRR@10 per set at each precision, and how many questions' first
answering passage moved rank (and by how much at most).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
SETS = {
    "vault-toa": ["--notes", f"{SHARED}/vault-toa", "--questions", f"{SHARED}/vault-toa-questions.jsonl"],
    "vault-strahd": ["--notes", f"{SHARED}/vault-strahd", "--questions", f"{SHARED}/vault-strahd-questions.jsonl"],
    "crd3": ["--notes", f"{SHARED}/crd3-notes", "--questions", f"{SHARED}/crd3-questions.jsonl"],
    "fairytaleqa-val": [
        "--notes",
        f"{SHARED}/fairytaleqa/val",
        "--story-dirs",
        "--questions",
        f"{SHARED}/fairytaleqa-val.jsonl",
    ],
}
METRICS = ("hit@1", "hit@5", "mrr@10")


def run(precision: str, name: str, args: list[str], folder: Path) -> dict:
    out = folder / f"{precision}-{name}.json"
    command = [sys.executable, "-m", "rag", "eval", *args, "--numbers-only", "--json", str(out)]
    command += ["--data", str(folder / precision), "--set", f"embedding.precision={precision}"]
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text())


def main() -> int:
    if not SHARED.is_dir():
        print(f"{SHARED} is not beside this checkout", file=sys.stderr)
        return 1
    rows = [
        "| set | n | hit@1 full → int8 | hit@5 full → int8 | mrr@10 full → int8 | first passage moved (most) |",
        "|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory(prefix="chronicler-precision-") as tmp:
        for name, args in SETS.items():
            full, int8 = (run(p, name, args, Path(tmp)) for p in ("full", "int8"))
            cells = [f"{full['overall'][m]:.3f} → {int8['overall'][m]:.3f}" for m in METRICS]
            moves = [
                abs((a["first_support"] or 21) - (b["first_support"] or 21))
                for a, b in zip(full["per_question"], int8["per_question"], strict=True)
                if a["first_support"] != b["first_support"]
            ]
            moved = f"{len(moves)} ({max(moves)} ranks)" if moves else "0"
            rows.append(f"| {name} | {full['scored']} | {' | '.join(cells)} | {moved} |")
            print(rows[-1], file=sys.stderr)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
