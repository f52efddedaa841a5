"""Train the answerer's decisions: how sure to be of an answer (shipped), and whether the notes can answer at all
(``--answerable``: measured, not shipped, docs/experiments/README.md).

Why learned: the confidence rules and the refusal floor were one threshold each on one score, fitted to the dev
sets; on vaults nobody had seen they refused less than half of the unanswerable questions. The signals the
offline answerer records (``rag/generators/_signals.py``: how well the best sentences match, whether the
question's words other than names are said anywhere, whether the asked detail is there, the reranker's score)
are combined by a logistic model trained on FairytaleQA *train* only:

- answerable: a question asked of its own story;
- not answerable: the same question asked of the next story (another campaign), and asked "as of" the section
  before the first one that answers it (the notes up to then cannot say it);
- with ``--struck``, also asked of its own story with every sentence holding an evidence span struck out: the notes
  still tell the people and the scene, but not the asked thing (what a player's unanswerable question looks like:
  "What did Ellias write in his apology?" of notes that tell the apology, not its words).

    python scripts/train_answerer.py mine --notes ../shared/data/fairytaleqa/train \\
        --questions ../shared/data/fairytaleqa-train.jsonl --out /tmp/answerer/train.jsonl
    python scripts/train_answerer.py train --train /tmp/answerer/train.jsonl --out rag/generators/decisions.json

``mine --vault NOTES:QUESTIONS`` (repeatable) also asks every question of a vault, as one campaign: how the
twenty-second session measured the models trained on notes (docs/experiments/README.md; not shipped).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np
from _training import log, read_jsonl  # offline models, the project importable


def mine(args) -> None:
    from rag.config import load_config
    from rag.measure.answer_eval import lead_line, score_answer
    from rag.measure.evaluation import corpora
    from rag.measure.questions import load_training_questions
    from rag.models import Filters
    from rag.pipeline import Pipeline

    config = load_config(overrides={"data_dir": str(Path(args.data).resolve()), "tracking.enabled": False})
    rng = random.Random(args.seed)
    sources = [(args.notes, args.questions, True)] if args.notes else []  # FairytaleQA: a campaign per story
    sources += [(*v.rsplit(":", 1), False) for v in args.vault]  # a vault: one campaign
    groups: dict = {}
    whole: set[str] = set()  # the vaults' campaigns: their questions are few, so every one is asked
    for notes, questions_file, stories in sources:
        questions = [q for q in load_training_questions(questions_file) if q.evidence and q.sessions]
        found = corpora(Path(notes), questions, story_dirs=stories)
        groups.update(found)
        if not stories:
            whole |= set(found)
    names = sorted(groups)
    pipeline = Pipeline(config)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    try:
        for campaign in names:
            pipeline.index(groups[campaign][0], campaign)
        log(f"indexed {len(names)} stories")
        with out.open("w", encoding="utf-8") as f:
            for i, campaign in enumerate(names):
                qs = list(groups[campaign][1])
                rng.shuffle(qs)
                other = names[(i + 1) % len(names)]
                for q in qs if campaign in whole else qs[: args.per_story]:
                    cases = [("own", campaign, None, 1), ("other story", other, None, 0)]
                    first = min(q.sessions)
                    if first > 1:
                        cases.append(("before its section", campaign, Filters(session_max=first - 1), 0))
                    if args.struck:
                        struck = f"struck-{campaign}"
                        pipeline.index(strike(groups[campaign][0], q.evidence, Path(args.data) / "struck"), struck)
                        cases.append(("evidence struck", struck, None, 0))
                    for case, where, filters, answerable in cases:
                        a = pipeline.answer(q.question, where, filters)
                        scored = score_answer(q, a)  # as `python -m rag eval --answers` scores it
                        row = {
                            "id": q.id,
                            "case": case,
                            "answerable": answerable,
                            "refused": a.refused,
                            "has_evidence": scored.get("has_evidence") if answerable else None,
                            "lead_shown": float(not a.refused and bool(lead_line(a.text))),
                            "confidence": a.confidence,
                            "support": a.trace.get("support"),
                            "rule": a.trace.get("support_note"),
                            "signals": a.trace.get("signals", {}),
                        }
                        f.write(json.dumps(row) + "\n")
                        n += 1
                if (i + 1) % 20 == 0:
                    log(f"{i + 1}/{len(names)} stories, {n} answers")
    finally:
        pipeline.close()
    log(f"wrote {out}: {n} answers")


def strike(story: Path, evidence: list[str], scratch: Path) -> Path:
    """A copy of the story's files (in ``scratch``, rewritten for each question) without the sentences that hold
    an evidence span, wherever they are."""
    import re

    from rag.names import norm

    spans = [norm(e) for e in evidence if norm(e)]
    scratch.mkdir(parents=True, exist_ok=True)
    for old in scratch.glob("*.md"):
        old.unlink()
    for path in sorted(story.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        parts = re.split(r"(?<=[.!?])(\s+)", text)
        kept = [p for p in parts if not any(span in norm(p) for span in spans)]
        (scratch / path.name).write_text("".join(kept), encoding="utf-8")
    return scratch


def features(row: dict, names: list[str]) -> list[float]:
    """One row's numbers in the order of ``names``, read as the product reads them (``with_rules``)."""
    from rag.generators._decisions import with_rules

    s = with_rules(row.get("signals") or {}, row.get("support"), row.get("rule"))
    return [float(s.get(n, 0.0)) for n in names]


FEATURES = [
    "support",
    "best_score",
    "second_score",
    "best_meaning",
    "best_overlap",
    "rest_words",
    "rest_in_best",
    "rest_in_top",
    "rest_anywhere",
    "names_found",
    "typed_in_picks",
    "verb_said",
    "best_rank",
    "top_rerank",
    "top_dense",
    "unknown_names",
    "rule_says_unknown",
    "rule_unsaid",
    "rule_missing_detail",
]


def train(args) -> None:
    from rag.measure.logistic import fit_logistic

    rows = read_jsonl(args.train)
    groups = np.array([r["id"].rsplit("-", 1)[0] for r in rows])  # the story
    x = np.array([features(r, FEATURES) for r in rows])
    out: dict = {
        "features": FEATURES,
        "trained_on": args.source,
        "rows": len(rows),
        "script": "scripts/train_answerer.py (mine, then train; see its docstring)",
        "models": {},
    }
    targets = {
        "holds_evidence": (
            np.array([r["answerable"] == 1 and not r["refused"] for r in rows]),
            np.array([bool(r.get("has_evidence")) for r in rows]),
        ),
    }
    if args.answerable:  # measured, not used: on the dev sets' tune parts it tells unanswerable questions apart
        # no better than chance (AUC .54); docs/experiments/README.md
        targets["answerable"] = (np.ones(len(rows), bool), np.array([r["answerable"] for r in rows]))
    for target, (keep, y) in targets.items():
        log(f"{target}: {int(keep.sum())} rows, {int(y[keep].sum())} positive")
        spec = fit_logistic(x[keep], y[keep].astype(int), groups[keep], log)
        out["models"][target] = spec
        order = np.argsort(-np.abs(spec["weights"]))
        log("  weights: " + ", ".join(f"{FEATURES[i]} {spec['weights'][i]:+.2f}" for i in order[:8]))
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("mine")
    m.add_argument("--notes", default="", help="FairytaleQA's story folders (one campaign each)")
    m.add_argument("--questions", default="", help="their questions")
    m.add_argument("--vault", action="append", default=[], help="NOTES:QUESTIONS, a vault as one campaign")
    m.add_argument("--out", required=True)
    m.add_argument("--data", default="/tmp/answerer/data")
    m.add_argument("--per-story", type=int, default=6)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--struck", action="store_true", help="also each question of its story without its evidence")
    t = sub.add_parser("train")
    t.add_argument("--train", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--answerable", action="store_true", help="also the answerability model (an experiment)")
    t.add_argument(
        "--source",
        default="FairytaleQA train (../shared/data/fairytaleqa-train.jsonl): 6 questions a story, seed 0, each asked "
        "of its story, of the next story and before its first answering section",
        help="what the mined file was made from, for the model's provenance",
    )
    args = p.parse_args()
    if args.cmd == "mine" and not (args.notes and args.questions) and not args.vault:
        p.error("mine: give --notes and --questions, or --vault NOTES:QUESTIONS")
    if args.cmd == "mine" and any(":" not in v for v in args.vault):
        p.error("mine: --vault takes NOTES:QUESTIONS")
    {"mine": mine, "train": train}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
