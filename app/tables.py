"""Hits, passages and index reports as pandas frames, for the pages' tables (and the charts' labels).

Kept out of the pages so the numbers behind every table can be unit-tested without a browser, and so the
pages stay layout only. A stage that did not run (or did not see a chunk) is ``<NA>``, never 0: a zero would
read as "scored badly" when the truth is "was not asked".
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

import pandas as pd

from rag.config import RetrievalConfig
from rag.models import Chunk, Hit, format_session
from rag.models.dates import first_day
from rag.pipeline import IndexReport

STAGES = ("dense", "keyword", "context", "first_mention", "links", "fused", "expansion", "rerank")
STAGE_LABELS = {
    "dense": "Meaning (dense)",
    "keyword": "Exact words (keyword)",
    "context": "Exact words nearby (keyword, with neighbouring passages)",
    "first_mention": "First or last mention (the earliest, or latest, passages naming who you asked about)",
    "links": "Linked from a matching page (a session passage that links it)",
    "fused": "Combined (fused)",
    "expansion": "Other wordings (Expand the question)",
    "rerank": "Reranked",
}
# What each first stage means to a player: the labels of the "why each passage" chart (app.charts.why_figure).
MATCH_LABELS = {
    "keyword": "matched names and words",
    "dense": "matched meaning",
    "context": "matched the text around it",
    "first_mention": "first (or last) time it is named",
    "links": "linked from a matching page",
    "expansion": "matched other wordings of your question",
}
MODE_STAGES = {"dense": ("dense",), "keyword": ("keyword",), "hybrid": ("dense", "keyword", "fused")}
SHOWN, BELOW, BEYOND = "shown", "below threshold", "not in top-k"
NO_SESSION = "no session"
EMPTY_NAMED = 3  # notes with nothing written in them, named in the Ingest page's line; more are counted


def session_label(session) -> str:
    return format_session(session) or NO_SESSION


def stages_run(mode: str, hits: Sequence[Hit] = ()) -> tuple[str, ...]:
    """The stages a retrieval ran: from its mode, plus any extra stage the hits carry (a reranker)."""
    ran = list(MODE_STAGES.get(mode, ()))
    for stage in STAGES:
        if stage not in ran and any(stage in h.scores for h in hits):
            ran.append(stage)
    return tuple(s for s in STAGES if s in ran)


def hit_status(hit: Hit, shown_ids: set[str]) -> str:
    if hit.chunk.id in shown_ids:
        return SHOWN
    return BEYOND if hit.kept else BELOW


def hits_frame(candidates: Sequence[Hit], shown: Sequence[Hit] | None = None) -> pd.DataFrame:
    """One row per candidate: rank, where it comes from, every stage's score, and why it is (not) shown."""
    shown_ids = {h.chunk.id for h in (candidates if shown is None else shown)}
    rows = []
    for h in candidates:
        c = h.chunk
        row = {
            "rank": h.rank,
            "session": session_label(c.session),
            "name": c.name,
            "heading": c.heading,
            "source": c.source,
        }
        row.update({stage: h.scores.get(stage) for stage in STAGES})
        row.update({"searched": h.searched, "score": h.score, "status": hit_status(h, shown_ids)})
        row.update({"found by": h.variant, "text": c.text})
        rows.append(row)
    columns = [
        "rank",
        "session",
        "name",
        "heading",
        "source",
        *STAGES,
        "searched",
        "score",
        "status",
        "found by",
        "text",
    ]
    frame = pd.DataFrame(rows, columns=columns)
    for stage in (*STAGES, "searched", "score"):
        frame[stage] = pd.array(frame[stage].tolist(), dtype="Float64")
    frame["rank"] = frame["rank"].astype("Int64")
    return frame


def session_sort_key(label: str) -> tuple[int, float]:
    try:
        return (0, float(label))
    except ValueError:
        return (1, 0.0)


FILE_TYPE_LABELS = {"markdown": "notes", "pdf": "PDF", "email": "e-mail", "html": "web page", "docx": "Word"}


def _status(f) -> str:
    """What happened to a file, and whether the GM rules closed it ("skipped, GM only": an empty prep file; "empty,
    GM only": a prep note read with nothing to search in it, so nothing was indexed)."""
    if f.visibility != "gm":
        return f.status
    return f"{f.status}, GM only" if f.status in ("skipped", "deleted", "empty") else "indexed, GM only"


def report_frame(report: IndexReport, view: str = "player") -> pd.DataFrame:
    """One row per file: what it was read as (PDF pages, passages) or why it was skipped. The player view
    leaves GM-only notes out (their number is said above the table); the GM view marks them and counts each
    file's GM-only passages."""
    rows = [
        {
            "file": f.source,
            "read as": FILE_TYPE_LABELS.get(f.file_type, f.file_type),
            "status": _status(f),
            "pages": f.pages,
            "passages": f.chunks if view == "gm" else f.chunks - f.gm_only,  # what this view can read
            "added": f.added,
            "updated": f.updated,
            "deleted": f.deleted,
            "note": f.reason,
            "GM only": f.gm_only,
        }
        for f in report.per_file
        if view == "gm" or f.visibility == "player"
    ]
    columns = ["file", "read as", "status", "pages", "passages", "added", "updated", "deleted", "note"]
    columns += ["GM only"] if view == "gm" and report.gm_only else []
    frame = pd.DataFrame(rows, columns=columns)
    frame["pages"] = frame["pages"].astype("Int64")  # <NA> for files without pages, never 0
    return without_empty(frame, keep=("file", "status", "passages"))


def without_empty(frame: pd.DataFrame, keep: Sequence[str] = ()) -> pd.DataFrame:
    """The table without the columns that say nothing for these rows (a "pages" column of notes with no PDF, an
    "in the story" column of notes with no world date): an empty column reads as missing data, or "None"."""
    empty = [
        c
        for c in frame.columns
        if c not in keep and frame[c].map(lambda v: v is None or v is pd.NA or v == "" or v != v).all()
    ]
    return frame.drop(columns=empty)


def chunk_session(chunk: Chunk) -> str:
    """The session and where its number came from ("12 (from subject)"); without one, where the passage is
    from instead of a bare "no session": the mail's sender and date, the folder of a page ("no session: a page in
    NPCs", "a PDF in Handouts"), or the file. The preview shows one file's passages, so its name would only say it
    again."""
    if chunk.session is not None:
        origin = f" (from {chunk.session_from})" if chunk.session_from else ""
        return format_session(chunk.session) + origin
    if chunk.sender:
        return f"{NO_SESSION}: mail from {chunk.sender}" + (f", {chunk.date}" if chunk.date else "")
    in_folder = "/" in chunk.source  # its kind is that folder's name; a top-level file is named
    return f"{NO_SESSION}: " + (f"{_A_FILE[chunk.file_type]} in {chunk.kind}" if in_folder else chunk.source)


# What a file is called in "no session: a PDF in Handouts": a PDF's "page" column holds its pages, so "a page in
# Handouts" read as one of them
_A_FILE = {"markdown": "a page", "pdf": "a PDF", "email": "a mail", "html": "a web page", "docx": "a document"}


def chunks_frame(chunks: Sequence[Chunk]) -> pd.DataFrame:
    rows = [
        {
            "#": c.position + 1,
            "name": c.name,
            "session": chunk_session(c),
            "page": c.page,
            "heading": c.heading,
            "lines": f"{c.line_start}–{c.line_end}",
            "entities": ", ".join(c.entities),
            "text": c.text,
            "GM only": c.secret_by,
        }
        for c in chunks
    ]
    columns = ["#", "name", "session", "page", "heading", "lines", "entities", "text"]
    columns += ["GM only"] if any(c.secret_by for c in chunks) else []  # only the GM view has GM-only passages
    frame = pd.DataFrame(rows, columns=columns)
    frame["page"] = frame["page"].astype("Int64")
    return without_empty(frame, keep=("#", "name", "text"))


def files_frame(chunks: Sequence[Chunk]) -> pd.DataFrame:
    """One row per indexed file: the overview a group checks after adding notes."""
    per: dict[str, dict] = {}
    for c in chunks:
        row = per.setdefault(
            c.source,
            {
                "file": c.source,
                "session": session_label(c.session),
                "kind": c.kind,
                "passages": 0,
                "entities": set(),
            },
        )
        row["passages"] += 1
        row["entities"].update(c.entities)
    rows = [{**r, "entities": len(r["entities"])} for r in per.values()]
    rows.sort(key=lambda r: (session_sort_key(r["session"]), r["file"]))
    return pd.DataFrame(rows, columns=["file", "session", "kind", "passages", "entities"])


def sessions_of(chunks: Sequence[Chunk]) -> list:
    return sorted({c.session for c in chunks if c.session is not None})


def session_days(chunks: Sequence[Chunk]) -> dict:
    """Session → the day it was played ("2023-04-01"), where its notes say so (a front matter ``date:``, or a
    note named by its date): players who name their notes by the day know a session by it, not by its number."""
    written: dict = {}  # each note's date once, not each passage's: the sidebar runs this on every rerun
    for c in chunks:
        if c.session is not None and c.note_date:
            written.setdefault(c.session, set()).add(c.note_date)
    days = {session: first_day(dates) for session, dates in written.items()}
    return {session: day.isoformat() for session, day in days.items() if day is not None}


def gm_marking(report: IndexReport, view: str, gm_view: bool = True) -> str:
    """What the secret rules marked in this run, so a GM can check before sharing the app with the table.
    ``gm_view``: whether this app has a GM view to list the hidden files in (only once a passphrase is set); a
    sidebar entry that does not exist is no place to send anyone."""
    rules = ", ".join(f"{rule} {n}" for rule, n in sorted(report.gm_rules.items()))
    are = "passage is" if report.gm_only == 1 else "passages are"
    text = f"**{report.gm_only} {are} GM only**: the player view never shows them (marked by: {rules})."
    whole = sum(f.visibility == "gm" for f in report.per_file)
    if view == "player" and whole:
        where = (
            "the GM view (sidebar → Game master) lists them"
            if gm_view
            else "a GM view lists them once a GM passphrase is set (docs/SECRETS.md)"
        )
        files = "1 file is" if whole == 1 else f"{whole} files are"
        text += f" {files} GM only as a whole and left out of the table below; {where}."
    return text


def contributions(hit: Hit, retrieval: RetrievalConfig, mode: str) -> dict[str, float]:
    """How much each first stage gave this passage's combined score (``MATCH_LABELS`` keys). In the combined
    search a stage gives ``weight / (rrf_k + its rank)`` and a linking page its bonus, scaled together to the
    passage's combined score; with one stage, its score is all there is (a negative similarity gives nothing)."""
    if mode != "hybrid":
        stage = "dense" if mode == "dense" else "keyword"
        return {stage: max(hit.scores.get(stage, 0.0), 0.0)}
    weights = {
        "dense": retrieval.dense_weight,
        "keyword": retrieval.keyword_weight,
        "context": retrieval.context_weight,
        "first_mention": retrieval.first_mention_weight,
    }
    out = {s: w / (retrieval.rrf_k + hit.ranks[s]) for s, w in weights.items() if s in hit.ranks and w}
    if hit.scores.get("links"):
        out["links"] = hit.scores["links"]
    total, fused = sum(out.values()), hit.scores.get("fused")
    if total and fused:  # the page rules scale a passage's sum (pages count half for "what happened")
        out = {stage: value * fused / total for stage, value in out.items()}
    if hit.scores.get("expansion"):  # added on top of the question's own (rag.search.retrieval.with_phrasings)
        out["expansion"] = hit.scores["expansion"]
    return out


def count_of(n: int, word: str) -> str:
    """ "1 passage", "3 passages": a count in the words a player reads."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def ingest_summary(report: IndexReport, view: str) -> str:
    """The Ingest page's one line, counting files and passages as the Campaign page does: files with passages
    this view can read."""
    hidden = 0 if view == "gm" else report.gm_only
    shown = [f for f in report.per_file if f.status not in ("skipped", "deleted")]
    readable = [f for f in shown if f.chunks - (0 if view == "gm" else f.gm_only) > 0]
    empty = [PurePosixPath(f.source).name for f in shown if f.chunks == 0]
    extra = ""
    if empty:  # named: "1 more had nothing to index" left a player to find which, in words of the engine room
        more = f", and {len(empty) - EMPTY_NAMED} more" if len(empty) > EMPTY_NAMED else ""
        has = "has" if len(empty) == 1 else "have"
        extra = f" ({', '.join(empty[:EMPTY_NAMED])}{more} {has} nothing written to search yet)"
    kept = report.unchanged - (0 if view == "gm" else report.unchanged_gm)
    already = f" {kept} of them were already read." if kept and report.embedded else ""
    if report.remodelled:
        already += (
            f" {report.remodelled} were read again only because Chronicler's reading model changed since "
            "they were last read."
        )
    files, passages = count_of(len(readable), "file"), count_of(report.chunks - hidden, "passage")
    if not (report.embedded or report.deleted or report.relabelled or report.reused) and kept:  # a second sync
        return f"Nothing changed since these notes were last read: {files}, {passages}{extra}."
    return f"Read {files} into {passages} in {report.seconds:.1f} s{extra}.{already}"


def not_notes_line(unexpected: Sequence[str], aside: int = 0) -> str:
    """What an upload left unread because it is no note ("vault.zip: Party/roster.csv"), said after the notes are
    read; "" when nothing is worth a word. What a vault keeps beside its notes (``aside``: its pictures, its
    .obsidian folder, as the uploader's help says) is counted, not listed, so a hundred images do not hide the one
    spreadsheet a player expected to be read (``SaveResult.unexpected``)."""
    if not unexpected:
        return ""
    more = f" (and {count_of(aside, 'image or settings file')}, as always)" if aside else ""
    listed = ", ".join(unexpected[:8]) + ("…" if len(unexpected) > 8 else "")
    return f"Not read, as they are not notes: {listed}{more}."
