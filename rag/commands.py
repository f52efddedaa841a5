"""The CLI's commands. Each takes the merged Config and the parsed flags and returns an exit code.

``rag.cli`` parses and turns every setting flag into the config; the commands here only read the flags that
are not settings (the question, filters, output format) and call the ``Pipeline``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections import Counter
from pathlib import Path

from rag.config import Config, slug
from rag.errors import ChroniclerError, NotesError
from rag.ingest.indexing import prepare_chunks
from rag.ingest.uploads import known_campaigns, remember_source, replaced_source
from rag.measure import bench
from rag.measure.answer_eval import format_answers, run_answer_eval
from rag.measure.evaluation import format_table, run_eval
from rag.measure.provenance import commit, config_difference
from rag.measure.report import render_eval_doc
from rag.models import Filters
from rag.pipeline import IndexProgress, Pipeline
from rag.tracking import record_run


def progress_bar(label: str):
    """A one-line text progress bar on stderr: passages read / total, the note being read and the time left.
    ``update.last`` holds the last ``IndexProgress`` (what a stopped run kept)."""
    state = {"last": -1.0, "width": 0}
    interactive = sys.stderr.isatty()

    def update(step: IndexProgress) -> None:
        update.last = step
        done, total = step.done, step.total
        if total <= 0:
            return
        now = time.monotonic()
        if done < total and now - state["last"] < (0.2 if interactive else 5):
            return
        state["last"] = now
        width = 30
        filled = int(width * done / total)
        line = f"{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
        if step.already:
            line += f" ({step.already} already read)"
        line += "".join(f" · {part}" for part in (step.doing(), step.time_left()) if part and done < total)
        padded = line.ljust(state["width"]) if interactive else line  # cover a longer line before it
        state["width"] = len(line)
        print(
            ("\r" if interactive else "") + padded,
            end="" if interactive and done < total else "\n",
            file=sys.stderr,
            flush=True,
        )

    update.last = None
    return update


def cmd_preprocess(config: Config, args: argparse.Namespace) -> int:
    notes_dir = config.resolve(config.notes_dir)
    chunks, skipped, notes = prepare_chunks(config, notes_dir, config.campaign)
    hidden = hidden_skips = 0
    if config.view == "player":  # what a player would be shown, GM-only file names included; --gm shows everything
        hidden = sum(c.visibility == "gm" for c in chunks)
        chunks = [c for c in chunks if c.visibility == "player"]
        notes = [n for n in notes if n.visibility == "player"]
        hidden_skips = sum(s.visibility == "gm" for s in skipped)
        skipped = [s for s in skipped if s.visibility == "player"]
    if args.json:
        for c in chunks:
            print(json.dumps(c.payload(), ensure_ascii=False))
        return 0
    sessions = sorted({c.session for c in chunks if c.session is not None})
    kinds = Counter(n.kind for n in notes)
    print(f"{len(notes)} notes, {len(chunks)} chunks from {notes_dir}")
    if hidden:
        print(f"GM only: {hidden} chunks not shown in the player view (--gm shows them)")
    print(f"sessions: {len(sessions)}" + (f" ({sessions[0]}–{sessions[-1]})" if sessions else ""))
    print("kinds: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    entities = Counter(e for c in chunks for e in c.entities)
    print(f"entities: {len(entities)}; most mentioned: " + ", ".join(e for e, _ in entities.most_common(8)))
    for n in notes:
        for w in n.warnings:
            print(f"warning: {n.source}: {w}")
    for s in skipped:
        print(f"skipped: {s.source}: {s.reason}")
    if hidden_skips:
        print(f"skipped: {hidden_skips} GM-only files not listed in the player view (--gm lists them)")
    return 0


def cmd_index(config: Config, args: argparse.Namespace) -> int:
    notes_dir = config.resolve(config.notes_dir)
    if not notes_dir.is_dir():
        raise NotesError(f"The notes folder {notes_dir} does not exist.")
    pipeline = Pipeline(config)
    try:
        _ = pipeline.store  # fail fast on a locked store, before the slow model load
        refuse_to_replace(config, pipeline, notes_dir, args)
        print(f"Indexing {notes_dir} into campaign '{config.campaign}'; loading the model…", file=sys.stderr)
        _ = pipeline.embedder
        bar = progress_bar("embedding")
        try:
            report = pipeline.index(progress=bar)
        except KeyboardInterrupt:
            if bar.last is None or not bar.last.total:
                raise
            kept = bar.last
            print(
                f"\nstopped: {kept.done} of {kept.total} passages read and kept; run the same command again "
                "to read the rest",
                file=sys.stderr,
            )
            return 130
    finally:
        pipeline.close()
    remember_source(config, config.campaign, notes_dir)  # the app then shows the name as typed here
    for f in report.per_file:
        if f.status == "skipped" or f.reason:
            print(f"{f.status}: {f.source}: {f.reason}")
    if report.gm_rules:
        rules = ", ".join(f"{rule} {n}" for rule, n in sorted(report.gm_rules.items()))
        print(f"GM only: {report.gm_only} passages ({rules}); the player view never shows them")
    print(report.summary() + f" (embedded {report.embedded} in {report.embed_seconds:.1f} s)")
    return 0


def refuse_to_replace(config: Config, pipeline: Pipeline, notes_dir: Path, args: argparse.Namespace) -> None:
    """A campaign mirrors one place: reading another folder into it removes the notes read before. Unless
    ``--replace`` says so, that is refused with what would be lost, as the Ingest page asks before it does so."""
    known = replaced_source(config, config.campaign, notes_dir)
    if known is None or args.replace:
        return
    passages = pipeline.passage_count()
    if passages:
        raise NotesError(
            f"Campaign '{config.campaign}' holds {passages} passages read from {known}; reading {notes_dir} would "
            "replace them. Add --replace to do so, or --campaign NAME to read it into a campaign of its own."
        )


def _hits_table(hits) -> str:
    rows = [("rank", "score", "session", "name", "first line")]
    for h in hits:
        first = h.chunk.text.splitlines()[0] if h.chunk.text else ""
        session = "" if h.chunk.session is None else f"{h.chunk.session:g}"
        name = h.chunk.name + (" [GM only]" if h.chunk.visibility == "gm" else "")
        rows.append((str(h.rank), f"{h.score:.3f}", session, name, first[:70]))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join("  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in rows)


def cmd_search(config: Config, args: argparse.Namespace) -> int:
    pipeline = Pipeline(config)
    try:
        result = pipeline.search(args.question, filters=filters_from_args(args))
    finally:
        pipeline.close()
    if args.track or config.tracking.enabled:
        folder = record_run(
            config,
            args.question,
            {
                "hits.json": [h.as_dict() for h in result.candidates],
                "timings.json": result.timings,
            },
        )
        print(f"run recorded in {folder}", file=sys.stderr)
    for line in result.notices:  # a stage left out or failed (re-reading with the language model), and what was done
        print(f"note: {line}", file=sys.stderr)
    if args.json:
        print_json(
            {
                "question": result.question,
                "mode": result.mode,
                "queries": result.queries,
                "hits": [h.as_dict() for h in result.hits],
            }
        )
        return 0
    for extra in result.queries[1:]:
        print(f"also searched: {extra}")
    print(_hits_table(result.hits) if result.hits else "No passages matched.")
    return 0


def cmd_run(config: Config, args: argparse.Namespace) -> int:
    """Answer with citations and record the run (question, rewrite, hits, prompt, answer, citations)."""
    pipeline = Pipeline(config)
    try:
        result = pipeline.answer(args.question, filters=filters_from_args(args))
        folder = pipeline.record(result)
    finally:
        pipeline.close()
    print(f"run recorded in {folder}", file=sys.stderr)
    # the language model did not answer (this is the offline answer), a stage left out or failed: what was done
    for line in dict.fromkeys([result.trace.get("fallback"), *result.trace.get("notices", [])]):
        if line:
            print(f"note: {line}", file=sys.stderr)
    if result.respelt:  # a name the notes write only another way
        print(f"note: read as your notes spell it: {result.read_as}", file=sys.stderr)
    if args.json:
        print_json(
            {
                "question": result.question,
                "read_as": result.read_as,
                "answer": result.text,
                "notices": result.trace.get("notices", []),
                "refused": result.refused,
                "confidence": result.confidence,
                "citations": [vars(c) for c in result.citations],
                "hits": [h.as_dict() for h in result.hits],
            }
        )
        return 0
    print(result.text)
    print(f"\nconfidence: {result.confidence}")
    cited = {c.chunk_id for c in result.citations if c.chunk_id}
    for h in result.hits:
        if h.chunk.id in cited:
            first = " ".join(h.chunk.text.split())
            print(f"{h.chunk.label} {h.chunk.source}: {first[:100]}{'…' if len(first) > 100 else ''}")
    return 0


def cmd_campaigns(config: Config, args: argparse.Namespace) -> int:
    pipeline = Pipeline(config)
    try:
        found = pipeline.campaigns()
    finally:
        pipeline.close()
    if not found:
        print("No campaigns indexed yet. Run: python -m rag index --notes DIR --campaign NAME")
    names = {slug(name): name for name in known_campaigns(config)}  # as typed in the app or with --campaign
    for stored, count in found.items():
        name = names.get(stored, stored)
        print(f"{name}{f' ({stored})' if name != stored else ''}\t{count} passages")
    return 0


def cmd_eval(config: Config, args: argparse.Namespace) -> int:
    try:
        ks = [int(k) for k in args.k.split(",") if k.strip()]
    except ValueError:
        raise ChroniclerError(f"--k takes whole numbers separated by commas, got '{args.k}'.") from None
    if not ks or min(ks) < 1:
        raise ChroniclerError("--k needs at least one cut-off of 1 or more.")
    pipeline = Pipeline(config)
    try:
        result = run_eval(
            pipeline,
            config.resolve(config.notes_dir),
            args.questions,
            ks=ks,
            story_dirs=args.story_dirs,
            log=lambda s: print(s, file=sys.stderr),
        )
        if getattr(args, "answers", False):
            answers = run_answer_eval(
                pipeline,
                config.resolve(config.notes_dir),
                args.questions,
                story_dirs=args.story_dirs,
                log=lambda s: print(s, file=sys.stderr),
            )
            result["overall"].update(answers["overall"])
            result["answers"] = answers
    finally:
        pipeline.close()
    result["label"] = args.label or config.retrieval.mode
    result["command"] = "python -m rag " + " ".join(shlex.quote(a) for a in args.argv)
    result["commit"] = commit()
    result["config_difference"] = config_difference(config)
    print(format_table(result))
    if "answers" in result:
        print(format_answers(result["answers"]))
    if getattr(args, "numbers_only", False):
        result = without_words(result)
    if args.json_out:
        Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json_out).write_text(json.dumps(result, indent=2), encoding="utf-8")
        print(f"wrote {args.json_out}", file=sys.stderr)
    return 0


WORDS = ("question", "answer", "top")  # per-question fields that hold the notes' (or the questions') words


def without_words(result: dict) -> dict:
    """The eval result with numbers only: the held-out vault's notes are not ours to copy into this repository."""
    out = {**result, "per_question": [{k: v for k, v in r.items() if k not in WORDS} for r in result["per_question"]]}
    if "answers" in result:
        rows = result["answers"]["per_question"]
        out["answers"] = {
            **result["answers"],
            "per_question": [{k: v for k, v in r.items() if k not in WORDS} for r in rows],
        }
    return out


def cmd_report(config: Config, args: argparse.Namespace) -> int:
    print(render_eval_doc([Path(f) for f in args.files], args.section))
    return 0


def cmd_bench(config: Config, args: argparse.Namespace) -> int:
    return bench.run(config, args)


def filters_from_args(args: argparse.Namespace) -> Filters:
    try:
        return Filters(
            session_min=args.session_min,
            session_max=args.session_max,
            sources=tuple(args.source),
            entities=tuple(args.entity),
            senders=tuple(args.sender),
            subject=args.subject,
        )
    except ValueError as err:
        raise ChroniclerError(str(err)) from None


def print_json(data) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))
