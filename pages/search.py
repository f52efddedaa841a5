"""Search your notes / retrieval inspector: what a question finds, every candidate's score per stage,
and where the threshold cuts. The sidebar's mode, top-k, threshold and session cap apply live."""

from __future__ import annotations

from email.utils import parseaddr

import streamlit as st

from app import routing, sidebar, state
from app.charts import (
    WHY_CAPTION,
    first_places,
    hits_per_session_figure,
    moved_out,
    rank_movement_figure,
    score_distribution_figure,
    stage_scores_figure,
    why_figure,
    why_legend,
)
from app.markdown import as_written
from app.tables import STAGE_LABELS, STAGES, count_of, hits_frame, stages_run
from rag.errors import CampaignNotFoundError, ChroniclerError
from rag.models import Filters, format_session

PLOT = {"displayModeBar": False}


def _md(text: str) -> str:
    """A passage's text as written: its brackets too (no citation label on this page)."""
    return as_written(text, brackets=False)


routing.require_router()
config = state.get_config()
campaign = state.current_campaign(config)

st.title(":material/manage_search: Search your notes")
st.caption(f"See which passages of **{campaign}** a question finds, and why. Search options are in the sidebar.")

if "question" not in st.session_state:  # keep the question when the player visits another page and returns
    st.session_state["question"] = st.session_state.get("_last_question", "")
question = st.text_input(
    "Question",
    key="question",
    placeholder="e.g. Who gave us the map?",
    help="Ask as you would ask a fellow player; press Enter to search.",
)
st.session_state["_last_question"] = question
if not question.strip():
    st.info(
        "Type a question above. The passages that match best appear here, with the scores that ranked them.",
        icon=":material/lightbulb:",
    )
    st.stop()

cfg, filters = sidebar.search_settings(config)
try:
    senders = sorted({c.sender for c in state.campaign_chunks(config, campaign) if c.sender})
except ChroniclerError:
    senders = []
if senders:  # only campaigns with e-mailed notes have anything to filter by here
    with st.expander("E-mail filters", icon=":material/mail:"):
        left, right = st.columns(2)
        chosen = left.multiselect("From", senders, key="f_senders", help="Only mails from these senders.")
        subject = right.text_input(
            "Subject has the words", key="f_subject", help="Only mails whose subject contains every one of these words."
        )
    addresses = tuple(parseaddr(sender)[1] or sender for sender in chosen)  # what the store's sender keys hold
    filters = Filters(**{**vars(filters), "senders": addresses, "subject": subject.strip()})
try:
    result = state.pipeline(cfg).search(question, campaign, filters)
except ChroniclerError as err:
    st.error(err.one_line())
    if isinstance(err, CampaignNotFoundError):
        st.page_link("pages/ingest.py", label="Add notes to this campaign", icon=":material/upload_file:")
    st.stop()

for notice in result.notices:
    st.warning(notice, icon=":material/info:")
hits, candidates = result.hits, result.candidates
threshold = cfg.retrieval.score_threshold
below = sum(not h.kept for h in candidates)
summary = [count_of(len(hits), "passage")]
if filters.session_max is not None:
    summary.append(f"as of Session {format_session(filters.session_max)}")
summary.append(f"{1000 * result.timings.get('total', 0):.0f} ms")
st.caption(" · ".join(summary))
expanded = getattr(result, "variants", {}).get("keyword", result.question)
if result.mode != "dense" and expanded != result.question:
    st.caption(
        f"Also looked for other names from your notes: **{_md(expanded[len(result.question) :].strip())}**",
        help="Other names your notes give the people and places you asked about, from [[Page|other name]] "
        "links and front matter aliases. Turn it off in Settings.",
    )


# -- passages -------------------------------------------------------------------------------------------
st.subheader("Passages")
if not hits:
    st.warning(
        "No passage matched well enough. Lower the minimum score (sidebar → Advanced), or ask another way.",
        icon=":material/search_off:",
    )
elif result.shares_no_word:  # "xyzzy plugh" listed five livestream passages as matches
    st.info(
        "None of these passages has a word of your question: they are only the nearest in meaning, and may have "
        "nothing to do with it. Check the spelling, or ask with the words your notes use.",
        icon=":material/search_off:",
    )
for hit in hits:
    c = hit.chunk
    with st.container(border=True):
        session = f"Session {format_session(c.session)}" if c.session is not None else c.kind
        where = [p for p in dict.fromkeys((session, c.heading or c.title)) if p]  # a note without headings
        st.markdown(  # is headed by its title, "Session 4": said once
            f"**#{hit.rank} · {_md(c.name)}**  \n:gray[{' · '.join(map(_md, where))} · `{_md(c.source)}`]"
        )
        st.markdown(_md(c.text))

# -- why these --------------------------------------------------------------------------------------------
if hits:
    st.subheader("Why these passages")
    figure = why_figure(hits, cfg.retrieval, result.mode)
    st.plotly_chart(figure, width="stretch", config=PLOT, key="chart_why")
    st.markdown(why_legend(figure), unsafe_allow_html=True)
    st.caption(WHY_CAPTION)
    if out := moved_out(hits, first_places(candidates)):
        st.caption(out)
advanced = st.expander("Advanced: every search stage and candidate", icon=":material/tune:")
if result.queries[1:]:  # the offline wording is the best passages' shared words, not a question a player asks
    advanced.caption(
        "Also searched these wordings: " + " · ".join(f"**{_md(q)}**" for q in result.queries[1:]),
        help="Expand the question (sidebar). Each passage keeps its best match; 'found by' in the table "
        "below says which wording found it.",
    )
advanced.caption(
    f"{len(hits)} shown of {len(candidates)} candidates · mode: {sidebar.MODES[result.mode]}"
    + (f" · threshold {threshold:g} dropped {below}" if threshold is not None else "")
)
ran = stages_run(result.mode, candidates)
advanced.plotly_chart(stage_scores_figure(hits, result.mode), width="stretch", config=PLOT, key="chart_stages")
left, right = advanced.columns(2, gap="large")
left.plotly_chart(
    score_distribution_figure(candidates, threshold, hits),
    width="stretch",
    config=PLOT,
    key="chart_distribution",
)
right.plotly_chart(hits_per_session_figure(candidates, hits), width="stretch", config=PLOT, key="chart_sessions")
movement = rank_movement_figure(candidates, hits)
if movement is not None:
    advanced.plotly_chart(movement, width="stretch", config=PLOT, key="chart_movement")

advanced.markdown("**Every candidate**")
advanced.caption(
    "A score shown as a dash means that search stage did not run or did not find the passage; it is not a zero."
)
frame = hits_frame(candidates, hits)
stage_help = {
    "dense": "Meaning-based similarity (cosine, -1 to 1).",
    "keyword": "Exact-word match strength (BM25; higher is better, no upper limit).",
    "context": "Hybrid only: exact-word strength of the passage read together with the passages just before "
    "and after it, so a bullet is found by a name in the bullet before it (BM25).",
    "first_mention": 'Hybrid, "when did we first meet …" questions only: 1 for the earliest passage in your '
    "notes naming who you asked about, 1/2 for the next passage naming them in that note, and so on; for "
    '"when did we last see …", the latest passage naming them, then the one before.',
    "links": "Hybrid only: a session passage that [[links]] a character, place or lore page among the best "
    "matches gets part of that page's score: the notes' own links say where the page's subject appears.",
    "fused": "Hybrid only: the rankings combined (reciprocal rank fusion); a character, place or lore page counts "
    "half unless you ask who or what something is.",
    "expansion": f'"Expand the question" only: what the other wordings found, {cfg.retrieval.expansion_weight:g} '
    "of their combined score (retrieval.expansion_weight), added to the question's own.",
    "rerank": "Score from a reranking model, when one is configured.",
}
columns = {s: st.column_config.NumberColumn(STAGE_LABELS[s], help=stage_help[s], format="%.4f") for s in STAGES}
columns["searched"] = st.column_config.NumberColumn(
    "search score", format="%.4f", help="The search's own score, before any re-reading: what the minimum score cuts."
)
columns["score"] = st.column_config.NumberColumn(
    "final score", format="%.4f", help="The score the final order was made by."
)
columns["status"] = st.column_config.TextColumn(
    "status",
    help="shown: in the passages above. below threshold: dropped by the minimum score. "
    "not in top-k: passed, but only the top-k are shown.",
)
columns["found by"] = st.column_config.TextColumn(
    "found by", help="The phrasing of the question whose search found this passage best."
)
columns["text"] = st.column_config.TextColumn("text", width="large")
advanced.dataframe(
    frame,
    hide_index=True,
    width="stretch",
    column_config=columns,
    placeholder="–",  # a stage that did not score the passage: not "None", a word a player does not read
    key="candidates_table",
    column_order=[
        "rank",
        "status",
        "session",
        "name",
        *STAGES,
        "searched",
        "score",
        "found by",
        "heading",
        "source",
        "text",
    ],
)
if set(STAGES) - set(ran):
    not_run = ", ".join(STAGE_LABELS[s] for s in STAGES if s not in ran)  # by the mode, or by the question
    advanced.caption(f"Stages that did not run for this search: {not_run}.")
