"""Incremental sync of a notes folder into its campaign's collection.

Chunk ids are derived from campaign + source + position, and each point stores a two-part hash
(``stored_hash``): of what its vectors are made of, and of everything else it stores. A run embeds only
chunks whose words changed, rewrites in place the details of those whose words did not (a note marked
GM-only, lines shifted by new front matter), reuses the vectors of a moved note's passages, deletes points
whose chunk no longer exists, and writes in batches: a crash mid-run leaves a state the next run completes,
with no duplicates (ids are stable) and nothing missing (missing points have no stored hash, so they are redone).

Passages are embedded and written a step at a time (the embedder's own batch, ``embedding.batch_size``), and
progress is reported after each write (``IndexProgress``): a passage counted is a passage stored, so a run
stopped from its progress callback (the app's Stop button, Ctrl-C) keeps what it counted and the next run reads
only the rest.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rag.access import require
from rag.config import Config
from rag.embedders import Embedder
from rag.files import check_space
from rag.ingest import shipped_vectors
from rag.ingest.chunking import chunk_note
from rag.ingest.notes import Skipped, load_notes
from rag.ingest.uploads import within_uploads
from rag.models import Chunk, Filters
from rag.stores import Store

WRITE_BATCH = 128  # at most this many chunks written per store call (a step is the embedder's batch, if smaller)


@dataclass(frozen=True)
class IndexProgress:
    """Where an index run is, said after every step: ``done`` of the ``total`` passages this run reads are
    read and stored; ``note`` is the file being read now ("Session 12.md"; "" when done, or when only GM-only
    passages are left and the reader is in the player view); ``seconds_left`` is estimated from the passages done
    so far once ``embedding.estimate_after`` steps are timed (None before); ``already``: passages that need no
    reading (stored by an earlier run, or moved with their vectors); ``preparing``: the first step waits for the
    embedding model to be made (``Embedder.preparing``)."""

    done: int
    total: int
    note: str = ""
    seconds_left: float | None = None
    already: int = 0
    preparing: bool = False  # said at the start only, while the embedding model is still being made

    def doing(self) -> str:
        """What is being done now, in a player's words: the file being read, or why nothing is read yet."""
        if self.preparing:
            return "getting ready (only the very first time, up to half a minute)"
        return self.note

    def time_left(self) -> str:
        """ "about 40 s left", "about 3 min left"; "" until there is an estimate or once done."""
        if self.seconds_left is None or self.done >= self.total:
            return ""
        seconds = max(1, round(self.seconds_left))
        if seconds < 90:
            return f"about {seconds} s left"
        return f"about {round(seconds / 60)} min left"


Progress = Callable[[IndexProgress], None]


@dataclass
class FileReport:
    source: str
    status: str  # "added", "updated", "unchanged", "empty" (read, but no passage in it), "deleted", "skipped"
    chunks: int = 0
    added: int = 0
    updated: int = 0
    deleted: int = 0
    reason: str = ""  # why a file was skipped, or its parse warnings
    file_type: str = ""  # what the file was read as: markdown, pdf, email, html, docx ("" when skipped)
    pages: int | None = None  # PDF: pages in the file
    gm_only: int = 0  # passages only the GM view shows
    relabelled: int = 0  # passages whose details (visibility, lines…) changed in place, words unchanged
    visibility: str = "player"  # "gm" when the whole note is GM-only
    blank: bool = False  # skipped with nothing written in it yet (an empty file, a page of front matter only)


@dataclass
class IndexReport:
    campaign: str
    collection: str
    files: int = 0
    chunks: int = 0
    added: int = 0
    updated: int = 0
    deleted: int = 0
    unchanged: int = 0  # passages already stored as they are: not read again (what a stopped run kept, too)
    unchanged_gm: int = 0  # of them, GM-only
    embedded: int = 0
    relabelled: int = 0  # passages whose details (visibility, lines…) changed in place, words unchanged
    reused: int = 0  # passages written with vectors they already had (a moved note's, or shipped with the notes)
    remodelled: int = 0  # passages read again only because another model (or precision) had read them
    gm_rules: dict[str, int] = field(default_factory=dict)  # marking rule → GM-only passages (rag.ingest.secrets)
    seconds: float = 0.0
    embed_seconds: float = 0.0
    per_file: list[FileReport] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def gm_only(self) -> int:
        return sum(self.gm_rules.values())

    def summary(self) -> str:
        hidden = f" ({self.gm_only} GM only)" if self.gm_only else ""
        return (
            f"{self.files} files, {self.chunks} chunks{hidden}: {self.added} added, {self.updated} updated, "
            f"{self.deleted} deleted, {self.unchanged} unchanged; {len(self.skipped)} files skipped; "
            f"{self.seconds:.1f} s"
            + (f"; {self.remodelled} read again for the model's new setting" if self.remodelled else "")
        )


def stored_hash(chunk: Chunk, embedder: Embedder) -> str:
    """ "<vectors>+<details>": the first part changes with what the point's vectors are made of (the passage's
    words, its neighbours' words, the model), the second with anything else stored (name, lines, who may read
    it). Only a change in the first needs the model; the second is rewritten in place."""
    details = chunk.content_hash[:16] + ("" if chunk.visibility == "player" else f":gm:{chunk.secret_by}")
    return f"{vector_key(chunk, embedder)}+{details}"


def vector_key(chunk: Chunk, embedder: Embedder, name: str | None = None) -> str:
    model = embedder.name if name is None else name
    return hashlib.sha256(f"{chunk.text}\x1f{chunk.context}\x1f{model}".encode()).hexdigest()[:16]


def read_by_another_model(stored: str | None, chunk: Chunk, embedder: Embedder) -> bool:
    """Whether a point's vectors were made from these very words by one of the embedder's other settings
    (``other_names``: the same model at another precision), so it is read again for the model alone."""
    part = (stored or "").split("+", 1)[0]
    return any(part == vector_key(chunk, embedder, name) for name in embedder.other_names)


def same_vectors(stored: str | None, chunk: Chunk, embedder: Embedder) -> bool:
    """Whether a point stored with hash ``stored`` already has this chunk's vectors. A hash of an index made
    before hashes had two parts covers words and details together, as the one-part hash it was."""
    if not stored:
        return False
    if "+" in stored:
        return stored.split("+", 1)[0] == vector_key(chunk, embedder)
    return stored == hashlib.sha256(f"{chunk.content_hash}\x1f{embedder.name}".encode()).hexdigest()[:32]


def prepare_chunks(config: Config, notes_dir: str | Path, campaign: str) -> tuple[list[Chunk], list[Skipped], list]:
    """Every note's passages. One file may give at most ``chunking.max_passages_per_file`` (the largest real
    session note measured gives 130): a 2 MB line of junk would otherwise be ~1,700 passages, minutes of a
    group's ingest. The file keeps its first passages and says so in the report."""
    # The app's uploads folder is named after its campaign, not by the GM's vault: its name marks nothing.
    outer = () if within_uploads(config, Path(notes_dir)) else None
    notes, skipped = load_notes(notes_dir, config.notes, config.secrets, outer)
    cap, chunks, kept = config.chunking.max_passages_per_file, [], []
    for note in notes:
        mine = chunk_note(note, campaign, config.chunking, config.secrets)
        if len(mine) > cap:
            why = f"cut to its first {cap} of {len(mine)} passages (chunking.max_passages_per_file): is it notes?"
            note, mine = dataclasses.replace(note, warnings=(*note.warnings, why)), mine[:cap]
        chunks += mine
        kept.append(note)
    return chunks, skipped, kept


def sync_campaign(
    config: Config,
    notes_dir: str | Path,
    embedder: Embedder,
    store: Store,
    campaign: str | None = None,
    progress: Progress | None = None,
    write_batch: int = WRITE_BATCH,
) -> IndexReport:
    require(config.role, "index")  # in a shared app, the GM's alone (rag.access)
    started = time.perf_counter()
    campaign = campaign or config.campaign
    collection = config.collection(campaign)
    chunks, skipped, notes = prepare_chunks(config, notes_dir, campaign)
    report = IndexReport(campaign=campaign, collection=collection, files=len(notes), chunks=len(chunks))
    report.skipped = skipped

    folder = None if config.store.url else config.store_path  # a full disk under the store ends it with SIGBUS
    new = collection not in store.collections()
    if new:
        check_space(folder, len(chunks), embedder.dim, new_collection=True)
    store.ensure_collection(collection, embedder.dim)
    existing = store.stored_hashes(collection)
    wanted = {c.id: stored_hash(c, embedder) for c in chunks}
    todo = [c for c in chunks if not same_vectors(existing.get(c.id), c, embedder)]
    redo = {c.id for c in todo}
    rewrite = [c for c in chunks if c.id in existing and existing[c.id] != wanted[c.id] and c.id not in redo]
    stale = [pid for pid in existing if pid not in wanted]
    if not new:
        check_space(folder, len(todo) + len(rewrite), embedder.dim, new_collection=False)
    reused = _reuse_moved(store, collection, todo, existing, wanted, embedder)
    reused |= _use_shipped(store, collection, [c for c in todo if c.id not in reused], wanted, embedder, notes_dir)
    # Similar lengths in a batch mean little padding: the model's own encode() sorts by length over
    # everything it is given, so without this a batched pipeline pays ~15% more than one big encode().
    embed = sorted((c for c in todo if c.id not in reused), key=lambda c: len(c.text))

    step = max(1, min(config.embedding.batch_size, write_batch))
    steps = _Steps(progress, embed, step, len(chunks) - len(embed), config, embedder)
    steps.report(0)
    for start in range(0, len(embed), step):
        batch = embed[start : start + step]
        t0 = time.perf_counter()
        vectors = embedder.embed_batch([c.text for c in batch])
        report.embed_seconds += time.perf_counter() - t0
        store.upsert(collection, batch, vectors, [wanted[c.id] for c in batch])
        report.embedded += len(batch)
        steps.report(report.embedded)
    if rewrite:
        store.rewrite_payload(collection, rewrite, [wanted[c.id] for c in rewrite])
    stale_sources = Counter()
    if stale:
        stale_set = set(stale)
        everything = Filters(view="gm")  # the indexer sees every passage; nothing here reaches a reader
        stale_sources = Counter(c.source for c in store.chunks(collection, filters=everything) if c.id in stale_set)
        store.delete(collection, stale)

    report.relabelled, report.reused = len(rewrite), len(reused)
    report.remodelled = sum(read_by_another_model(existing.get(c.id), c, embedder) for c in todo)
    report.gm_rules = dict(Counter(c.secret_by for c in chunks if c.visibility == "gm"))
    _fill_counts(report, chunks, todo, existing, stale_sources, notes, rewrite)
    report.seconds = time.perf_counter() - started
    return report


class _Steps:
    """Says an ``IndexProgress`` at the start and after each step. The time left is estimated by the characters
    read so far: passages are read shortest first, so a rate in passages would promise the end too soon."""

    def __init__(
        self, progress: Progress | None, embed: list[Chunk], step: int, already: int, config: Config, embedder: Embedder
    ):
        self.progress, self.embed, self.step, self.already, self.embedder = progress, embed, step, already, embedder
        self.estimate_after, self.view = config.embedding.estimate_after, config.view
        self.chars_left, self.chars_done, self.steps, self.done = sum(len(c.text) for c in embed), 0, 0, 0
        self.started = time.perf_counter()

    def report(self, done: int) -> None:
        """``done`` passages are read and stored (0: the start)."""
        if done:
            read = sum(len(c.text) for c in self.embed[self.done : done])
            self.chars_done += read
            self.chars_left -= read
            self.steps += 1
        self.done = done
        if not self.progress:
            return
        left = None
        if self.steps >= self.estimate_after and self.chars_done:
            left = (time.perf_counter() - self.started) / self.chars_done * self.chars_left
        note = self._note(self.embed[done : done + self.step])
        preparing = not done and bool(self.embed) and self.embedder.preparing
        self.progress(IndexProgress(done, len(self.embed), note, left, self.already, preparing))

    def _note(self, chunks: list[Chunk]) -> str:
        """The file most of the next step's passages come from, by its name; only a file this view may see."""
        seen = [c for c in chunks if self.view == "gm" or c.visibility == "player"]
        if not seen:
            return ""
        return Path(Counter(c.source for c in seen).most_common(1)[0][0]).name


def _reuse_moved(store: Store, collection: str, todo, existing, wanted, embedder: Embedder) -> set[str]:
    """Write the chunks of ``todo`` whose words a point about to be deleted already holds (a note moved or
    renamed: new ids, same passages) with that point's vectors; their ids. Before the old points are deleted,
    so a crash in between loses nothing."""
    leaving = {h.split("+", 1)[0]: pid for pid, h in existing.items() if pid not in wanted and "+" in h}
    source = {c.id: leaving[key] for c in todo if (key := vector_key(c, embedder)) in leaving}
    vectors = store.vectors(collection, sorted(set(source.values()))) if source else {}
    moved = [c for c in todo if source.get(c.id) in vectors]
    for start in range(0, len(moved), WRITE_BATCH):
        batch = moved[start : start + WRITE_BATCH]
        stacked = np.stack([vectors[source[c.id]] for c in batch])
        store.upsert(collection, batch, stacked, [wanted[c.id] for c in batch])
    return {c.id for c in moved}


def _use_shipped(store: Store, collection: str, todo, wanted, embedder: Embedder, notes_dir) -> set[str]:
    """Write the chunks of ``todo`` whose vectors ship with the notes (``shipped_vectors``); their ids."""
    shipped = shipped_vectors.load(notes_dir, embedder.name, embedder.dim)
    found = [(c, v) for c in todo if (v := shipped.get(shipped_vectors.vector_id(c.text, embedder.name))) is not None]
    for start in range(0, len(found), WRITE_BATCH):
        batch = found[start : start + WRITE_BATCH]
        store.upsert(
            collection, [c for c, _ in batch], np.stack([v for _, v in batch]), [wanted[c.id] for c, _ in batch]
        )
    return {c.id for c, _ in found}


def _fill_counts(report: IndexReport, chunks, todo, existing, stale_sources: Counter, notes, relabel) -> None:
    added, updated = Counter(), Counter()
    relabelled = Counter(c.source for c in relabel)
    gm_only = Counter(c.source for c in chunks if c.visibility == "gm")
    for c in todo:
        (updated if c.id in existing else added)[c.source] += 1
    per_source = Counter(c.source for c in chunks)
    report.added, report.updated = sum(added.values()), sum(updated.values())
    report.unchanged = len(chunks) - report.added - report.updated
    redone = {c.id for c in todo}
    report.unchanged_gm = sum(1 for c in chunks if c.visibility == "gm" and c.id not in redone)
    report.deleted = sum(stale_sources.values())

    for note in notes:
        src, n = note.source, per_source.get(note.source, 0)
        if n and added[src] == n:
            status = "added"
        elif added[src] or updated[src] or stale_sources[src] or relabelled[src]:
            status = "updated"
        elif not n:  # a to-do list of empty boxes, a template never filled: read, with nothing to search
            status = "empty"
        else:
            status = "unchanged"
        reason = "; ".join(note.warnings) or ("" if n else "no text to index")
        report.per_file.append(
            FileReport(
                src,
                status,
                n,
                added[src],
                updated[src],
                stale_sources[src],
                reason,
                note.file_type,
                note.page_count,
                gm_only[src],
                relabelled[src],
                note.visibility,
            )
        )
    live = {n.source for n in notes}
    for src, count in sorted(stale_sources.items()):
        if src not in live:
            report.per_file.append(FileReport(src, "deleted", 0, 0, 0, count, "no longer in the folder"))
    for s in report.skipped:
        report.per_file.append(FileReport(s.source, "skipped", reason=s.reason, visibility=s.visibility, blank=s.blank))
