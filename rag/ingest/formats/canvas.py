"""Obsidian canvases (``.canvas``, the JSON Canvas format: jsoncanvas.org) as Markdown notes.

Players lay out a backstory, a theory board or a faction map as cards on a canvas: each text card is Markdown
written in Obsidian, and a group's label names the cards inside it. The cards are read group by group (a group's
label as a heading, so it names their passages), each in reading order (top to bottom, then left to right);
cards in no group come first. File cards (an embedded note, read on its own) and web cards hold no text of the
canvas, and are left out.
"""

from __future__ import annotations

import json

from rag.config import NotesConfig
from rag.ingest.formats import Unreadable, short_error
from rag.ingest.formats.web import markdown_note
from rag.models import Note


def _box(node: dict) -> tuple[float, float, float, float]:
    x, y = float(node.get("x") or 0), float(node.get("y") or 0)
    return x, y, x + float(node.get("width") or 0), y + float(node.get("height") or 0)


def _inside(card: dict, group: dict) -> bool:
    """The card's centre lies within the group's box: how Obsidian moves a card with its group."""
    x0, y0, x1, y1 = _box(card)
    g0, h0, g1, h1 = _box(group)
    return g0 <= (x0 + x1) / 2 <= g1 and h0 <= (y0 + y1) / 2 <= h1


def _area(node: dict) -> float:
    x0, y0, x1, y1 = _box(node)
    return (x1 - x0) * (y1 - y0)


def _reading_order(node: dict) -> tuple[float, float]:
    x0, y0, _, _ = _box(node)
    return y0, x0


def canvas_to_markdown(data: bytes) -> str:
    nodes = [n for n in json.loads(data.decode("utf-8-sig")).get("nodes") or [] if isinstance(n, dict)]
    groups = sorted((n for n in nodes if n.get("type") == "group"), key=_reading_order)
    cards = [n for n in nodes if n.get("type") == "text" and str(n.get("text") or "").strip()]
    loose: list[dict] = []  # cards in no group
    grouped: dict[int, list[dict]] = {}  # a group's place in ``groups`` → its cards (the smallest group holding one)
    for card in cards:
        holding = [i for i, g in enumerate(groups) if _inside(card, g)]
        (grouped.setdefault(min(holding, key=lambda i: _area(groups[i])), []) if holding else loose).append(card)
    parts = [str(card["text"]).strip() for card in sorted(loose, key=_reading_order)]
    for i in sorted(grouped):
        if label := " ".join(str(groups[i].get("label") or "").split()):
            parts.append(f"## {label}")
        parts.extend(str(card["text"]).strip() for card in sorted(grouped[i], key=_reading_order))
    return "\n\n".join(parts) + "\n"


def read_canvas(data: bytes, source: str, config: NotesConfig) -> Note:
    try:
        markdown = canvas_to_markdown(data)
    except Exception as err:  # not JSON, or not a canvas: one odd file must not stop the run
        raise Unreadable(f"not readable as an Obsidian canvas: {short_error(err)}") from None
    return markdown_note(markdown, source, config, "markdown")
