"""``python -m rag bench query``: query latency per engine and mode at several collection sizes.

Embedding 100k passages would take hours on 2 cores, so larger collections are synthetic but realistic:
every point reuses a real passage's text and its real embedding plus a little noise (so vectors are
distinct but clustered like real ones), and queries are real questions embedded by the real model.
"""

from __future__ import annotations

import statistics
import tempfile
import time

import numpy as np

from rag.config import Config
from rag.embedders import get_embedder, normalise
from rag.ingest.indexing import prepare_chunks
from rag.measure.stats import p50_p95
from rag.models import Chunk, Filters
from rag.pipeline import Pipeline
from rag.stores import get_store

QUESTIONS = [
    "Who gave the party a map of the mines?",
    "What did Clarota do to the duergar general?",
    "When did Vox Machina first meet Osiris?",
    "Where is Kraghammer?",
    "What happened to Lady Kima?",
    "Why did Lord Thunderbrand refuse to listen?",
    "Who killed the beholder?",
    "What is the Slayer's Take?",
    "Which session did Grog get the gauntlets?",
    "What did Scanlan sing?",
    "Who is Allura Vysoren?",
    "What did they find in the Underdark?",
    "How did Vex tame Trinket?",
    "What is in Vasselheim?",
    "Who are the Briarwoods?",
    "What did Percy build?",
    "Where did Keyleth go for her Aramente?",
    "What was the deal with Nostoc Greyspine?",
    "Who is Gilmore?",
    "What did the party do at the Sunken Tomb?",
]


RERANK_CANDIDATES = 20
QDRANT_LOCAL_MAX = 20_000  # qdrant-client local mode is brute-force Python: 100k is a multi-minute build
BASE = 1000  # real passages embedded once; larger collections repeat them with noise


def synthetic(base: list[Chunk], vectors: np.ndarray, n: int, rng) -> tuple[list[Chunk], np.ndarray]:
    chunks, out = [], []
    for i in range(n):
        j = i % len(base)
        c = base[j]
        chunks.append(
            Chunk(
                campaign="bench",
                source=f"copy{i // len(base)}/{c.source}",
                position=c.position,
                text=c.text,
                name=c.name,
                session=c.session,
                campaign_no=c.campaign_no,
                entities=c.entities,
                context=c.context,
            )
        )
        out.append(vectors[j] + rng.normal(0, 0.02, vectors.shape[1]).astype(np.float32))
    return chunks, normalise(np.array(out))


def bench_query(config: Config, notes_dir, sizes: list[int], engines: list[str], log=print) -> list[dict]:
    base, _, _ = prepare_chunks(config, notes_dir, "bench")
    base = base[:BASE]
    embedder = get_embedder(config.embedding)
    log(f"embedding {len(base)} real passages once…")
    vectors = embedder.embed_all([c.text for c in base], config.embedding.batch_size)
    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        chunks, vecs = synthetic(base, vectors, n, rng)
        for engine in engines:
            if engine == "qdrant" and n > QDRANT_LOCAL_MAX:
                log(f"skipping qdrant local mode at {n}: building it takes minutes (measured 209 s at 100k)")
                rows.append({"n": n, "engine": engine, "skipped": True})
                continue
            with tempfile.TemporaryDirectory(prefix="chronicler-bench-") as tmp:
                cfg = config.model_copy(
                    update={
                        "data_dir": tmp,
                        "campaign": "bench",
                        "store": config.store.model_copy(update={"backend": engine, "path": None, "url": None}),
                    }
                )
                rows.append(_measure(cfg, embedder, chunks, vecs, n, engine, log))
    return rows


def _measure(cfg: Config, embedder, chunks, vecs, n: int, engine: str, log) -> dict:
    store = get_store(cfg)
    collection = cfg.collection()
    try:
        t0 = time.perf_counter()
        store.ensure_collection(collection, vecs.shape[1])
        for s in range(0, n, 1000):
            store.upsert(collection, chunks[s : s + 1000], vecs[s : s + 1000], ["x"] * len(chunks[s : s + 1000]))
        build = time.perf_counter() - t0
        pipeline = Pipeline(cfg, embedder=embedder, store=store)
        sessions = sorted({c.session for c in chunks if c.session is not None})
        cap = Filters(session_max=sessions[len(sessions) // 2]) if sessions else None
        row = {"n": n, "engine": engine, "build_s": round(build, 1)}
        for label, mode, filters in (
            ("dense", "dense", None),
            ("keyword", "keyword", None),
            ("hybrid", "hybrid", None),
            ("hybrid+filter", "hybrid", cap),
        ):
            one_search = {"retrieval.mode": mode, "reranker.enabled": False, "retrieval.query_expansion": False}
            searcher = pipeline.with_settings(one_search)
            searcher.search(QUESTIONS[0], filters=filters)  # warm
            times, search = [], []
            for q in QUESTIONS:
                t0 = time.perf_counter()
                result = searcher.search(q, filters=filters)
                times.append((time.perf_counter() - t0) * 1000)
                search.append(times[-1] - result.timings.get("embed", 0.0) * 1000)
            row[label] = (*p50_p95(times), round(statistics.median(search), 1))
        row["hybrid+rerank"] = _measure_rerank(cfg, embedder, store, expand=False)
        row["default"] = _measure_rerank(cfg, embedder, store, expand=True)
        log(f"{engine} n={n}: {row}")
        return row
    finally:
        store.close()


def _measure_rerank(cfg: Config, embedder, store, expand: bool) -> tuple[float, float, float]:
    """Hybrid plus the configured reranker (the shipped learned one by default) on ``RERANK_CANDIDATES``
    passages, with or without "Expand the question" (its second search): (p50, p95, p50 of the rerank step)."""
    settings = {"retrieval.mode": "hybrid", "reranker.enabled": True, "retrieval.query_expansion": expand}
    pipeline = Pipeline(cfg, embedder=embedder, store=store).with_settings(
        {**settings, "reranker.candidates": RERANK_CANDIDATES}
    )
    pipeline.search(QUESTIONS[0])  # warm: token vectors of the first passages, model
    times, rerank = [], []
    for q in QUESTIONS:
        t0 = time.perf_counter()
        result = pipeline.search(q)
        times.append((time.perf_counter() - t0) * 1000)
        rerank.append(result.timings.get("rerank", 0.0) * 1000)
    return (*p50_p95(times), round(statistics.median(rerank), 1))


def query_markdown(rows: list[dict], command: str, machine: str) -> str:
    lines = [
        "## Query latency (`bench query`)",
        "",
        f"Command: `{command}`. Machine: {machine}. Each figure is p50 / p95 in ms over "
        f"{len(QUESTIONS)} real questions, warm, through `Pipeline.search` as the app calls it, including "
        "embedding the question (dense, hybrid); in brackets the p50 without that embedding step, i.e. the "
        "engine and fusion alone. Collections above the real notes' size are synthetic (real texts and "
        'embeddings plus noise); `hybrid+filter` adds an "as of session N" cap. `hybrid+rerank` reranks '
        f"the top {RERANK_CANDIDATES} with the configured reranker (by default the shipped, offline learned one); "
        "in its brackets the rerank step alone. The other columns run one search, without reranking. `default` "
        'is the search as the app runs it out of the box: hybrid, "Expand the question" (a second search with '
        "the question plus its best passages' words) and reranking.",
        "",
        "| chunks | engine | build s | dense | keyword | hybrid | hybrid+filter | hybrid+rerank | default |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r.get("skipped"):
            lines.append(
                f"| {r['n']:,} | {r['engine']} | – | skipped: local mode is too slow to build at this size "
                "(shared/notes measured 209 s build, 270 ms dense, 2.6 s filtered) | | | | | |"
            )
            continue
        stages = ("dense", "keyword", "hybrid", "hybrid+filter", "hybrid+rerank", "default")
        cells = " | ".join(f"{r[k][0]} / {r[k][1]} ({r[k][2]})" if k in r else "–" for k in stages)
        lines.append(f"| {r['n']:,} | {r['engine']} | {r['build_s']} | {cells} |")
    lines += [
        "",
        "Targets for the embedded default (edge), one hybrid search without reranking: p50 ≤ 30 ms at 10k chunks, "
        f"≤ 50 ms at 100k; reranking {RERANK_CANDIDATES} candidates adds ≤ 300 ms.",
    ]
    return "\n".join(lines)
