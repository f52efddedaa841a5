"""``python -m rag bench``: speed numbers that live in docs/BENCHMARKS.md, never in timed tests.

Each benchmark rewrites only its own section of the document (between ``<!-- bench:NAME -->`` markers),
so benchmarks run at different times don't erase each other.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

from rag.config import PROJECT_ROOT, Config
from rag.embedders import get_embedder
from rag.ingest.indexing import prepare_chunks, sync_campaign
from rag.measure.bench_answer import answer_markdown, bench_answer
from rag.measure.bench_query import bench_query, query_markdown
from rag.measure.doc_sections import DOCS, write_section
from rag.stores import get_store

DOC = DOCS / "BENCHMARKS.md"


def machine() -> str:
    import os

    return f"{os.cpu_count()} cores, Python {platform.python_version()}, {platform.machine()}"


def bench_ingest(config: Config, notes_dir: Path, log=print) -> dict:
    """Full index into a fresh embedded store, raw ``encode`` of the same texts, then a no-change re-index."""
    t0 = time.perf_counter()
    chunks, skipped, notes = prepare_chunks(config, notes_dir, "bench")
    parse_s = time.perf_counter() - t0
    texts = [c.text for c in chunks]
    log(f"{len(notes)} files → {len(chunks)} chunks in {parse_s:.2f} s; loading the model…")

    embedder = get_embedder(config.embedding)
    embedder.embed_batch(texts[:32])  # warm-up: first batches pay one-off costs
    onnx = getattr(embedder, "onnx", None)  # the local backend's runtime: one call over every text
    encode = None if onnx is not None else getattr(getattr(embedder, "model", None), "encode", None)
    log("raw encode…")
    t0 = time.perf_counter()
    if onnx is not None:
        onnx.encode(texts, config.embedding.batch_size)
    elif encode:
        encode(texts, batch_size=config.embedding.batch_size, normalize_embeddings=True, show_progress_bar=False)
    else:
        embedder.embed_all(texts, config.embedding.batch_size)
    raw_s = time.perf_counter() - t0

    with tempfile.TemporaryDirectory(prefix="chronicler-bench-") as tmp:
        cfg = config.model_copy(update={"data_dir": tmp, "store": config.store.model_copy(update={"path": None})})
        store = get_store(cfg)
        try:
            log("pipeline index…")
            t0 = time.perf_counter()
            first = sync_campaign(cfg, notes_dir, embedder, store, campaign="bench")
            index_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            second = sync_campaign(cfg, notes_dir, embedder, store, campaign="bench")
            reindex_s = time.perf_counter() - t0
        finally:
            store.close()
    raw_rate = len(texts) / raw_s
    rate = first.chunks / index_s
    return {
        "files": first.files,
        "chunks": first.chunks,
        "skipped": len(skipped),
        "parse_chunk_s": round(parse_s, 2),
        "index_s": round(index_s, 1),
        "embed_s": round(first.embed_seconds, 1),
        "chunks_per_s": round(rate, 1),
        "raw_encode_s": round(raw_s, 1),
        "raw_chunks_per_s": round(raw_rate, 1),
        "ratio": round(rate / raw_rate, 3),
        "reindex_s": round(reindex_s, 2),
        "reindex_embedded": second.embedded,
        "store": config.store.backend,
        "embedder": embedder.name,
    }


def ingest_markdown(r: dict, notes_dir: str, command: str) -> str:
    ok_ratio = "✅" if r["ratio"] >= 0.85 else "❌"
    ok_re = "✅" if r["reindex_s"] <= 2 else "❌"
    return f"""## Ingest (`bench ingest`)

Command: `{command}`. Machine: {machine()}. Notes: `{notes_dir}`. Store: `{r["store"]}` (embedded, on disk,
fresh temp folder). Model: {r["embedder"]}, batch size from config.

| measure | value | target |
|---|---|---|
| files / chunks | {r["files"]} / {r["chunks"]} ({r["skipped"]} skipped) | |
| parse + chunk | {r["parse_chunk_s"]} s | |
| full index (parse, chunk, embed, write) | {r["index_s"]} s, **{r["chunks_per_s"]} chunks/s** | |
| of which embedding | {r["embed_s"]} s | |
| raw `encode` of the same texts | {r["raw_encode_s"]} s, {r["raw_chunks_per_s"]} chunks/s | |
| pipeline / raw throughput | **{r["ratio"]}** | ≥ 0.85 {ok_ratio} |
| second `index`, nothing changed | **{r["reindex_s"]} s**, {r["reindex_embedded"]} chunks embedded | ≤ 2 s {ok_re} |
"""


def run(config: Config, args: argparse.Namespace) -> int:
    notes_dir = config.resolve(config.notes_dir)
    command = (
        "python -m rag " + " ".join(sys.argv[1:]) if sys.argv[0].endswith("__main__.py") else "python -m rag bench"
    )
    log = lambda s: print(s, file=sys.stderr)  # noqa: E731
    if args.what == "ingest":
        result = bench_ingest(config, notes_dir, log=log)
        md = ingest_markdown(result, _display_path(notes_dir), command)
    elif args.what == "answer":
        md = answer_markdown(bench_answer(config, notes_dir, log=log), _display_path(notes_dir), command, machine())
    else:
        sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
        engines = [x.strip() for x in args.engines.split(",") if x.strip()]
        md = query_markdown(bench_query(config, notes_dir, sizes, engines, log=log), command, machine())
    print(md)
    if not args.no_write:
        write_section(DOC, f"bench:{args.what}", md, "Benchmarks")
        print(f"updated {DOC}", file=sys.stderr)
    return 0


def _display_path(path: Path) -> str:
    try:
        return str(path.relative_to(PROJECT_ROOT.parent))
    except ValueError:
        return str(path)
