"""``python -m rag <command>``: the argument parser, and flags → config. The commands are in ``rag.commands``.

Every flag that is a setting (``-k``, ``--mode``, ``--rerank``, ``--expand``, ``--set``) becomes a config
override, so a command reaches the pipeline with one config and nothing else. User errors (``rag.errors``)
print one line and exit 1; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from rag import campaign_commands, commands
from rag.config import Config, load_config
from rag.errors import ChroniclerError, disk_full, is_disk_full

CAMPAIGN_COMMANDS = ("entities", "timeline", "recap")  # rag.campaign_commands; the rest are in rag.commands


def _common(p: argparse.ArgumentParser, notes: bool = True) -> None:
    if notes:
        p.add_argument("--notes", help="notes folder (default: notes_dir from config)")
    p.add_argument("--campaign", help="campaign name (one collection each)")
    p.add_argument("--config", help="extra YAML config layered over configs/base.yaml and local.yaml")
    p.add_argument("--data", help="folder for the embedded store and runs (default: data/)")
    p.add_argument("--gm", action="store_true", help="the game master's view: GM-only notes too (default: player view)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any config value, e.g. --set retrieval.mode=hybrid (repeatable)",
    )


def _search_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("question")
    p.add_argument("-k", dest="top_k", type=int, help="how many passages (retrieval.k)")
    p.add_argument("--mode", choices=["dense", "keyword", "hybrid"], help="retrieval.mode")
    p.add_argument("--session-max", type=float, help="as of session N: nothing from later sessions")
    p.add_argument("--session-min", type=float)
    p.add_argument("--source", action="append", default=[], help="only this file (repeatable)")
    p.add_argument("--entity", action="append", default=[], help="only chunks that mention this (repeatable)")
    p.add_argument(
        "--sender", action="append", default=[], help="only e-mail from this address, name or first name (repeatable)"
    )
    p.add_argument("--subject", default="", help="only e-mail whose subject has all these words")
    p.add_argument(
        "--expand",
        type=int,
        metavar="N",
        help="also search N other phrasings: offline, the question plus its best passages' words (one); with an "
        "LLM configured, its phrasings too (retrieval.query_expansion, on by default)",
    )
    p.add_argument("--no-expand", action="store_true", help="search the question alone (retrieval.query_expansion)")
    p.add_argument("--rerank", action="store_true", help="re-order the best passages with reranker.backend")
    p.add_argument("--track", action="store_true", help="record the run under runs/")
    p.add_argument("--json", action="store_true", help="print the hits as JSON")


def _positive(text: str) -> int:
    """A whole number of at least 1, else argparse's own one-line error."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rag", description="Chronicler: ask your campaign notes.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("preprocess", help="parse and chunk notes; print what would be indexed")
    _common(p)
    p.add_argument("--json", action="store_true", help="print every chunk as JSON lines")

    p = sub.add_parser("index", help="sync a notes folder into its campaign (only changed chunks are embedded)")
    _common(p)
    p.add_argument(
        "--replace",
        action="store_true",
        help="read this folder into a campaign that holds notes read from another place (those are removed)",
    )

    p = sub.add_parser("search", help="find the passages for a question")
    _common(p, notes=False)
    _search_flags(p)

    p = sub.add_parser("run", help="answer a question from the notes, with citations, and record the run")
    _common(p, notes=False)
    _search_flags(p)

    p = sub.add_parser("eval", help="score retrieval on a question file (shared/data/README.md format)")
    _common(p)
    p.add_argument("--questions", required=True, help="JSON Lines question file")
    p.add_argument("--k", default="1,3,5,10", help="cut-offs, e.g. 1,3,5,10")
    p.add_argument("--story-dirs", action="store_true", help="each sub-folder of --notes is its own corpus")
    p.add_argument("--json", dest="json_out", help="write the full result as JSON to this file")
    p.add_argument("--label", help="a name for this configuration in docs/EVALUATION.md tables")
    p.add_argument(
        "--answers",
        action="store_true",
        help="also answer every question: refusal accuracy, citation precision, evidence in answers",
    )
    p.add_argument(
        "--numbers-only",
        action="store_true",
        help="leave the notes' words (answers, passage names, questions) out of --json: for notes not ours to copy",
    )

    p = sub.add_parser("report", help="render docs/EVALUATION.md tables from eval --json files")
    p.add_argument("files", nargs="+", help="eval JSON files, one table row each, in this order")
    p.add_argument("--section", default="retrieval", help="which section of docs/EVALUATION.md to rewrite")
    p.add_argument("--config", help=argparse.SUPPRESS)
    p.add_argument("--set", action="append", default=[], help=argparse.SUPPRESS)
    p.add_argument("--campaign", help=argparse.SUPPRESS)
    p.add_argument("--data", help=argparse.SUPPRESS)

    p = sub.add_parser("bench", help="measure speed; writes docs/BENCHMARKS.md sections")
    _common(p)
    p.add_argument("what", choices=["ingest", "ingest-large", "query", "answer"])
    p.add_argument("--copies", type=_positive, default=7, help="ingest-large: copies of the notes (CRD3 × 7 ≈ 20,000)")
    p.add_argument("--sizes", default="1000,10000,100000", help="query: collection sizes")
    p.add_argument("--engines", default="edge,qdrant", help="query: store engines to compare")
    p.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")

    p = sub.add_parser("campaigns", help="list indexed campaigns and their chunk counts")
    _common(p, notes=False)
    p = sub.add_parser("entities", help="people, places and things: names, other names, sessions they appear in")
    _common(p, notes=False)
    p.add_argument("name", nargs="?", help="one entity (or one of its other names)")
    p.add_argument("--session-max", type=float, help="as of session N: nothing from later sessions")
    p.add_argument("--limit", type=int, default=40, help="how many to list (text output)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("timeline", help="the sessions in order: dates, scenes, who first appears")
    _common(p, notes=False)
    p.add_argument("--session-max", type=float, help="as of session N: nothing from later sessions")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("recap", help='"previously on…": a cited recap of a session (default: the last one)')
    _common(p, notes=False)
    p.add_argument("--session", type=float, help="the session to recap (default: the last one)")
    p.add_argument("--to", type=float, help="recap sessions --session to --to")
    p.add_argument("--campaign-no", type=int, help='the "C2" of "C2 Session 6", when the notes have several')
    p.add_argument("--session-max", type=float, help="as of session N: nothing from later sessions")
    p.add_argument("--json", action="store_true")
    return parser


def config_from_args(args: argparse.Namespace) -> Config:
    overrides: dict = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise ChroniclerError(f"--set needs KEY=VALUE, got '{item}'.")
        overrides[key.strip()] = yaml.safe_load(value) if value else ""
    if args.campaign:
        overrides["campaign"] = args.campaign
    if args.data:
        overrides["data_dir"] = str(Path(args.data).resolve())
    if getattr(args, "notes", None):
        overrides["notes_dir"] = str(Path(args.notes).resolve())
    if getattr(args, "top_k", None):
        overrides["retrieval.k"] = args.top_k
    if getattr(args, "mode", None):
        overrides["retrieval.mode"] = args.mode
    if getattr(args, "expand", None):
        overrides["retrieval.query_expansion"] = True
        overrides["retrieval.expansion_variants"] = args.expand
    if getattr(args, "no_expand", False):
        overrides["retrieval.query_expansion"] = False
    if getattr(args, "rerank", False):
        overrides["reranker.enabled"] = True
    if getattr(args, "gm", False):
        overrides["view"] = "gm"
    return load_config(args.config, overrides)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        config = config_from_args(args)
        module = campaign_commands if args.command in CAMPAIGN_COMMANDS else commands
        return getattr(module, f"cmd_{args.command}")(config, args)
    except ChroniclerError as err:
        print(f"error: {err.one_line()}", file=sys.stderr)
        return 1
    except OSError as err:  # a full disk where no ``rag.files.writing`` named the file: still not a bug
        if not is_disk_full(err):
            raise
        print(f"error: {disk_full(err.filename or 'a file').one_line()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; run the same command again to finish (nothing is lost)", file=sys.stderr)
        return 130
