"""``python -m rag entities | timeline | recap``: the campaign as players remember it, on the command line.

Kept apart from ``rag.commands`` (searching, answering, measuring) so each stays readable; ``rag.cli`` calls
both. Like every command they show the player view unless ``--gm`` is given, and ``--session-max N`` keeps
later sessions out.
"""

from __future__ import annotations

import argparse

from rag.campaign.entities import resolve, session_label
from rag.campaign.timeline import SessionEntry
from rag.commands import print_json
from rag.config import Config
from rag.errors import ChroniclerError
from rag.models import Filters
from rag.pipeline import Pipeline


def _cap(args: argparse.Namespace) -> Filters:
    return Filters(session_max=args.session_max)


def cmd_entities(config: Config, args: argparse.Namespace) -> int:
    pipeline = Pipeline(config)
    try:
        pipeline.require_campaign()
        entities = pipeline.entities(filters=_cap(args))
    finally:
        pipeline.close()
    if args.name:
        entity = resolve(entities, args.name)
        if entity is None:
            raise ChroniclerError(f"No one and nothing called '{args.name}' is linked or named in the notes.")
        entities = [entity]
    rows = [
        {
            "name": e.name,
            "aliases": e.aliases,
            "kind": e.kind or ("named" if e.unlinked else "linked"),
            "page": e.page,
            "mentions": e.mentions,
            "first_session": session_label(e.first_session) if e.first_session else None,
            "last_session": session_label(e.last_session) if e.last_session else None,
            "sessions": [session_label(s) for s in e.sessions],
        }
        for e in entities
    ]
    if args.json:
        print_json(rows)
        return 0
    for r in rows[: args.limit]:
        seen = f"{r['first_session']} – {r['last_session']}" if r["first_session"] else "no session"
        aka = f" (also {', '.join(r['aliases'][:3])})" if r["aliases"] else ""
        print(f"{r['name']}{aka}\t{r['kind']}\t{r['mentions']} passages\t{seen}")
    return 0


def _entry(e: SessionEntry) -> dict:
    return {
        "session": e.label,
        "title": e.title,
        "date": e.date,
        "played": e.played.isoformat() if e.played else None,
        "world_date": e.world_date,
        "scenes": e.scenes,
        "first_seen": e.first_seen,
        "notes": e.sources,
        "passages": e.passages,
    }


def cmd_timeline(config: Config, args: argparse.Namespace) -> int:
    pipeline = Pipeline(config)
    try:
        pipeline.require_campaign()
        entries = pipeline.timeline(filters=_cap(args))
    finally:
        pipeline.close()
    if args.json:
        print_json([_entry(e) for e in entries])
        return 0
    for e in entries:
        when = " · ".join(x for x in (e.played.isoformat() if e.played else e.date, e.world_date) if x)
        title = f" {e.title}" if e.title else ""
        print(f"{e.label}{title}{f' ({when})' if when else ''}: {', '.join(e.scenes) or 'no scenes'}")
        if e.first_seen:
            print(f"  first seen: {', '.join(e.first_seen)}")
    return 0


def cmd_recap(config: Config, args: argparse.Namespace) -> int:
    pipeline = Pipeline(config)
    try:
        pipeline.require_campaign()
        entries = pipeline.timeline(filters=_cap(args))
        wanted = _sessions(entries, args)
        lines = pipeline.recap([e.key for e in wanted], filters=_cap(args))
    finally:
        pipeline.close()
    if args.json:
        print_json([{"text": x.text, "cite": x.label, "session": session_label(x.session)} for x in lines])
        return 0
    print(f"Previously on {', '.join(e.label for e in wanted)}:" if len(wanted) < 4 else "Previously:")
    for x in lines:
        print(f"- {x.text} [{x.label}]")
    return 0


def _sessions(entries: list[SessionEntry], args: argparse.Namespace) -> list[SessionEntry]:
    """The sessions asked for: ``--session N`` (the last one when omitted), up to ``--to M``."""
    if not entries:
        raise ChroniclerError("There are no numbered session notes to recap.")
    first = args.session if args.session is not None else entries[-1].key[1]
    last = args.to if args.to is not None else first
    wanted = [e for e in entries if first <= e.key[1] <= last and (args.campaign_no in (None, e.key[0]))]
    if not wanted:
        known = ", ".join(e.label for e in entries[-5:])
        raise ChroniclerError(
            f"No session {first:g}{f'–{last:g}' if last != first else ''} in the notes (the last ones: {known})."
        )
    return wanted
