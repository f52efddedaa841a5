"""How often a lead (the short answer on a line of its own) is right, per question form, on FairytaleQA *train*:
the measurement behind "a lead only when a learned score says it is right often enough" (docs/experiments/README.md).

Every train question of a kind that can get a lead (who, where, which session, a name, an amount…) is answered by
the default pipeline; a lead is right when it holds the gold answer's key term (``rag.measure.answer_eval``). Prints
the precision per form, and how well each signal the answerer records orders right leads above wrong ones (ROC AUC).
~8 minutes on 2 cores; the rows are kept in ``--out`` for a second look.

    python scripts/lead_forms.py --notes ../shared/data/fairytaleqa/train \\
        --questions ../shared/data/fairytaleqa-train.jsonl --data /tmp/leads --out /tmp/leads/rows.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LEAD_KINDS = {"person", "place", "thing", "name", "amount", "money", "age", "year", "colour", "identity", "session"}
SIGNALS = ("best_score", "best_meaning", "best_overlap", "rest_in_best", "rest_in_top", "best_rank", "typed_in_picks")


def form(question) -> str:
    """The question's kind; a "who" question also by what ties a name to it (a role, an owner, a verb's doer or
    its object, or nothing)."""
    if question.kind != "person":
        return question.kind
    if question.role or question.owner_of:
        return "person: role or owner"
    if question.verbs:
        return "person: doer" if question.asks_doer else "person: object"
    return "person: no verb"


def mine(args) -> list[dict]:
    from rag.config import load_config
    from rag.measure.answer_eval import lead_is_right, lead_line
    from rag.measure.evaluation import corpora
    from rag.measure.questions import load_training_questions
    from rag.pipeline import Pipeline
    from rag.question import read_question

    questions = [q for q in load_training_questions(args.questions) if q.evidence and q.sessions]
    questions = [q for q in questions if read_question(q.question).kind in LEAD_KINDS]
    config = load_config(overrides={"data_dir": str(Path(args.data).resolve()), "tracking.enabled": False})
    pipeline = Pipeline(config)
    rows = []
    try:
        for campaign, (folder, asked) in sorted(corpora(Path(args.notes), questions, story_dirs=True).items()):
            pipeline.index(folder, campaign)
            for q in asked:
                answer = pipeline.answer(q.question, campaign)
                lead = lead_line(answer.text)
                rows.append(
                    {
                        "id": q.id,
                        "form": form(read_question(q.question)),
                        "lead": lead,
                        "right": bool(lead and lead_is_right(q, lead)),
                        "holds_evidence": answer.trace.get("holds_evidence") or 0.0,
                        "support": answer.trace.get("support") or 0.0,
                        "signals": answer.trace.get("signals") or {},
                    }
                )
    finally:
        pipeline.close()
    Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return rows


def report(rows: list[dict]) -> None:
    from sklearn.metrics import roc_auc_score

    by_form: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in rows:
        counts = by_form[r["form"]]
        counts[0] += 1
        counts[1] += bool(r["lead"])
        counts[2] += r["right"]
    print("| form | questions | leads shown | right | precision |\n|---|---|---|---|---|")
    for name, (n, shown, right) in sorted(by_form.items(), key=lambda item: -item[1][1]):
        print(
            f"| {name} | {n} | {shown} | {right} | {right / shown:.2f} |" if shown else f"| {name} | {n} | 0 | 0 | – |"
        )
    shown = [r for r in rows if r["lead"]]
    right = [r["right"] for r in shown]
    print(f"\n{len(shown)} leads, {sum(right)} right ({sum(right) / max(len(shown), 1):.2f}); ROC AUC of each signal:")
    for name in ("holds_evidence", "support", *SIGNALS):
        values = [r.get(name, r["signals"].get(name, 0.0)) for r in shown]
        print(f"  {name}: {roc_auc_score(right, values):.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", required=True)
    parser.add_argument("--questions", required=True)
    parser.add_argument("--data", default="/tmp/leads", help="where the stories are indexed")
    parser.add_argument("--out", default="/tmp/leads/rows.jsonl")
    parser.add_argument("--report-only", action="store_true", help="read --out instead of answering again")
    args = parser.parse_args()
    if args.report_only:
        rows = [json.loads(line) for line in Path(args.out).read_text(encoding="utf-8").splitlines()]
    else:
        rows = mine(args)
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
