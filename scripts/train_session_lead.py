"""Train the answerer's "which session" decision: how likely the session a short answer names is the one that
answers (``rag/generators/session_lead.json``, read by ``rag.generators._decisions.session_standing``).

Why learned: "In Session 7" was the short answer most often wrong on vaults nobody had tuned on. It names the
session of one passage, and every signal of that passage says it matches the question; what tells a guess is how
far the reranker puts that session above the others. Trained on FairytaleQA *train* only (no headline number comes
from it), where every question names its gold section(s): for each question, the two best sessions among the
passages the answerer reads are rows, labelled by whether the session is gold.

    python scripts/train_session_lead.py mine --notes ../shared/data/fairytaleqa/train \\
        --questions ../shared/data/fairytaleqa-train.jsonl --out /tmp/session_lead/train.jsonl
    python scripts/train_session_lead.py train --train /tmp/session_lead/train.jsonl \\
        --out rag/generators/session_lead.json

``mine`` takes ~5 minutes on 2 cores with the stories already indexed in ``--data`` (~15 the first time); ``train``
needs scikit-learn (``make setup-train``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from _training import log, read_jsonl  # offline models, the project importable

FEATURES = ["session_sure", "session_margin"]
SESSIONS_PER_QUESTION = 2  # the lead comes from the best quotes, nearly always of the first or second session


def mine(args) -> None:
    from rag.config import load_config
    from rag.generators._decisions import session_of, session_standing
    from rag.measure.evaluation import corpora
    from rag.measure.questions import load_training_questions
    from rag.pipeline import Pipeline

    questions = [q for q in load_training_questions(args.questions) if q.sessions]
    config = load_config(overrides={"data_dir": str(Path(args.data).resolve()), "tracking.enabled": False})
    pipeline = Pipeline(config)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    try:
        with out.open("w", encoding="utf-8") as f:
            groups = sorted(corpora(Path(args.notes), questions, story_dirs=True).items())
            for i, (campaign, (folder, asked)) in enumerate(groups):
                pipeline.index(folder, campaign)
                for q in asked:
                    hits = pipeline.search(q.question, campaign).hits
                    order = [key for h in hits if (key := session_of(h.chunk)) is not None]
                    for key in list(dict.fromkeys(order))[:SESSIONS_PER_QUESTION]:
                        standing = session_standing(hits, key)
                        if not standing:
                            continue
                        row = {"id": q.id, "story": campaign, "session": key[1], "gold": key[1] in q.sessions}
                        f.write(json.dumps({**row, **standing}) + "\n")
                        n += 1
                if (i + 1) % 25 == 0:
                    log(f"{i + 1}/{len(groups)} stories, {n} rows")
    finally:
        pipeline.close()
    log(f"wrote {out}: {n} rows")


def train(args) -> None:
    from rag.measure.logistic import fit_logistic

    rows = read_jsonl(args.train)
    x = np.array([[float(r[n]) for n in FEATURES] for r in rows])
    y = np.array([int(r["gold"]) for r in rows])
    groups = np.array([r["story"] for r in rows])  # a story's questions stay on one side of each fold
    model = fit_logistic(x, y, groups, log)
    log(
        f"{len(rows)} rows, {int(y.sum())} gold; weights "
        + ", ".join(f"{n} {w:+.2f}" for n, w in zip(FEATURES, model["weights"], strict=True))
    )
    spec = {
        "features": FEATURES,
        "trained_on": args.source,
        "rows": len(rows),
        "script": "scripts/train_session_lead.py (mine, then train; see its docstring)",
        "models": {"session_right": model},
    }
    Path(args.out).write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("mine")
    m.add_argument("--notes", required=True)
    m.add_argument("--questions", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--data", default="/tmp/session_lead/data")
    t = sub.add_parser("train")
    t.add_argument("--train", required=True)
    t.add_argument("--out", required=True)
    t.add_argument(
        "--source",
        default="FairytaleQA train (../shared/data/fairytaleqa-train.jsonl): every question with a gold section, "
        "the two best sessions among its passages",
        help="what the mined file was made from, for the model's provenance",
    )
    args = p.parse_args()
    {"mine": mine, "train": train}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
