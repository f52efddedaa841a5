"""What every page shares: the config, the one embedder and the one store client, the campaigns.

The embedder (~10 s to load) and the store client are process-wide ``st.cache_resource`` entries keyed
on the settings that make them; ``max_entries=1`` means a settings change replaces the old object, and
``on_release`` closes a replaced store so an embedded Qdrant folder's lock is released. A ``Pipeline``
is cheap and built per rerun around them.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from app import gm
from app.tables import count_of
from rag.access import OWNER, require
from rag.config import Config, load_config, slug
from rag.errors import ChroniclerError
from rag.models import Chunk, Filters
from rag.pipeline import Embedder, Entity, IndexProgress, IndexReport, Pipeline, Store

INDEX_LOCK = threading.Lock()  # one index run at a time per process: sessions share the store
_first_start_tried: set[tuple] = set()
_store_failures: dict[tuple, tuple[float, ChroniclerError]] = {}
RETRY_SECONDS = 10
_generation = [0]  # bumped after every index/drop so cached chunk lists are rebuilt
# The campaign selector's widget key (drawn by app.sidebar, read by every page) and the switch requested
# by a page for the next run (a widget's value cannot change once drawn).
CAMPAIGN, PENDING_CAMPAIGN, CREATED = "campaign", "_pending_campaign", "_created_campaigns"
READING = "_reading"  # the Ingest page's last index run in this browser session (``Reading``)


def get_config() -> Config:
    """The merged config, in this session's view and role (``app.gm``: the player view unless the GM
    passphrase was entered, whatever the config files say); a broken local.yaml stops the page with a message."""
    try:
        config = load_config()
        view = gm.view(config.gm_view)
        return config.model_copy(update={"view": view, "role": gm.role_for(view)})
    except ChroniclerError as err:
        st.error(err.one_line())
        st.info("Fix or delete the file named above, then reload the page.")
        st.stop()


# -- heavy objects ------------------------------------------------------------------------------------


def embedder_key(config: Config) -> tuple:
    e = config.embedding
    return (e.backend, e.model, e.runtime, e.cache_dir, e.batch_size, e.base_url or None, e.api_key or None)


def store_key(config: Config) -> tuple:
    s = config.store  # "" and None both mean "not set" (the Settings page saves "" to clear a value)
    return (
        s.backend,
        s.url or None,
        (s.api_key or None) if s.url else None,
        None if s.url else config.store_path,
    )


@st.cache_resource(show_spinner="Loading the embedding model… (the first time takes about 10 seconds)", max_entries=1)
def _load_embedder(key: tuple, _config: Config) -> Embedder:
    return Pipeline.load_embedder(_config)


def _close(store: Store) -> None:
    store.close()


@st.cache_resource(show_spinner="Opening the note store…", max_entries=1, on_release=_close)
def _load_store(key: tuple, _config: Config) -> Store:
    return Pipeline.open_store(_config)


def embedder(config: Config) -> Embedder:
    return _load_embedder(embedder_key(config), config)


def store(config: Config) -> Store:
    """The cached store; a store that just failed to open fails again at once for a few seconds, so an
    unreachable server costs one timeout per page, not one per call."""
    key = store_key(config)
    failed = _store_failures.get(key)
    if failed and time.monotonic() - failed[0] < RETRY_SECONDS:
        raise failed[1]
    try:
        return _load_store(key, config)
    except ChroniclerError as err:
        _store_failures[key] = (time.monotonic(), err)
        raise


def same_store(a: Config, b: Config) -> bool:
    return store_key(a) == store_key(b)


def pipeline(config: Config) -> Pipeline:
    """A cheap Pipeline around the cached store, (loaded when a stage needs it) the cached embedder and the cached
    passage lists (``campaign_chunks``). Lenient: a missing reranking or expansion model is a notice on the search,
    not a failed page."""
    return Pipeline(
        config,
        store=store(config),
        embedder_loader=lambda: embedder(config),
        passages_loader=lambda campaign, view: _cached_chunks(config, campaign, view),
        entities_loader=lambda campaign, view, cap: _cached_entities(config, campaign, view, cap),
        lenient=True,
    )


# -- campaigns ----------------------------------------------------------------------------------------


def campaigns(config: Config) -> list[str]:
    """Indexed campaigns (stored slugs), none of them opened; empty (with a sidebar warning) when the store
    cannot open. Counting each campaign's passages here made every start ~0.2 s slower per campaign."""
    try:
        return pipeline(config).campaign_names()
    except ChroniclerError as err:
        st.sidebar.warning(err.one_line())
        return []


def passage_count(config: Config, campaign: str) -> int:
    """The campaign's passages in this view; 0 when the store cannot say (the sidebar already warned)."""
    try:
        return pipeline(config).passage_count(campaign)
    except ChroniclerError:
        return 0


@st.cache_data(show_spinner=False, max_entries=8)
def _chunks(skey: tuple, campaign: str, count: int, generation: int, view: str, _config: Config) -> list[Chunk]:
    reader = Pipeline(_config.model_copy(update={"view": view}), store=store(_config))  # no cache of its own
    return reader.chunks(campaign)


def _kept_by(config: Config, campaign: str | None, view: str) -> tuple[tuple, str, int, int]:
    """What a campaign's kept passages and cast are kept by: the store, the campaign, its passage count in
    ``view`` (0: nothing to keep) and the index generation (``changed``)."""
    campaign = campaign or config.campaign
    count = store(config).count(config.collection(campaign), Filters(view=view))
    return store_key(config), campaign, count, _generation[0]


def _cached_chunks(config: Config, campaign: str | None, view: str) -> list[Chunk]:
    """The campaign's passages in ``view``; the view is part of the cache key, so a list read in the GM view is
    never served to a player's session."""
    key = _kept_by(config, campaign, view)
    return _chunks(*key, view, config) if key[2] else []


@st.cache_data(show_spinner=False, max_entries=16)
def _entities(
    skey: tuple, campaign: str, count: int, generation: int, view: str, cap: float | None, _config: Config
) -> list[Entity]:
    reader = Pipeline(
        _config.model_copy(update={"view": view}),
        store=store(_config),
        passages_loader=lambda name, shown: _cached_chunks(_config, name, shown),
    )
    return reader.entities(campaign, Filters(session_max=cap))


def _cached_entities(config: Config, campaign: str | None, view: str, cap: float | None) -> list[Entity]:
    """The campaign's cast in ``view`` as of session ``cap``, kept like its passages (the view in the key), so
    People & places, the timeline and recaps do not read every passage again on each rerun."""
    key = _kept_by(config, campaign, view)
    return _entities(*key, view, cap, config) if key[2] else []


def campaign_chunks(config: Config, campaign: str) -> list[Chunk]:
    """The campaign's passages in this session's view."""
    return pipeline(config).chunks(campaign)


def changed() -> None:
    """Call after an index or drop: chunk lists and campaign counts are rebuilt on the next run."""
    _generation[0] += 1


def campaign_options(config: Config, indexed: list[str], created: list[str]) -> dict[str, bool]:
    """Display name → whether it is indexed, one entry per collection: indexed campaigns come back from the
    store as slugs, so names typed by players (remembered when started or read, or created this session) replace
    them; a campaign started and not yet read is offered too, so a reload does not lose it."""
    known = Pipeline(config).files.known_campaigns()  # started on the Ingest page, or read once
    names = {slug(n): n for n in [*known, *created, config.campaign]}
    out = {names.get(s, s): True for s in indexed}
    for name in (config.campaign, *known, *created):
        if slug(name) not in indexed:
            out[names[slug(name)]] = False
    return dict(sorted(out.items(), key=lambda item: item[0].lower()))


def current_campaign(config: Config) -> str:
    return st.session_state.get(CAMPAIGN) or config.campaign


def latest_campaign(config: Config) -> str | None:
    """The campaign last started or read, which a page opened without one in its address shows (a new tab had
    opened the demo again after a player read their own notes)."""
    return Pipeline(config).files.latest()


def forget_created(name: str) -> None:
    """A deleted campaign leaves the selector: this session no longer offers it as one it created."""
    created = st.session_state.get(CREATED, [])
    if name in created:
        created.remove(name)


def select_campaign(name: str) -> None:
    """Switch the sidebar selector on the next run (a widget's value cannot change once drawn)."""
    st.session_state[PENDING_CAMPAIGN] = name


def run_index(
    config: Config,
    notes_dir: Path | str,
    campaign: str,
    label: str = "Reading your notes…",
    *,
    typed: bool = False,
    stoppable: bool = False,
) -> IndexReport:
    """Index with a progress bar that counts passages as they are read, names the note being read and, after a
    few steps, the time left; returns the IndexReport (errors are the caller's to show). ``typed``: a folder
    someone typed on a page, read only where folders may be read (``Pipeline.files``). ``stoppable``: a "Stop
    reading" button under the bar, and the run kept as a ``Reading`` for ``stopped()``."""
    require(config.role, "sync" if typed else "index")  # said before the model loads; indexing checks again
    if typed:
        notes_dir = Pipeline(config).files.allowed_folder(notes_dir)
    bar = st.progress(0.0, text="Reading and chunking the notes…")
    reading = Reading(campaign, str(notes_dir), typed)
    stop = st.empty()  # the Stop button, gone when the run ends with an error
    if stoppable:
        st.session_state[READING] = reading
        stop.button(
            "Stop reading",
            key="stop_reading",
            icon=":material/stop_circle:",
            help="What is read so far is kept; reading again picks up where it stopped.",
        )

    def progress(step: IndexProgress) -> None:
        reading.progress = step  # stored before the bar moves: a stop raises in the bar's update
        if step.total:
            bar.progress(step.done / step.total, text=progress_line(label, step))

    try:
        with INDEX_LOCK:
            p = pipeline(config)
            _ = p.embedder  # load the model under its own spinner before the bar starts moving
            try:
                report = p.index(notes_dir, campaign, progress)
            finally:
                changed()
    except Exception:
        reading.outcome = "failed"
        stop.empty()
        raise
    except BaseException:  # Streamlit's stop (a click) or rerun: what was read is kept (Pipeline.index)
        reading.outcome = "stopped"
        raise
    else:
        reading.outcome = "done"
    finally:
        reading.finished.set()
    bar.progress(1.0, text="Done.")  # what was read is the caller's to say, once (a green box, a status line)
    return report


@dataclass
class Reading:
    """An index run of the Ingest page, shared with the page's next run. A click while a script runs makes
    Streamlit start the next run at once, in another thread, and end this one at its next element update (the
    bar's, after a step is stored): so the next run waits for ``finished`` and then says how far it got."""

    campaign: str
    folder: str  # what it read, to read the rest
    typed: bool
    progress: IndexProgress | None = None  # the last step said: every passage it counts is stored
    outcome: str = "reading"  # "reading", then "done", "failed" or "stopped"
    finished: threading.Event = field(default_factory=threading.Event)
    recounted: bool = False  # the page was drawn again once it stopped, so the sidebar counts the last step

    def line(self) -> str:
        p = self.progress or IndexProgress(0, 0)
        return (
            f"Stopped: {p.done + p.already} of {p.total + p.already} passages read; reading again picks up "
            "where it stopped."
        )


def stopped(config: Config, campaign: str) -> Reading | None:
    """The last reading of ``campaign`` in this browser session if it was stopped part way, once it has stopped
    (waiting up to ``limits.stop_wait_seconds`` for the step it was reading)."""
    reading = st.session_state.get(READING)
    if not isinstance(reading, Reading) or reading.campaign != campaign:
        return None
    if not reading.finished.is_set():
        with st.spinner("Stopping: keeping the passages being read…"):
            stopped_now = reading.finished.wait(config.limits.stop_wait_seconds)
        if stopped_now:
            reading.recounted = True
            st.rerun()  # the sidebar's count was drawn before the last step was kept: drawn again with it
    elif reading.outcome == "stopped" and not reading.recounted:
        reading.recounted = True  # the same when the last step was kept between the sidebar's count and here
        st.rerun()
    if reading.outcome not in ("stopped", "reading") or not (reading.progress and reading.progress.total):
        return None
    return reading


def progress_line(label: str, step: IndexProgress) -> str:
    """ "Reading your notes… 32 of 94 passages · Session 12.md · about 20 s left" (Markdown)."""
    line = f"{label} {step.done} of {step.total} passages"
    if step.already:
        line += f" ({step.already} already read)"
    if (doing := step.doing()) and step.done < step.total:
        line += f" · {_md(doing)}"
    if left := step.time_left():
        line += f" · {left}"
    return line


def _md(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#|~$])", r"\\\1", text)


def first_start(config: Config) -> None:
    """A newcomer lands on a ready demo: index the configured campaign once if it has no collection yet."""
    key = (store_key(config), config.campaign)
    if key in _first_start_tried:
        return
    notes_dir = config.resolve(config.notes_dir)
    try:
        if not notes_dir.is_dir() or not any(notes_dir.iterdir()):
            _first_start_tried.add(key)
            return
        if config.collection() in store(config).collections():
            _first_start_tried.add(key)
            return
    except ChroniclerError:
        return  # the sidebar shows the store error; Settings is where to fix it
    _first_start_tried.add(key)
    with st.status(
        f"First start: indexing the '{config.campaign}' campaign so you can try Chronicler…", expanded=True
    ) as status:
        try:  # the server's own configured notes, whoever opened the page first: the owner's act, not theirs
            report = run_index(config.model_copy(update={"role": OWNER}), notes_dir, config.campaign)
        except ChroniclerError as err:
            status.update(label="Could not index the demo campaign", state="error")
            st.error(err.one_line())
            return
        status.update(
            label=f"'{config.campaign}' is ready: {count_of(report.chunks, 'passage')} from {count_of(report.files, 'file')}",
            state="complete",
            expanded=False,
        )
