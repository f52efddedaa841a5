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

from rag.campaign.entities import entity_index
from rag.config import PROJECT_ROOT, Config
from rag.embedders import get_embedder
from rag.ingest.indexing import prepare_chunks, sync_campaign
from rag.measure.bench_answer import answer_markdown, bench_answer
from rag.measure.bench_query import bench_query, query_markdown
from rag.measure.doc_sections import DOCS, write_section
from rag.stores import get_store

DOC = DOCS / "BENCHMARKS.md"


def machine() -> str:
    """The machine a figure was measured on, its processor named: two cores of one processor indexed CRD3 at 71.5
    passages a second, two of an AMD EPYC at 27.6 (int8 arithmetic), so a figure without it cannot be compared."""
    import os

    return f"{os.cpu_count()} cores ({processor()}), Python {platform.python_version()}, {platform.machine()}"


def processor() -> str:
    """The processor's model name as the system reports it (Linux: /proc/cpuinfo), else what Python knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    return platform.processor() or "processor unknown"


def bench_ingest(config: Config, notes_dir: Path, log=print, reference: bool = True) -> dict:
    """Full index into a fresh embedded store, raw ``encode`` of the same texts, then a no-change re-index; with
    ``reference``, also a raw encode by the full-precision PyTorch runtime (``embedding.runtime: torch``), the
    yardstick the faster runtime is measured against in the same run."""
    t0 = time.perf_counter()
    chunks, skipped, notes = prepare_chunks(config, notes_dir, "bench")
    parse_s = time.perf_counter() - t0
    texts = [c.text for c in chunks]
    log(f"{len(notes)} files → {len(chunks)} chunks in {parse_s:.2f} s; people and places…")
    t0 = time.perf_counter()
    cast = entity_index(chunks)
    cast_s = time.perf_counter() - t0
    log("loading the model…")

    embedder = get_embedder(config.embedding)
    embedder.embed_batch(texts[:32])  # warm-up: first batches pay one-off costs (and wait for an int8 copy)
    log("raw encode…")
    raw_s = _raw_encode(embedder, texts, config.embedding.batch_size)

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
    result = {
        "files": first.files,
        "chunks": first.chunks,
        "skipped": len(skipped),
        "parse_chunk_s": round(parse_s, 2),
        "cast_s": round(cast_s, 2),
        "cast": len(cast),
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
        "runtime": _runtime(embedder),
        "peak_rss_mb": round(peak_rss_mb()),
    }
    if reference and getattr(embedder, "onnx", None) is not None:  # the local model on onnxruntime
        log("reference: raw encode with PyTorch at full precision…")
        torch_config = config.embedding.model_copy(update={"runtime": "torch", "precision": "full"})
        torch_embedder = get_embedder(torch_config)
        torch_embedder.embed_batch(texts[:32])
        torch_s = _raw_encode(torch_embedder, texts, config.embedding.batch_size)
        result["torch_chunks_per_s"] = round(len(texts) / torch_s, 1)
        result["speedup"] = round(raw_rate / (len(texts) / torch_s), 2)
    return result


def _runtime(embedder) -> str:
    runtime = getattr(embedder, "runtime", "")
    precision = getattr(embedder, "precision", "full")
    return f"{runtime} {precision}" if runtime == "onnx" else runtime or type(embedder).__name__


def _raw_encode(embedder, texts: list[str], batch_size: int) -> float:
    """Seconds for the model alone over every text, in one call (the local backend's own encoder)."""
    onnx = getattr(embedder, "onnx", None)
    encode = None if onnx is not None else getattr(getattr(embedder, "model", None), "encode", None)
    t0 = time.perf_counter()
    if onnx is not None:
        onnx.encode(texts, batch_size)
    elif encode:
        encode(texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False)
    else:
        embedder.embed_all(texts, batch_size)
    return time.perf_counter() - t0


def peak_rss_mb() -> float:
    """The process's peak resident memory so far, in MB (Linux reports kilobytes)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def large_vault(notes_dir: Path, target: Path, copies: int) -> Path:
    """``copies`` versions of every note of ``notes_dir`` in ``target``: each copy's lines carry its number, so
    every passage is a real passage with its own words (none is reused from another's vectors)."""
    files = [p for p in sorted(notes_dir.rglob("*.md")) if p.is_file()]
    for copy in range(copies):
        for path in files:
            out = target / f"copy {copy + 1}" / path.relative_to(notes_dir)
            out.parent.mkdir(parents=True, exist_ok=True)
            text = path.read_text(encoding="utf-8", errors="replace")
            out.write_text(_retold(text, copy + 1), encoding="utf-8")
    return target


def _retold(text: str, copy: int) -> str:
    """Every line of story (not a heading, a blank line or the front matter) ends "(retold N)"."""
    lines, front = text.splitlines(), False
    for i, line in enumerate(lines):
        if line.strip() == "---" and (i == 0 or front):
            front = i == 0
            continue
        if not front and line.strip() and not line.lstrip().startswith("#"):
            lines[i] = f"{line} (retold {copy})"
    return "\n".join(lines) + "\n"


def bench_ingest_large(config: Config, notes_dir: Path, copies: int, log=print) -> dict:
    """A vault of ``copies`` variations of the notes (~20,000 passages from CRD3 at 7): the index's rate, the
    process's peak memory, and an unchanged re-index."""
    with tempfile.TemporaryDirectory(prefix="chronicler-large-") as tmp:
        vault = large_vault(notes_dir, Path(tmp) / "vault", copies)
        result = bench_ingest(config, vault, log=log, reference=False)
    result["copies"] = copies
    return result


def ingest_markdown(r: dict, notes_dir: str, command: str) -> str:
    ok_ratio = "✅" if r["ratio"] >= 0.95 else "❌"
    ok_re = "✅" if r["reindex_s"] <= 2 else "❌"
    ok_rate = "✅" if r["chunks_per_s"] >= 60 else "❌"
    reference = ""
    if "speedup" in r:
        ok_speed = "✅" if r["speedup"] >= 1.7 else "❌"
        reference = (
            f"| raw `encode`, PyTorch at full precision (`embedding.runtime: torch`), same texts, same run | "
            f"{r['torch_chunks_per_s']} chunks/s | |\n"
            f"| this runtime ÷ PyTorch | **{r['speedup']}×** | ≥ 1.7× {ok_speed} |\n"
        )
    return f"""## Ingest (`bench ingest`)

Command: `{command}`. Machine: {machine()}. Notes: `{notes_dir}`. Store: `{r["store"]}` (embedded, on disk,
fresh temp folder). Model: {r["embedder"]} (runtime: {r["runtime"]}), batch size from config.

| measure | value | target |
|---|---|---|
| files / chunks | {r["files"]} / {r["chunks"]} ({r["skipped"]} skipped) | |
| parse + chunk | {r["parse_chunk_s"]} s | |
| people and places (the cast pages and the answerer read) | {r["cast_s"]} s, {r["cast"]} names | |
| full index (parse, chunk, embed, write) | {r["index_s"]} s, **{r["chunks_per_s"]} chunks/s** | ≥ 60 {ok_rate} |
| of which embedding | {r["embed_s"]} s | |
| raw `encode` of the same texts | {r["raw_encode_s"]} s, {r["raw_chunks_per_s"]} chunks/s | |
{reference}| pipeline / raw throughput | **{r["ratio"]}** | ≥ 0.95 {ok_ratio} |
| second `index`, nothing changed | **{r["reindex_s"]} s**, {r["reindex_embedded"]} chunks embedded | ≤ 2 s {ok_re} |
| peak memory of the process | {r["peak_rss_mb"]} MB | |
"""


def large_markdown(r: dict, notes_dir: str, command: str) -> str:
    ok_rss = "✅" if r["peak_rss_mb"] <= 1536 else "❌"
    ok_re = "✅" if r["reindex_s"] <= 10 else "❌"
    return f"""## A large vault (`bench ingest-large`)

Command: `{command}`. Machine: {machine()}. Vault: {r["copies"]} copies of `{notes_dir}`, every line of story of
copy N ending "(retold N)", so every passage has words of its own. Store: `{r["store"]}` (embedded, on disk, fresh
temp folder). Model: {r["embedder"]} (runtime: {r["runtime"]}).

| measure | value | target |
|---|---|---|
| files / passages | {r["files"]} / {r["chunks"]} | ~20,000 |
| full index | {r["index_s"]} s, **{r["chunks_per_s"]} passages/s** | |
| pipeline / raw throughput | {r["ratio"]} | |
| peak memory of the process (model, store, passages) | **{r["peak_rss_mb"]} MB** | ≤ 1,536 MB {ok_rss} |
| second `index`, nothing changed | **{r["reindex_s"]} s**, {r["reindex_embedded"]} passages embedded | ≤ 10 s {ok_re} |
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
    elif args.what == "ingest-large":
        result = bench_ingest_large(config, notes_dir, args.copies, log=log)
        md = large_markdown(result, _display_path(notes_dir), command)
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
