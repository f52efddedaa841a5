"""Chronicler's entry point: `streamlit run streamlit_app.py`.

Only routing and the sidebar live here. The sidebar widgets are drawn on every page so their values
(campaign, search mode, top-k, threshold, session cap) survive page switches; pages read them through
``app_state``. Pages hold layout only and call ``rag``.
"""

from __future__ import annotations

import streamlit as st

from app import state
from rag.errors import ChroniclerError
from rag.llm import llm_configured
from rag.models import format_session
from app.charts import sessions_of

st.set_page_config(page_title="Chronicler", page_icon="📜", layout="wide", initial_sidebar_state="auto")

pages = [
    st.Page("pages/chat.py", title="Ask the chronicle", icon=":material/forum:", default=True),
    st.Page("pages/home.py", title="Campaign", icon=":material/auto_stories:"),
    st.Page("pages/search.py", title="Search notes", icon=":material/manage_search:"),
    st.Page("pages/ingest.py", title="Ingest notes", icon=":material/upload_file:"),
    st.Page("pages/settings.py", title="Settings", icon=":material/settings:"),
]
page = st.navigation(pages)

config = state.get_config()
state.first_start(config)

# -- campaign -----------------------------------------------------------------------------------------
indexed = state.campaigns(config)
created = st.session_state.setdefault("_created_campaigns", [])
pending = st.session_state.pop(state.PENDING_CAMPAIGN, None)
if pending:
    if pending not in created:
        created.append(pending)
    st.session_state[state.CAMPAIGN] = pending
counts = state.campaign_options(config, indexed, created)
options = list(counts)
if st.session_state.get(state.CAMPAIGN) not in options:
    st.session_state[state.CAMPAIGN] = config.campaign if config.campaign in options else options[0]


with st.sidebar:
    st.markdown("### :material/history_edu: Chronicler")
    campaign = st.selectbox(
        "Campaign",
        options,
        key=state.CAMPAIGN,
        help="Each campaign has its own notes. Add or create one on the Ingest page.",
    )
    # The count sits beside the selector, not in its labels: the browser keeps showing a keyed
    # selectbox's old label when only the label text changes (seen after an index run).
    st.caption(f"{counts[campaign]} passages" if counts.get(campaign) else "No notes yet")

    # -- shared search controls -------------------------------------------------------------------
    st.markdown("#### Search options")
    st.session_state.setdefault(state.MODE, config.retrieval.mode)
    mode = st.radio(
        "How to search", list(state.MODES), key=state.MODE, format_func=state.MODES.get, help=state.MODE_HELP
    )
    if mode == "hybrid":
        st.session_state.setdefault(state.KEYWORD_WEIGHT, float(config.retrieval.keyword_weight))
        st.slider(
            "Weight of exact words",
            0.0,
            state.MAX_KEYWORD_WEIGHT,
            step=0.25,
            key=state.KEYWORD_WEIGHT,
            help="Hybrid weight: how much the exact-word rankings (the passage alone, and with its "
            "neighbours) count against the meaning ranking (1 = equal). Higher favours names; lower "
            "favours paraphrases.",
        )
    st.session_state.setdefault(state.TOP_K, min(config.retrieval.k, 20))
    st.slider(
        "Passages to show (top-k)",
        1,
        max(20, config.retrieval.k),
        key=state.TOP_K,
        help="How many of the best-matching passages are shown (and, later, given to the answerer).",
    )
    st.session_state.setdefault(state.RERANK, config.reranker.enabled)
    st.toggle("Rerank passages", key=state.RERANK, help=state.RERANK_HELP)
    st.session_state.setdefault(state.EXPAND, config.retrieval.query_expansion)
    st.session_state.setdefault(state.PHRASINGS, config.retrieval.expansion_variants)
    expand = st.toggle("Expand the question", key=state.EXPAND, help=state.EXPAND_HELP)
    if expand:
        st.slider(
            "Other phrasings to search",
            1,
            8,
            key=state.PHRASINGS,
            help="More phrasings find more, but each one costs a language-model call and a search.",
        )
        if not llm_configured(config.answer):
            st.caption(
                ":material/info: Needs a language model: choose one in Settings → Answers. "
                "Until then searches use your question as typed."
            )
    top, step, default = state.threshold_range(mode, config)
    tkey = state.threshold_key(mode)
    st.session_state.setdefault(tkey, default)
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
    try:
        sessions = sessions_of(state.campaign_chunks(config, campaign))
    except ChroniclerError:
        sessions = []
    # "all", not None: a selectbox whose value is None shows "Choose an option" and a clear button.
    if st.session_state.get(state.SESSION_CAP) not in [state.ALL_SESSIONS, *sessions]:
        st.session_state[state.SESSION_CAP] = state.ALL_SESSIONS
    st.selectbox(
        "As of session",
        [state.ALL_SESSIONS, *sessions],
        key=state.SESSION_CAP,
        format_func=lambda s: "All sessions" if s == state.ALL_SESSIONS else f"Session {format_session(s)}",
        help="Search only notes up to this session: no spoilers from later sessions, "
        "and answers as the characters knew things back then.",
    )

state.mark_routed()
page.run()
