"""What every page shares: the config, the one embedder and the one store client, the sidebar's choices.

The embedder (~10 s to load) and the store client are process-wide ``st.cache_resource`` entries keyed
on the settings that make them; ``max_entries=1`` means a settings change replaces the old object, and
``on_release`` closes a replaced store so an embedded Qdrant folder's lock is released. A ``Pipeline``
is cheap and built per rerun around them.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import streamlit as st

from rag.config import Config, RetrievalConfig, load_config, slug
from rag.embedders import Embedder, get_embedder
from rag.errors import ChroniclerError, ModelUnavailableError
from rag.models import Chunk, Filters
from rag.pipeline import Pipeline
from rag.stores import Store, get_store
from rag.ingest.uploads import known_campaigns

_routed = threading.local()  # set by the router just before it runs a page, in the same script thread
INDEX_LOCK = threading.Lock()  # one index run at a time per process: sessions share the store
_first_start_tried: set[tuple] = set()
_store_failures: dict[tuple, tuple[float, ChroniclerError]] = {}
RETRY_SECONDS = 10
_generation = [0]  # bumped after every index/drop so cached chunk lists are rebuilt

# Sidebar widget keys, read by the pages.
CAMPAIGN, MODE, TOP_K, SESSION_CAP, RERANK = "campaign", "mode", "top_k", "session_cap", "rerank"
EXPAND, PHRASINGS, KEYWORD_WEIGHT = "expand", "phrasings", "keyword_weight"
MAX_KEYWORD_WEIGHT = 4.0  # the sidebar slider's top
EXPAND_HELP = (
    "Query expansion: a language model writes other ways to ask your question (other words, the names "
    "it implies), and each is searched too; every passage keeps its best match. Needs a language model: "
    "set one up in Settings → Answers."
)
RERANK_HELP = (
    "Reranking: a second, slower model re-reads the best passages next to your question and re-orders "
    "them. Set its model in Settings (reranker); without one, searches run as usual and say so."
)
ALL_SESSIONS = "all"
PENDING_CAMPAIGN = "_pending_campaign"
MODES = {"dense": "Meaning (dense)", "keyword": "Exact words (keyword)", "hybrid": "Both (hybrid)"}
MODE_HELP = (
    "How passages are found. dense: by meaning, so 'the dwarf city' finds 'Kraghammer'. "
    "keyword: exact words, best for names. hybrid: combines meaning-based and exact-word search."
)


def threshold_key(mode: str) -> str:
    """One slider per mode: scores of different modes live on different scales."""
    return f"threshold_{mode}"


def exact_word_weights(retrieval: RetrievalConfig, weight: float) -> tuple[float, float]:
    """(keyword, context) weights for the sidebar's "weight of exact words": both keyword stages move
    together, keeping the configured ratio between them."""
    if not retrieval.keyword_weight:  # no ratio to keep: the slider moves the keyword stage alone
        return weight, retrieval.context_weight
    return weight, weight * retrieval.context_weight / retrieval.keyword_weight


def threshold_range(mode: str, config: Config) -> tuple[float, float, float]:
    """(max, step, default) of the threshold slider; 0 means "no threshold"."""
    if mode == "keyword":
        top, step = 20.0, 0.1
    elif mode == "hybrid":  # the best fused score: rank 1 in every stage, at the heaviest sidebar weight
        r = config.retrieval
        keyword, context = exact_word_weights(config.retrieval, MAX_KEYWORD_WEIGHT)
        top, step = round((r.dense_weight + max(keyword, r.keyword_weight) + context) / (r.rrf_k + 1), 4), 0.0005
    else:
        top, step = 1.0, 0.01
    default = config.retrieval.score_threshold or 0.0
    return top, step, min(max(default, 0.0), top) if mode == config.retrieval.mode else 0.0


def mark_routed() -> None:
    _routed.ok = True


def require_router() -> None:
    """Every page calls this first: make sure it runs inside streamlit_app.py (sidebar, page config).

    A folder named ``pages/`` next to the entry script makes Streamlit start in its old multipage mode
    until ``st.navigation`` has run once in the process. So the first run of a fresh server that lands
    on a page URL (a bookmark, a browser reconnecting after a restart) and every ``AppTest.switch_page``
    run would execute the page alone. Switching the flag off and rerunning goes through the router.
    """
    if getattr(_routed, "ok", False):
        _routed.ok = False
        return
    try:
        from streamlit.runtime.pages_manager import PagesManager

        PagesManager.uses_pages_directory = False
    except ImportError:  # a Streamlit without the flag has no old mode to fall into
        return
    st.rerun()


def get_config() -> Config:
    """The merged config; a broken local.yaml stops the page with a message instead of a traceback."""
    try:
        return load_config()
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
    return get_embedder(_config.embedding)


def _close(store: Store) -> None:
    store.close()


@st.cache_resource(show_spinner="Opening the note store…", max_entries=1, on_release=_close)
def _load_store(key: tuple, _config: Config) -> Store:
    return get_store(_config)


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


class AppPipeline(Pipeline):
    """A Pipeline whose embedder comes from the app cache, loaded only when a stage needs it."""

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = embedder(self.config)
        return self._embedder

    @property
    def expander(self):
        """Without a language model, expansion is said to be off (with the fix) and the search goes on."""
        return self._or_off(
            lambda: super(AppPipeline, self).expander, "Question expansion", "retrieval", "query_expansion"
        )

    @property
    def reranker(self):
        """A missing reranking model is said plainly, with its fix, and the search goes on without it."""
        return self._or_off(lambda: super(AppPipeline, self).reranker, "Reranking", "reranker", "enabled")

    def _or_off(self, build, stage: str, section: str, switch: str):
        """The stage, or a warning that names it and the fix, with the stage turned off for this search."""
        try:
            return build()
        except ModelUnavailableError as err:
            st.warning(f"{stage} is off for this search: {err.one_line()}", icon=":material/info:")
            setattr(getattr(self.config, section), switch, False)
            return None


def pipeline(config: Config) -> AppPipeline:
    return AppPipeline(config, None, store(config))


# -- campaigns ----------------------------------------------------------------------------------------


def campaigns(config: Config) -> dict[str, int]:
    """Indexed campaigns → chunk count; empty (with a sidebar warning) when the store cannot open."""
    try:
        return pipeline(config).campaigns()
    except ChroniclerError as err:
        st.sidebar.warning(err.one_line())
        return {}


@st.cache_data(show_spinner=False, max_entries=8)
def _chunks(skey: tuple, campaign: str, count: int, generation: int, _config: Config) -> list[Chunk]:
    return pipeline(_config).chunks(campaign)


def campaign_chunks(config: Config, campaign: str) -> list[Chunk]:
    p = pipeline(config)
    count = p.store.count(config.collection(campaign))
    return _chunks(store_key(config), campaign, count, _generation[0], config) if count else []


def changed() -> None:
    """Call after an index or drop: chunk lists and campaign counts are rebuilt on the next run."""
    _generation[0] += 1


def campaign_options(config: Config, indexed: dict[str, int], created: list[str]) -> dict[str, int]:
    """Display name → passages, one entry per collection: indexed campaigns come back from the store as
    slugs, so names typed by players (remembered at index time, or created this session) replace them."""
    names = {slug(n): n for n in [*known_campaigns(config), *created, config.campaign]}
    out = {names.get(s, s): count for s, count in indexed.items()}
    for name in (config.campaign, *created):
        if slug(name) not in indexed:
            out[name] = 0
    return dict(sorted(out.items(), key=lambda item: item[0].lower()))


def current_campaign(config: Config) -> str:
    return st.session_state.get(CAMPAIGN) or config.campaign


def select_campaign(name: str) -> None:
    """Switch the sidebar selector on the next run (a widget's value cannot change once drawn)."""
    st.session_state[PENDING_CAMPAIGN] = name


def run_index(config: Config, notes_dir: Path, campaign: str, label: str = "Embedding your notes…"):
    """Index with a progress bar; returns the IndexReport (errors are the caller's to show)."""
    bar = st.progress(0.0, text="Reading and chunking the notes…")

    def progress(done: int, total: int) -> None:
        if total:
            bar.progress(done / total, text=f"{label} {done} of {total} passages")

    with INDEX_LOCK:
        p = pipeline(config)
        _ = p.embedder  # load the model under its own spinner before the bar starts moving
        try:
            report = p.index(notes_dir, campaign, progress)
        finally:
            changed()
    bar.progress(1.0, text=f"Done: {report.summary()}")
    return report


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
        try:
            report = run_index(config, notes_dir, config.campaign)
        except ChroniclerError as err:
            status.update(label="Could not index the demo campaign", state="error")
            st.error(err.one_line())
            return
        status.update(
            label=f"'{config.campaign}' is ready: {report.chunks} passages from {report.files} files",
            state="complete",
            expanded=False,
        )


# -- shared retrieval controls ------------------------------------------------------------------------


def search_settings(config: Config) -> tuple[Config, Filters]:
    """The config with the sidebar's mode, top-k and threshold applied, and the session-cap filter."""
    mode = st.session_state.get(MODE) or config.retrieval.mode
    cfg = config.model_copy(deep=True)
    cfg.retrieval.mode = mode
    cfg.retrieval.k = int(st.session_state.get(TOP_K) or config.retrieval.k)
    threshold = st.session_state.get(threshold_key(mode))
    cfg.retrieval.score_threshold = float(threshold) if threshold else None
    cfg.reranker.enabled = bool(st.session_state.get(RERANK, config.reranker.enabled))
    if st.session_state.get(KEYWORD_WEIGHT) is not None:
        weights = exact_word_weights(config.retrieval, float(st.session_state[KEYWORD_WEIGHT]))
        cfg.retrieval.keyword_weight, cfg.retrieval.context_weight = weights
    cfg.retrieval.query_expansion = bool(st.session_state.get(EXPAND, config.retrieval.query_expansion))
    cfg.retrieval.expansion_variants = int(st.session_state.get(PHRASINGS) or config.retrieval.expansion_variants)
    cap = st.session_state.get(SESSION_CAP)
    cap = None if cap in (None, ALL_SESSIONS) else cap
    return cfg, Filters(session_max=float(cap)) if cap is not None else Filters()
