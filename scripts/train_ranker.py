"""Train the ``learned`` reranker: a small learning-to-rank model over cheap features of each candidate.

Two steps, each its own sub-command (``mine`` is cached in its output file, so ``train`` can be re-run alone):

1. mine   Index a question set's notes with the project's own parser, chunker, embedder and store (into
          ``--data``, never the app's data folder), ask every question through the real pipeline with the
          reranker off, and write its top ``--depth`` candidates, with every stage's score and rank, to a JSON
          Lines file. A candidate is labelled by the evaluation's matching rule
          (``rag.measure.evaluation.supports``: the normalised evidence is a substring of the passage and the
          passage is from a gold session). FairytaleQA *train* is the training data; the dev sets are mined the
          same way only to select and report models (``--story-dirs`` for FairytaleQA: one campaign per story).
2. train  Features come from ``rag.rerankers.learned.features`` (the code the product runs), the model is fitted
          on the train file only (a file holding dev-set questions is refused), scored on the dev files by
          reranking their top ``--head`` candidates as the retriever does, and exported to JSON (``--out``; the
          shipped one is ``rag/rerankers/learned_model.json``), which ``reranker.backend: learned`` evaluates
          in numpy. Models: ``trees`` (LightGBM lambdarank or binary, monotone in the features where more can
          only mean better; the default), ``linear`` (scikit-learn logistic regression on standardised
          features) and ``listwise`` (a linear model under a softmax loss per question, scipy). LightGBM and
          scikit-learn are needed for training only. ``--prior`` and ``--keep`` add what FairytaleQA cannot
          teach (LTR.md). The defaults are the shipped model's settings.

Deterministic: every random choice is seeded (``--seed``) and features are the same to the bit in every
process, so the same command writes the same model file.

Usage (from the project folder, with the project's virtualenv; mining the train set takes a few minutes):

    export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
    D=../shared/data; W=/tmp/ltr; OPTS="--data $W/data --set embedding.cache_dir=$W/onnx-cache"
    python scripts/train_ranker.py mine $OPTS --story-dirs --notes $D/fairytaleqa/train \\
        --questions $D/fairytaleqa-train.jsonl --out $W/train.jsonl
    for s in vault-toa vault-strahd; do python scripts/train_ranker.py mine $OPTS --part tune --notes $D/$s \\
        --questions $D/$s-questions.jsonl --out $W/$s-questions-tune.jsonl; done
    python scripts/train_ranker.py mine $OPTS --part tune --notes $D/crd3-notes \\
        --questions $D/crd3-questions.jsonl --out $W/crd3-questions-tune.jsonl
    python scripts/train_ranker.py mine $OPTS --part tune --story-dirs --notes $D/fairytaleqa/val \\
        --questions $D/fairytaleqa-val.jsonl --out $W/ftqa-val-tune.jsonl
    python scripts/train_ranker.py train --train $W/train.jsonl --dev $W/vault-toa-questions-tune.jsonl \\
        $W/vault-strahd-questions-tune.jsonl $W/crd3-questions-tune.jsonl --report $W/ftqa-val-tune.jsonl \\
        --out rag/rerankers/learned_model.json --name lambdarank-monotone-100x4

``--part tune`` keeps the tune part of a split dev set (docs/eval/splits.json): choices look at nothing else. The
shipped model also reported vault-goblins' tune part, mined the same way from ../devvaults. ``--dev`` and
``--report`` only score the model: the same train file fits the same trees with or without them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from _training import log  # offline models, the project importable

DEV_PREFIXES = ("toa-", "crd3-", "ftqa-val-")  # question ids of the sets we measure on: never train on them


# --------------------------------------------------------------------------------------------- mining
def mine(args) -> None:
    import yaml

    from rag.config import load_config
    from rag.measure.evaluation import corpora, from_gold_session, supports
    from rag.measure.questions import load_training_questions
    from rag.pipeline import Pipeline

    overrides = {"reranker.enabled": False, "tracking.enabled": False, "data_dir": str(Path(args.data).resolve())}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key.strip()] = yaml.safe_load(value) if value else ""
    config = load_config(overrides=overrides)
    questions = load_training_questions(Path(args.questions))
    if args.part:  # a model is chosen on the tune parts; the test parts only report
        from rag.measure.report import SPLITS

        split = json.loads(SPLITS.read_text(encoding="utf-8")).get(Path(args.questions).stem)
        if split is None:
            sys.exit(f"{Path(args.questions).stem} is not split into tune and test ({SPLITS})")
        keep = set(split[args.part])
        questions = [q for q in questions if q.id in keep]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    pipeline = Pipeline(config)
    started = time.perf_counter()
    n_q = n_in = 0
    try:
        with tmp.open("w", encoding="utf-8") as f:
            groups = corpora(Path(args.notes), questions, story_dirs=args.story_dirs)
            for i, (campaign, (folder, qs)) in enumerate(groups.items(), start=1):
                pipeline.index(folder, campaign)
                searcher = pipeline.with_settings({"retrieval.k": args.depth})
                written: set[str] = set()
                for q in qs:
                    candidates = searcher.search(q.question, campaign).candidates[: args.depth]
                    fresh = {h.chunk.id: h.chunk.payload() for h in candidates if h.chunk.id not in written}
                    if fresh:  # each passage once per campaign; rows refer to it by id
                        f.write(json.dumps({"chunks": fresh}, ensure_ascii=False) + "\n")
                        written |= set(fresh)
                    hits = [
                        {
                            "id": h.chunk.id,
                            "score": h.score,
                            "scores": h.scores,
                            "ranks": h.ranks,
                            "support": bool(q.evidence) and supports(h.chunk, q),
                            "gold": from_gold_session(h.chunk, q),
                        }
                        for h in candidates
                    ]
                    row = {
                        "id": q.id,
                        "question": q.question,
                        "kind": q.kind,
                        "answerable": q.answerable,
                        "has_evidence": bool(q.evidence),
                        "sessions": q.sessions,
                        "campaign": campaign,
                        "hits": hits,
                    }
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
                    n_q += 1
                    n_in += any(h["support"] for h in hits)
                if i % 20 == 0 or i == len(groups):
                    log(
                        f"{i}/{len(groups)} corpora, {n_q} questions, a supporting passage in the top "
                        f"{args.depth}: {n_in}; {time.perf_counter() - started:.0f} s"
                    )
    finally:
        pipeline.close()
    tmp.replace(out)
    log(f"wrote {out}")


# --------------------------------------------------------------------------------------------- data
class Mined:
    """A mined file: per question, its candidates as ``Hit``s (first-stage order) and their labels."""

    def __init__(self, path: Path, head: int):
        from rag.models import Chunk, Hit
        from rag.question import read_question
        from rag.rerankers.learned import features

        self.name = path.stem
        chunks: dict[str, dict] = {}
        self.rows, self.x, self.support, self.gold = [], [], [], []
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "chunks" in row:
                chunks.update(row["chunks"])
                continue
            hits = [
                Hit(Chunk.from_payload(chunks[h["id"]]), h["score"], i, h["scores"], h["ranks"])
                for i, h in enumerate(row["hits"], start=1)
            ]
            self.rows.append(row)
            self.x.append(features(read_question(row["question"]), hits[:head]))
            self.support.append([h["support"] for h in row["hits"]])
            self.gold.append([h["gold"] for h in row["hits"]])
        self.head = head

    def extend(self, other: Mined, times: int) -> None:
        """Add ``other``'s questions, each ``times`` times (how much a few hundred note questions weigh beside
        FairytaleQA's thousands)."""
        for _ in range(times):
            self.rows += other.rows
            self.x += other.x
            self.support += other.support
            self.gold += other.gold

    def scored(self) -> list[int]:
        """Questions whose evidence is findable (hit@k and MRR count them)."""
        return [i for i, r in enumerate(self.rows) if r["has_evidence"] and r["answerable"]]


def metrics(data: Mined, scores: list | None) -> dict[str, float]:
    """hit@1, hit@5, MRR@10, session-hit@5 after reranking each question's head by ``scores`` (None: off),
    with the retriever's rule: the head sorted by score (ties keep the first-stage order), the rest below."""
    import numpy as np

    hit1 = hit5 = mrr = sess = n_ev = n_ans = 0
    for i, row in enumerate(data.rows):
        order = list(range(len(row["hits"])))
        if scores is not None:
            head = len(data.x[i])
            order = list(np.argsort(-np.asarray(scores[i]), kind="stable")) + order[head:]
        sup = [data.support[i][j] for j in order]
        gold = [data.gold[i][j] for j in order]
        if row["answerable"]:
            n_ans += 1
            sess += any(gold[:5])
            if row["has_evidence"]:
                n_ev += 1
                first = next((r for r, s in enumerate(sup[:10], start=1) if s), 0)
                hit1 += bool(sup[:1] and sup[0])
                hit5 += any(sup[:5])
                mrr += 1.0 / first if first else 0.0
    return {
        "hit@1": hit1 / n_ev,
        "hit@5": hit5 / n_ev,
        "mrr@10": mrr / n_ev,
        "session_hit@5": sess / n_ans,
    }


# -------------------------------------------------------------------------------------------- models
def prior_of(args) -> dict[str, float]:
    return {name: float(w) for name, _, w in (item.partition("=") for item in args.prior)}


def offsets(x, args):
    """The prior's part of each row's score (``--prior``), which ``--residual`` models learn on top of."""
    import numpy as np

    from rag.rerankers.learned import FEATURES

    out = np.zeros(len(x))
    if getattr(args, "residual", False):
        for name, weight in prior_of(args).items():
            out += weight * x[:, FEATURES.index(name)]
    return out


def fit_linear(train: Mined, names: list[str], args) -> dict:
    """Logistic regression on standardised features (pointwise: supports the question or not)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from rag.rerankers.learned import FEATURES

    cols = [FEATURES.index(n) for n in names]
    keep = [i for i in range(len(train.rows)) if train.rows[i]["has_evidence"]]
    x = np.vstack([train.x[i][:, cols] for i in keep])
    y = np.concatenate([np.asarray(train.support[i][: len(train.x[i])], dtype=float) for i in keep])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    clf = LogisticRegression(C=args.c, max_iter=2000, random_state=args.seed)
    clf.fit((x - mean) / scale, y)
    return {
        "kind": "linear",
        "features": names,
        "weights": [round(float(w), 6) for w in clf.coef_[0]],
        "mean": [round(float(m), 6) for m in mean],
        "scale": [round(float(s), 6) for s in scale],
        "bias": round(float(clf.intercept_[0]), 6),
    }


def fit_listwise(train: Mined, names: list[str], args) -> dict:
    """A linear model on standardised features, fitted listwise: per question, the softmax over its head puts
    as much mass as it can on the passages that support it (ListNet with a 0/1 target); L2 weight 1/C."""
    import numpy as np
    from scipy.optimize import minimize

    from rag.rerankers.learned import FEATURES

    cols = [FEATURES.index(n) for n in names]
    keep = [i for i in range(len(train.rows)) if any(train.support[i][: len(train.x[i])])]
    xs = [train.x[i][:, cols] for i in keep]
    ys = [np.asarray(train.support[i][: len(train.x[i])], dtype=float) for i in keep]
    allx = np.vstack(xs)
    base = offsets(allx, args)
    mean, scale = allx.mean(axis=0), allx.std(axis=0)
    scale[scale == 0] = 1.0
    x = (allx - mean) / scale
    y = np.concatenate([t / t.sum() for t in ys])
    starts = np.cumsum([0] + [len(t) for t in ys])[:-1]
    group = np.repeat(np.arange(len(ys)), [len(t) for t in ys])
    lam = 1.0 / (args.c * len(ys))

    def loss(w):
        s = x @ w + base
        top = np.maximum.reduceat(s, starts)[group]
        e = np.exp(s - top)
        z = np.add.reduceat(e, starts)[group]
        logp = s - top - np.log(z)
        p = e / z
        value = -(y * logp).sum() / len(ys) + lam * (w @ w) / 2
        # gradient of -sum y log p: x^T (p * sum_group(y) - y); sum_group(y) = 1
        grad = x.T @ (p - y) / len(ys) + lam * w
        return value, grad

    w = minimize(loss, np.zeros(len(cols)), jac=True, method="L-BFGS-B", options={"maxiter": 500}).x
    return {
        "kind": "linear",
        "features": names,
        "weights": [round(float(v), 6) for v in w],
        "mean": [round(float(m), 6) for m in mean],
        "scale": [round(float(v), 6) for v in scale],
        "bias": 0.0,
    }


# The features the shipped model uses: the stage scores relative to the question's best candidate (raw BM25
# depends on the corpus), word and name matches, the passage's note and neighbours. Left out: what FairytaleQA
# cannot teach (links, reference pages, first mentions: the prior and --keep handle those), raw scores,
# the question's type, and a few that did not help on vault-toa + CRD3 (LTR.md).
DEFAULT_FEATURES = (
    "dense_rel",
    "keyword_rel",
    "context_rel",
    "fused_rel",
    "first_log",
    "cov",
    "cov_idf",
    "cov_rel",
    "sent_cov",
    "bigram",
    "prox",
    "names_cov",
    "names_none",
    "nb_fused_rel",
    "nb_cov_idf",
    "nb_has",
    "note_best_rr",
    "note_share",
    "note_order_rr",
    "len_log",
    "dense_missing",
    "keyword_missing",
    "context_missing",
    "dense_rr",
    "keyword_rr",
    "context_rr",
)

# Features whose higher values can only mean a better passage (+1) or a worse one (-1), whatever the vault.
MONOTONE = {
    **{f"{s}_{p}": 1 for s in ("dense", "keyword", "context") for p in ("raw", "rel", "rr")},
    "fused_rel": 1,
    "first_rr": 1,
    "first_log": -1,
    "links_rel": 1,
    "cov": 1,
    "cov_idf": 1,
    "cov_rel": 1,
    "sent_cov": 1,
    "cov_heading": 1,
    "bigram": 1,
    "prox": 1,
    "names_cov": 1,
    "names_title": 1,
    "note_best_rr": 1,
}


def paraphrase_weight(train: Mined, i: int, lean: float) -> float:
    """How much question ``i`` counts in training: ``1 + lean * (1 - c)``, where ``c`` is the share of its words
    in the best passage that answers it (the ``cov`` feature). Players ask in their own words (31 of vault-toa's 45
    answerable questions share no content word with their evidence); FairytaleQA's experts mostly reuse the
    story's. ``lean`` 0: every question the same (LightGBM weighs a ranking query by its rows' mean weight)."""
    if not lean:
        return 1.0
    from rag.rerankers.learned import FEATURES

    head = len(train.x[i])
    covs = [train.x[i][j, FEATURES.index("cov")] for j in range(head) if train.support[i][j]]
    return 1.0 + lean * (1.0 - max(covs, default=1.0))


def fit_trees(train: Mined, names: list[str], args) -> dict:
    """LightGBM (training only): lambdarank over each question's head, or binary; exported as complete trees."""
    import lightgbm as lgb
    import numpy as np

    from rag.rerankers.learned import FEATURES

    cols = [FEATURES.index(n) for n in names]
    keep = [i for i in range(len(train.rows)) if train.rows[i]["has_evidence"]]
    if args.objective == "lambdarank":  # a list with no positive teaches a ranker nothing
        keep = [i for i in keep if any(train.support[i][: len(train.x[i])])]
    x = np.vstack([train.x[i][:, cols] for i in keep])
    y = np.concatenate([np.asarray(train.support[i][: len(train.x[i])], dtype=float) for i in keep])
    params = {
        "objective": args.objective,
        "learning_rate": args.lr,
        "num_leaves": 2**args.depth,
        "max_depth": args.depth,
        "min_data_in_leaf": args.min_leaf,
        "feature_fraction": args.feature_fraction,
        "bagging_fraction": args.bagging,
        "bagging_freq": 1 if args.bagging < 1 else 0,
        "lambda_l2": 1.0,
        "seed": args.seed,
        "deterministic": True,
        "force_row_wise": True,
        "num_threads": 1,
        "verbose": -1,
    }
    if getattr(args, "monotone", False):  # more of a relevance signal never lowers the score
        params["monotone_constraints"] = [MONOTONE.get(n, 0) for n in names]
        params["monotone_constraints_method"] = "advanced"
    if args.objective == "lambdarank":
        params["lambdarank_truncation_level"] = 10
        params["eval_at"] = [5, 10]
    group = [len(train.x[i]) for i in keep] if args.objective == "lambdarank" else None
    full = np.vstack([train.x[i] for i in keep])
    weight = np.repeat([paraphrase_weight(train, i, args.paraphrase) for i in keep], [len(train.x[i]) for i in keep])
    dataset = lgb.Dataset(x, y, group=group, init_score=offsets(full, args), weight=weight)
    booster = lgb.train(params, dataset, num_boost_round=args.trees)
    return export_trees(booster.dump_model(), names, args.depth)


def export_trees(dump: dict, names: list[str], depth: int) -> dict:
    """LightGBM's trees as complete binary trees of ``depth`` levels (see ``rag.rerankers.learned.Model``):
    a leaf above the last level becomes a node that always goes left (threshold +huge) to copies of itself."""
    big = 1.0e300
    size = 2**depth - 1
    features, thresholds, leaves = [], [], []
    for tree in dump["tree_info"]:
        feat, thr, leaf = [0] * size, [big] * size, [0.0] * (2**depth)

        def place(node: dict, index: int, level: int, feat=feat, thr=thr, leaf=leaf) -> None:
            if "leaf_value" in node or "split_feature" not in node:
                value = node.get("leaf_value", 0.0)
                first, count = index, 1
                for _ in range(depth - level):  # fill every descendant slot
                    first, count = 2 * first + 1, count * 2
                for j in range(first, first + count):
                    if j >= size:
                        leaf[j - size] = value
                return
            if level >= depth:
                raise ValueError("tree deeper than --depth")
            if node.get("decision_type", "<=") != "<=":
                raise ValueError(f"unsupported split {node.get('decision_type')}")
            feat[index], thr[index] = int(node["split_feature"]), float(node["threshold"])
            place(node["left_child"], 2 * index + 1, level + 1)
            place(node["right_child"], 2 * index + 2, level + 1)

        place(tree["tree_structure"], 0, 0)
        features += feat
        thresholds += thr
        leaves += [round(v, 8) for v in leaf]
    return {
        "kind": "trees",
        "features": names,
        "depth": depth,
        "feature": features,
        "threshold": thresholds,
        "leaf": leaves,
        "bias": 0.0,
    }


def train_cmd(args) -> None:
    from rag.rerankers.learned import FEATURES, Model

    t0 = time.perf_counter()
    train = Mined(Path(args.train), args.head)
    for path in args.notes_train:  # questions of the training vaults, written like a player's, beside FairytaleQA
        train.extend(Mined(Path(path), args.head), args.notes_weight)
    dev_ids = [r["id"] for r in train.rows if r["id"].startswith(DEV_PREFIXES)]
    if dev_ids:
        sys.exit(f"Refusing to train on {args.train}: it holds dev-set questions ({dev_ids[0]}, ...).")
    dev = [Mined(Path(p), args.head) for p in args.dev]
    report = [Mined(Path(p), args.head) for p in args.report]
    log(f"features for {len(train.rows)} train questions and the dev sets in {time.perf_counter() - t0:.0f} s")
    chosen = args.only or (DEFAULT_FEATURES if not args.all_features else FEATURES)
    names = [n for n in FEATURES if n in set(chosen) and n not in set(args.drop)]
    fit = {"linear": fit_linear, "listwise": fit_listwise, "trees": fit_trees}[args.model]
    spec = fit(train, names, args)
    spec["prior"] = prior_of(args)
    spec["keep"] = list(args.keep)
    model = Model(spec)
    results = {}
    for data in (*dev, *report, train):
        off, on = metrics(data, None), metrics(data, [model.predict(x) for x in data.x])
        results[data.name] = {"off": off, "on": on}
        log(
            f"{data.name:9s} off "
            + " ".join(f"{k} {v:.3f}" for k, v in off.items())
            + " | on "
            + " ".join(f"{k} {v:.3f}" for k, v in on.items())
        )
    spec["name"] = args.name or f"{args.model}-{len(names)}"
    if args.out:
        info = {
            "trained_on": Path(args.train).name,
            "head": args.head,
            "seed": args.seed,
            "command": " ".join(sys.argv[1:]),
            "dev": {k: {m: {a: round(b, 4) for a, b in v.items()} for m, v in r.items()} for k, r in results.items()},
        }
        out = Path(args.out)
        out.write_text(json.dumps({"model": spec, "training": info}, separators=(",", ":")) + "\n", encoding="utf-8")
        log(f"wrote {out} ({out.stat().st_size / 1000:.0f} kB)")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "results": results}, indent=1), encoding="utf-8")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("mine", help="write each question's candidates with their stage scores and labels")
    p.add_argument("--notes", required=True)
    p.add_argument("--questions", required=True)
    p.add_argument("--story-dirs", action="store_true", help="one campaign per sub-folder (FairytaleQA)")
    p.add_argument("--data", required=True, help="data folder for the store (never the app's)")
    p.add_argument("--set", action="append", default=[], help="config KEY=VALUE (repeatable)")
    p.add_argument("--depth", type=int, default=50, help="candidates kept per question")
    p.add_argument("--part", choices=["tune", "test"], help="only this part of a split dev set (docs/eval/splits.json)")
    p.add_argument("--out", required=True)

    p = sub.add_parser("train", help="fit a model on the mined train file; score it on the dev files; export it")
    p.add_argument("--train", required=True, help="mined FairytaleQA train file")
    p.add_argument("--dev", nargs="*", default=[], help="mined files the model is selected on")
    p.add_argument(
        "--notes-train",
        nargs="*",
        default=[],
        help="mined training-vault files added to the train set (docs/eval/questions/README.md: training vaults)",
    )
    p.add_argument("--notes-weight", type=int, default=1, help="each --notes-train question counts this many times")
    p.add_argument("--report", nargs="*", default=[], help="mined files only reported")
    p.add_argument("--head", type=int, default=20, help="candidates reranked per question (reranker.candidates)")
    p.add_argument("--model", choices=["linear", "listwise", "trees"], default="trees")
    p.add_argument("--drop", nargs="*", default=[], help="features left out")
    p.add_argument("--only", nargs="*", default=[], help="use only these features (default: DEFAULT_FEATURES)")
    p.add_argument("--all-features", action="store_true", help="start from every feature, not DEFAULT_FEATURES")
    p.add_argument("--c", type=float, default=1.0, help="linear: inverse L2 strength")
    p.add_argument("--objective", choices=["lambdarank", "binary"], default="lambdarank")
    p.add_argument("--trees", type=int, default=100)
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--min-leaf", type=int, default=50)
    p.add_argument("--feature-fraction", type=float, default=1.0, help="share of the features each tree sees")
    p.add_argument("--bagging", type=float, default=1.0, help="share of the train rows each tree sees")
    p.add_argument(
        "--no-monotone",
        dest="monotone",
        action="store_false",
        help="trees: let MONOTONE features move the score either way",
    )
    p.add_argument(
        "--prior",
        nargs="*",
        default=["first_log=-1"],
        help="FEATURE=WEIGHT added to the model's score: the first-stage order and rules the model cannot learn",
    )
    p.add_argument(
        "--residual",
        action="store_true",
        help="fit the model on top of the prior (LightGBM init_score, or an offset for listwise)",
    )
    p.add_argument(
        "--keep",
        nargs="*",
        default=["reference", "first_mention"],
        help="hits with any of these features > 0 keep their first-stage place",
    )
    p.add_argument(
        "--paraphrase",
        type=float,
        default=0.0,
        help="trees: weigh a train question by 1 + this * (1 - the share of its words in its answering passage)",
    )
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--name", default="")
    p.add_argument("--out", default="", help="model JSON to write (the shipped one: rag/rerankers/learned_model.json)")
    p.add_argument("--json", default="", help="write the metrics here")
    args = ap.parse_args(argv)
    if args.command == "mine":
        mine(args)
    else:
        train_cmd(args)


if __name__ == "__main__":
    main()
