"""The sidebar: the campaign, the shared search controls, and the config a page's search is built from.

Its widgets are drawn on every page (by ``streamlit_app.py``) so their values survive page switches; pages
read them only through ``search_settings``, which turns them into one ``Config`` (and the session-cap
filter) for the ``Pipeline``.
"""

from __future__ import annotations

import streamlit as st

from app import gm, state
from app.tables import count_of, session_days, sessions_of
from rag.config import Config, RetrievalConfig, slug
from rag.errors import ChroniclerError
from rag.models import Filters, format_session

# Sidebar widget keys, read by the pages.
MODE, TOP_K, SESSION_CAP, RERANK, REREAD = "mode", "top_k", "session_cap", "rerank", "reread"
MAX_REREAD = 50
EXPAND, PHRASINGS, KEYWORD_WEIGHT = "expand", "phrasings", "keyword_weight"
MAX_KEYWORD_WEIGHT = 4.0  # the sidebar slider's top
EXPAND_HELP = (
    "Also search your question together with the words its best passages share (a question about the boat "
    'also looks for "ship" and "cargo" when those passages say so), and, with a language model set up in '
    "Settings → Answers, other wordings it writes. A passage found both ways moves up."
)
RERANK_HELP = (
    "A second, closer look at the best passages, weighing how each one matched your question, puts the most "
    "useful first. Built in and offline; another way of re-reading can be chosen in Settings."
)
REREAD_HELP = (
    "How many of the best passages get the second look. More can find a passage ranked lower, a little slower."
)
ALL_SESSIONS = "all"
CAMPAIGN_PARAM = "campaign"  # the address's ?campaign=: a reload, or a link shared with the table, opens it
AS_OF_PARAM = "as_of"  # the address's ?as_of=5: the session cap survives a reload, and a link shares it
MODES = {"dense": "Meaning (dense)", "keyword": "Exact words (keyword)", "hybrid": "Both (hybrid)"}
MODE_HELP = (  # every campaign's words: the demo's "Kraghammer" meant nothing in another campaign (a walk)
    "How passages are found. Meaning: what a passage says, so 'the dwarf city' finds a passage that names the "
    "city. Exact words: the question's own words, best for names. Both: the two together."
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


def kept(key: str, default) -> None:
    """A widget that is only drawn while another control allows it ("Other wordings to search" under "Expand the
    question", a keyword weight per search mode) keeps its value while it is hidden: Streamlit forgets the value
    of a widget a run did not draw, so the value is kept beside it and put back when it is drawn again (it went
    back to its default). The value is also set again on every run, as Streamlit's docs advise ("Widget
    behavior"): after a question had been answered, a hidden slider drawn again showed its minimum in the browser
    while the search used the kept value (the value was still in place as the widget's own, which the browser is
    not sent)."""
    ss = st.session_state
    shadow = f"_kept_{key}"
    if key in ss:
        ss[key] = ss[shadow] = ss[key]
    else:
        ss[key] = ss.get(shadow, default)


def search_settings(config: Config) -> tuple[Config, Filters]:
    """The config with the sidebar's mode, top-k and threshold applied, and the session-cap filter."""
    mode = st.session_state.get(MODE) or config.retrieval.mode
    cfg = config.model_copy(deep=True)
    cfg.retrieval.mode = mode
    cfg.retrieval.k = int(st.session_state.get(TOP_K) or config.retrieval.k)
    threshold = st.session_state.get(threshold_key(mode))
    cfg.retrieval.score_threshold = float(threshold) if threshold else None
    cfg.reranker.enabled = bool(st.session_state.get(RERANK, config.reranker.enabled))
    cfg.reranker.candidates = int(st.session_state.get(REREAD) or config.reranker.candidates)
    if st.session_state.get(KEYWORD_WEIGHT) is not None:
        weights = exact_word_weights(config.retrieval, float(st.session_state[KEYWORD_WEIGHT]))
        cfg.retrieval.keyword_weight, cfg.retrieval.context_weight = weights
    cfg.retrieval.query_expansion = bool(st.session_state.get(EXPAND, config.retrieval.query_expansion))
    cfg.retrieval.expansion_variants = int(st.session_state.get(PHRASINGS) or config.retrieval.expansion_variants)
    cap = st.session_state.get(SESSION_CAP)
    cap = None if cap in (None, ALL_SESSIONS) else cap
    return cfg, Filters(session_max=float(cap)) if cap is not None else Filters()


def draw(config: Config) -> None:
    """Every widget of the sidebar; the values live in ``st.session_state`` under the keys above."""
    with st.sidebar:
        campaign = _campaign_selector(config)
        gm.draw(config)
        _search_controls(config, campaign)


def _campaign_selector(config: Config) -> str:
    indexed = state.campaigns(config)
    created = st.session_state.setdefault(state.CREATED, [])
    pending = st.session_state.pop(state.PENDING_CAMPAIGN, None)
    if pending:
        if pending not in created:
            created.append(pending)
        st.session_state[state.CAMPAIGN] = pending
    is_indexed = state.campaign_options(config, indexed, created)
    options = list(is_indexed)
    if st.session_state.get(state.CAMPAIGN) not in options:  # a new tab, or a reload: the campaign in the address
        linked = st.query_params.get(CAMPAIGN_PARAM)  # as shown, or as the command line names it
        # the address's, else the campaign last started or read, else the configured one
        wanted = [slug(n) for n in (linked, state.latest_campaign(config), config.campaign) if n is not None]
        st.session_state[state.CAMPAIGN] = next((o for w in wanted for o in options if slug(o) == w), options[0])

    st.markdown("### :material/history_edu: Chronicler")
    chosen = st.session_state[state.CAMPAIGN]
    helped = "Each campaign has its own notes. Add or create one on the Ingest page."
    if slug(chosen) != chosen:  # the command line knows it by its stored name: said where it is looked for
        helped += f" The command line calls this one `{slug(chosen)}`."
    campaign = st.selectbox("Campaign", options, key=state.CAMPAIGN, help=helped)
    # The count sits beside the selector, not in its labels: the browser keeps showing a keyed
    # selectbox's old label when only the label text changes (seen after an index run).
    if st.query_params.get(CAMPAIGN_PARAM) != campaign:  # kept in the address: a reload stays in this campaign
        st.query_params[CAMPAIGN_PARAM] = campaign
    count = state.passage_count(config, campaign) if is_indexed.get(campaign) else 0
    st.caption(count_of(count, "passage") if count else "No notes yet")
    return campaign


def _search_controls(config: Config, campaign: str) -> None:
    """What a player decides first (the session cap, re-reading, other wordings); the engine room under
    "Advanced", with its own names."""
    st.markdown("#### Search options")
    _session_cap(config, campaign)
    st.session_state.setdefault(RERANK, config.reranker.enabled)
    st.session_state.setdefault(REREAD, min(max(5, 5 * round(config.reranker.candidates / 5)), MAX_REREAD))
    reranks = st.toggle("Rerank passages", key=RERANK, help=RERANK_HELP)
    # greyed, not hidden, while reranking is off: a hidden slider drawn again after a question came back at 5 in
    # the browser (the kept value put back was lost), and a player saw the re-reading change without a word
    st.slider("Passages to re-read", 5, MAX_REREAD, step=5, key=REREAD, help=REREAD_HELP, disabled=not reranks)
    st.session_state.setdefault(EXPAND, config.retrieval.query_expansion)
    kept(PHRASINGS, config.retrieval.expansion_variants)
    if st.toggle("Expand the question", key=EXPAND, help=EXPAND_HELP):
        if config.answer.uses_llm:  # how many the language model writes; offline there is one wording
            st.slider(
                "Other wordings to search",
                1,
                8,
                key=PHRASINGS,
                help="More wordings find more, but each one is one more search and a call to the language model.",
            )
        else:
            st.caption(
                ":material/info: Without a language model, one more wording is searched: your question with the "
                "words its best passages share. Add one in Settings → Answers for other wordings too."
            )
    with st.expander("Advanced", icon=":material/tune:"):
        _advanced_controls(config)


def _advanced_controls(config: Config) -> None:
    st.session_state.setdefault(MODE, config.retrieval.mode)
    mode = st.radio("How to search", list(MODES), key=MODE, format_func=MODES.get, help=MODE_HELP)
    kept(KEYWORD_WEIGHT, float(config.retrieval.keyword_weight))
    if mode == "hybrid":
        st.slider(
            "Weight of exact words",
            0.0,
            MAX_KEYWORD_WEIGHT,
            step=0.25,
            key=KEYWORD_WEIGHT,
            help="Hybrid weight: how much the exact-word rankings (the passage alone, and with its "
            "neighbours) count against the meaning ranking (1 = equal). Higher favours names; lower "
            "favours paraphrases.",
        )
    st.session_state.setdefault(TOP_K, min(config.retrieval.k, 20))
    st.slider(
        "Passages to show (top-k)",
        1,
        max(20, config.retrieval.k),
        key=TOP_K,
        help="How many of the best-matching passages are shown (and, later, given to the answerer).",
    )
    top, step, default = threshold_range(mode, config)
    tkey = threshold_key(mode)
    for other in MODES:  # each mode's slider keeps its value while another mode's is shown
        kept(threshold_key(other), threshold_range(other, config)[2])
    st.slider(
        "Minimum score (threshold)",
        0.0,
        top,
        step=step,
        key=tkey,
        format="%.4f" if mode == "hybrid" else "%.2f",
        help="Passages scoring below this are dropped, even if that leaves fewer than top-k. "
        "0 keeps everything. Scores are on a different scale for each search mode.",
    )


def _session_cap(config: Config, campaign: str) -> None:
    try:
        chunks = state.campaign_chunks(config, campaign)
    except ChroniclerError:
        chunks = []
    sessions, days = sessions_of(chunks), session_days(chunks)
    linked = st.query_params.get(AS_OF_PARAM)
    if SESSION_CAP not in st.session_state and linked:  # a reload or a shared link: the cap in the address
        st.session_state[SESSION_CAP] = next((s for s in sessions if format_session(s) == linked), ALL_SESSIONS)
    # "all", not None: a selectbox whose value is None shows "Choose an option" and a clear button.
    if st.session_state.get(SESSION_CAP) not in [ALL_SESSIONS, *sessions]:
        st.session_state[SESSION_CAP] = ALL_SESSIONS
    st.selectbox(
        "As of session",
        [ALL_SESSIONS, *sessions],
        key=SESSION_CAP,
        format_func=lambda s: (
            "All sessions"
            if s == ALL_SESSIONS
            else f"Session {format_session(s)}" + (f" ({days[s]})" if s in days else "")
        ),
        help="Search only notes up to this session: no spoilers from later sessions, "
        "and answers as the characters knew things back then.",
    )
    cap = st.session_state[SESSION_CAP]
    shown = None if cap == ALL_SESSIONS else format_session(cap)
    if linked != shown:  # kept in the address, as the campaign is: a reload of the page keeps the spoilers out
        if shown is None:
            del st.query_params[AS_OF_PARAM]
        else:
            st.query_params[AS_OF_PARAM] = shown
