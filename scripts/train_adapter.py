"""An experiment, not shipped (docs/experiments/README.md): a question adapter, a small linear map that moves a
question's vector toward the sentences that answer it.

Why: the packaged model (all-MiniLM-L6-v2) puts a question near sentences that *say the same words*, not near the
one that *answers* it ("Who was setting?" → "…the sun was setting"); the offline answerer picks its quotes, and
the search its dense candidates, by that cosine. A map W = I + U·Vᵀ (rank r) applied to the question vector only
learns the question-to-answer asymmetry without re-embedding a single passage. Trained on FairytaleQA *train*
only (no headline number comes from it), listwise: for each question with an answer span, softmax over every
sentence of its story, the sentences that hold the span being the positives.

    python scripts/train_adapter.py mine --notes ../shared/data/fairytaleqa/train \\
        --questions ../shared/data/fairytaleqa-train.jsonl --out /tmp/adapter/train.npz
    python scripts/train_adapter.py mine --notes ../shared/data/fairytaleqa/val \\
        --questions ../shared/data/fairytaleqa-val.jsonl --out /tmp/adapter/val.npz
    python scripts/train_adapter.py train --train /tmp/adapter/train.npz --report /tmp/adapter/val.npz \\
        --out /tmp/adapter/adapter.npz

The epoch kept is chosen on a tenth of the train stories held back (by a hash of their place), never on a dev set;
``--report`` only prints how the result ranks another set's sentences.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from _training import log, read_jsonl  # offline models, the project importable


def mine(args) -> None:
    from rag.config import load_config
    from rag.embedders import get_embedder
    from rag.generators._sentences import split_sentences
    from rag.ingest.indexing import prepare_chunks
    from rag.models import Hit
    from rag.names import norm

    config = load_config(overrides={"data_dir": "/tmp/adapter-data"})
    embedder = get_embedder(config.embedding)
    rows = read_jsonl(args.questions)
    by_story: dict[str, list[dict]] = {}
    for r in rows:
        if r.get("evidence") and r.get("sessions"):
            by_story.setdefault(r["story"], []).append(r)
    sentences: list[str] = []
    sentence_session: list[float] = []
    questions: list[str] = []
    spans: list[tuple[int, int]] = []  # each question's story sentences: [start, end)
    positives: list[list[int]] = []
    ids: list[str] = []
    for i, (story, qs) in enumerate(sorted(by_story.items()), start=1):
        chunks, _, _ = prepare_chunks(config, Path(args.notes) / story, f"s{i}")
        start = len(sentences)
        seen: set[str] = set()
        for chunk in chunks:
            for s in split_sentences(Hit(chunk, 1.0, 1)):
                key = f"{chunk.session}\x1f{norm(s.text)}"
                if key in seen:  # overlapping passages repeat a sentence
                    continue
                seen.add(key)
                sentences.append(s.text)
                sentence_session.append(float(chunk.session) if chunk.session is not None else -1.0)
        end = len(sentences)
        for q in qs:
            evidence = [norm(e) for e in q["evidence"] if norm(e)]
            gold = {float(x) for x in q["sessions"]}
            found = [
                j
                for j in range(start, end)
                if sentence_session[j] in gold and any(e in norm(sentences[j]) for e in evidence)
            ]
            if not found:
                continue
            questions.append(q["question"])
            spans.append((start, end))
            positives.append(found)
            ids.append(q["id"])
        if i % 25 == 0:
            log(f"{i}/{len(by_story)} stories, {len(questions)} questions, {len(sentences)} sentences")
    log(f"embedding {len(sentences)} sentences and {len(questions)} questions")
    s_vecs = np.asarray(embedder.embed_batch(sentences), dtype=np.float32)
    q_vecs = np.asarray(embedder.embed_queries(questions), dtype=np.float32)
    flat = [j for p in positives for j in p]
    offsets = np.cumsum([0, *(len(p) for p in positives)])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out,
        q=q_vecs,
        s=s_vecs,
        spans=np.array(spans, dtype=np.int64),
        pos=np.array(flat, dtype=np.int64),
        pos_offsets=offsets.astype(np.int64),
        ids=np.array(ids),
        model=np.array(embedder.name),
    )
    log(f"wrote {out}: {len(questions)} questions over {len(sentences)} sentences")


def load(path: str):
    d = np.load(path)
    pos = [d["pos"][a:b] for a, b in zip(d["pos_offsets"][:-1], d["pos_offsets"][1:], strict=True)]
    return d["q"], d["s"], d["spans"], pos


def adapt(q: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """W·q for W = I + U·Vᵀ, normalised (what the product does)."""
    out = q + (q @ v) @ u.T
    return out / np.linalg.norm(out, axis=-1, keepdims=True)


def ranks(q, s, spans, pos, u=None, v=None) -> np.ndarray:
    """For each question, the rank (1-based) of its best positive among its story's sentences."""
    qa = adapt(q, u, v) if u is not None else q
    out = []
    for i, (a, b) in enumerate(spans):
        scores = s[a:b] @ qa[i]
        best = max(scores[j - a] for j in pos[i])
        out.append(1 + int((scores > best).sum()))
    return np.array(out)


def report(name: str, r: np.ndarray) -> str:
    return f"{name}: hit@1 {np.mean(r == 1):.3f}, hit@3 {np.mean(r <= 3):.3f}, MRR {np.mean(1.0 / r):.3f} (n={len(r)})"


def holdout(spans: np.ndarray, share: float) -> np.ndarray:
    """Questions whose story (its sentences' start) falls in the held-back ``share`` of stories."""
    starts = spans[:, 0]
    keyed = (starts * 2654435761 % 2**32) / 2**32
    return keyed < share


def subset(q, spans, pos, mask):
    idx = np.flatnonzero(mask)
    return q[idx], spans[idx], [pos[i] for i in idx]


def train(args) -> None:
    import torch

    torch.manual_seed(args.seed)
    q_all, s, spans_all, pos_all = load(args.train)
    back = holdout(spans_all, args.holdout)
    q, spans, pos = subset(q_all, spans_all, pos_all, ~back)
    dq, dspans, dpos = subset(q_all, spans_all, pos_all, back)
    ds = s
    log(f"{len(q)} questions to train on, {len(dq)} held back to choose the epoch")
    log(report("train, as shipped", ranks(q, s, spans, pos)))
    log(report("held back, as shipped", ranks(dq, ds, dspans, dpos)))
    dim, rank = q.shape[1], args.rank
    u = torch.zeros(dim, rank, requires_grad=True)
    v = torch.nn.Parameter(torch.randn(dim, rank) * 0.01)
    u = torch.nn.Parameter(u.detach())
    opt = torch.optim.Adam([u, v], lr=args.lr)
    tq, ts = torch.from_numpy(q), torch.from_numpy(s)
    order = np.arange(len(q))
    rng = np.random.default_rng(args.seed)
    best, kept = -1.0, None
    for epoch in range(args.epochs):
        rng.shuffle(order)
        total = 0.0
        for batch in np.array_split(order, max(1, len(order) // args.batch)):
            loss = 0.0
            for i in batch:
                a, b = spans[i]
                qi = tq[i] + (tq[i] @ v) @ u.T
                qi = qi / qi.norm()
                logits = (ts[a:b] @ qi) / args.temperature
                logp = torch.log_softmax(logits, dim=0)
                loss = loss - torch.logsumexp(logp[torch.as_tensor(pos[i] - a)], dim=0)
            loss = loss / len(batch) + args.l2 * ((u**2).sum() + (v**2).sum())
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss) * len(batch)
        un, vn = u.detach().numpy(), v.detach().numpy()
        dev = ranks(dq, ds, dspans, dpos, un, vn)
        mrr = float(np.mean(1.0 / dev))
        log(f"epoch {epoch + 1}: loss {total / len(order):.4f}; " + report("held back", dev))
        if mrr > best:
            best, kept = mrr, (un.copy(), vn.copy())
    un, vn = kept
    log(report("train, adapted", ranks(q, s, spans, pos, un, vn)))
    if args.report:
        rq, rs, rspans, rpos = load(args.report)
        log(report(f"{args.report}, as shipped", ranks(rq, rs, rspans, rpos)))
        log(report(f"{args.report}, adapted", ranks(rq, rs, rspans, rpos, un, vn)))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "model": str(np.load(args.train)["model"]) if "model" in np.load(args.train).files else "all-MiniLM-L6-v2",
        "trained_on": str(args.train),
        "rank": rank,
        "epochs": args.epochs,
        "lr": args.lr,
        "l2": args.l2,
        "temperature": args.temperature,
        "seed": args.seed,
        "held_back_mrr": round(best, 4),
        "holdout": args.holdout,
        "script": "scripts/train_adapter.py",
    }
    np.savez_compressed(out, u=un.astype(np.float32), v=vn.astype(np.float32), meta=np.array(json.dumps(meta)))
    log(f"wrote {out} ({out.stat().st_size} bytes)")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("mine")
    m.add_argument("--notes", required=True)
    m.add_argument("--questions", required=True)
    m.add_argument("--out", required=True)
    t = sub.add_parser("train")
    t.add_argument("--train", required=True)
    t.add_argument("--report", help="another mined set to print ranks for (never used to choose)")
    t.add_argument("--holdout", type=float, default=0.1, help="share of train stories held back to choose the epoch")
    t.add_argument("--out", required=True)
    t.add_argument("--rank", type=int, default=32)
    t.add_argument("--epochs", type=int, default=6)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--l2", type=float, default=1e-4)
    t.add_argument("--batch", type=int, default=64)
    t.add_argument("--temperature", type=float, default=0.05)
    t.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    {"mine": mine, "train": train}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
