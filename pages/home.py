"""Campaign overview: what Chronicler knows about the selected campaign, or what to do first."""

from __future__ import annotations

import streamlit as st

from app import campaign_eval, routing, sidebar, state
from app.charts import chunks_per_session_figure
from app.story import most_mentioned
from app.tables import files_frame, sessions_of
from rag import access
from rag.errors import ChroniclerError
from rag.measure.evaluation import evaluate
from rag.measure.questions import parse_questions
from rag.models import format_session

routing.require_router()
config = state.get_config()
campaign = state.current_campaign(config)

st.title(f":material/auto_stories: {campaign}")
st.caption("Your campaign at a glance: what Chronicler has read from your session notes.")

try:
    chunks = state.campaign_chunks(config, campaign)
except ChroniclerError as err:
    st.error(err.one_line())
    st.page_link("pages/settings.py", label="Check the store settings", icon=":material/settings:")
    st.stop()

if not chunks:
    st.info(
        f"**No notes in '{campaign}' yet.** Add your notes on the Ingest page: upload Markdown files "
        "or a zipped Obsidian vault, and Chronicler will read them in a minute or two.",
        icon=":material/upload_file:",
    )
    st.page_link("pages/ingest.py", label="Add your notes", icon=":material/upload_file:")
    st.stop()

sessions = sessions_of(chunks)
_, cap = sidebar.search_settings(config)  # no one from later sessions than "As of session"
try:
    cast = state.pipeline(config).cast(campaign, cap)  # the same people and places as People & places
except ChroniclerError as err:
    st.error(err.one_line())
    st.stop()
files = files_frame(chunks)

cols = st.columns(4)
cols[0].metric(
    "Sessions",
    len(sessions),
    help=(
        "Notes that give a session number in their name or title, e.g. 'Session 12.md' or '2023-04-01 Session 12'. "
        "Session notes named only by the day you played ('Sessions/2023-04-01.md') are counted in date order. "
        "Beside numbered notes, a dated note joins the session played on its day where a numbered note gives "
        "that day, and is otherwise read as a page: name them all one way."
    ),
)
cols[1].metric(
    "People, places & things",
    len(cast.entities),
    help="Everyone and everything your notes [[link]] or give a page, once each whatever name the notes use: "
    "characters, places, items, factions.",
)
cols[2].metric(
    "Passages",
    len(chunks),
    help="Notes are cut into short passages; a search returns the passages that match best.",
)
cols[3].metric("Files", len(files))
if sessions:
    st.caption(f"Sessions {format_session(sessions[0])} to {format_session(sessions[-1])}.")
if cap.session_max is not None:  # the counts describe the notes; who is in them is what a cap keeps back
    st.caption(
        f"People, places & things and Most mentioned stop at Session {format_session(cap.session_max)} (the sidebar's "
        "'As of session'); sessions, passages, files and the chart count all your notes."
    )

left, right = st.columns([3, 2], gap="large")
with left:
    st.plotly_chart(chunks_per_session_figure(chunks), width="stretch", config={"displayModeBar": False})
with right:
    st.markdown("**Most mentioned**")
    top = most_mentioned(cast.entities)
    if top.empty:
        st.caption("No [[wiki links]] found. Link names in your notes like [[Grog]] to see them here.")
    else:
        st.dataframe(
            top,
            hide_index=True,
            width="stretch",
            key="most_mentioned",
            column_config={
                "passages": st.column_config.ProgressColumn(
                    "passages", format="%d", min_value=0, max_value=int(top["passages"].max())
                )
            },
        )
        st.page_link("pages/people.py", label="Everyone on People & places", icon=":material/groups:")

st.subheader("Files")
st.dataframe(
    files,
    hide_index=True,
    width="stretch",
    column_config={
        "passages": st.column_config.NumberColumn("passages", help="Passages cut from the file"),
        "entities": st.column_config.NumberColumn("links", help="Distinct [[links]] in it"),
    },
)
st.page_link("pages/search.py", label="Search these notes", icon=":material/manage_search:")

# -- the campaign's own evaluation (rag/campaign_eval.py) ---------------------------------------------------------
EVAL = "_campaign_eval"  # {"campaign", "source", "result"}: kept across reruns and page switches
if not access.may(config.role, "measure"):
    st.caption(
        "Your game master can measure here how often a search finds the answers to questions they know "
        "(in the GM view)."
    )
    st.stop()
with st.expander("Advanced: how well does search find the answers?", icon=":material/fact_check:"):
    st.caption(
        "Write down questions you know the answers to, with the session and a few words of the notes that answer "
        "each, and Chronicler measures how often a search finds them. Put them in a "
        f"`{campaign_eval.QUESTION_FILE}` file in the campaign's notes folder, or upload one here."
    )
    found = campaign_eval.question_file(config, campaign)
    upload = st.file_uploader(
        "Your questions, one per line (.jsonl)",
        type=["jsonl", "json"],
        key="eval_upload",
        help='One question per line, e.g. {"id": "q1", "question": "Who gave us the map?", "sessions": [2], '
        '"evidence": ["gives them a map of the mines"], "kind": "fact"}. Without "evidence", only the session counts.',
    )
    questions, source = None, None
    try:
        if upload is not None:
            source = upload.name
            questions = parse_questions(upload.getvalue(), upload.name)
        elif found is not None:
            source = found.name
            questions = parse_questions(found.read_bytes(), found.name)
    except ChroniclerError as err:
        st.error(err.one_line(), icon=":material/error:")
    if questions:
        st.caption(f"{len(questions)} questions from {source}.")
        if st.button("Measure how well search finds the answers", key="eval_run", icon=":material/fact_check:"):
            cfg, _ = sidebar.search_settings(config)  # the sidebar's mode, threshold and reranking; all sessions
            bar = st.progress(0.0, text="Asking the questions…")
            try:
                access.require(config.role, "measure")
                result = evaluate(
                    state.pipeline(cfg),
                    campaign,
                    questions,
                    progress=lambda done, total: bar.progress(done / total, text=f"Question {done} of {total}"),
                )
            except ChroniclerError as err:
                st.error(err.one_line())
            else:
                st.session_state[EVAL] = {"campaign": campaign, "source": source, "result": result}
    elif found is None and upload is None:
        st.info(f"No `{campaign_eval.QUESTION_FILE}` found for '{campaign}'.", icon=":material/quiz:")

    saved = st.session_state.get(EVAL)
    if saved and saved["campaign"] == campaign:
        result = saved["result"]
        if not result["scored"]:
            st.warning("None of these questions says which session answers it, so there is nothing to measure.")
        else:
            unscored = result["n"] - result["scored"]
            skipped = f" ({unscored} that name no session that answers them not counted)" if unscored else ""
            st.caption(f"{result['scored']} questions from {saved['source']}{skipped}. {campaign_eval.EXPLANATION}")
            values = campaign_eval.metric_values(result)
            for col, (key, value) in zip(st.columns(len(values)), values.items(), strict=True):
                label, help_text = campaign_eval.METRICS[key]
                col.metric(label, campaign_eval.format_metric(key, value), help=help_text)
            st.plotly_chart(campaign_eval.hit_at_k_figure(result), width="stretch", config={"displayModeBar": False})
            missed = campaign_eval.missed_frame(result)
            st.markdown(f"**Not found in the top {campaign_eval.HEADLINE_K}** ({len(missed)})")
            if missed.empty:
                st.caption("Every question was found.")
            else:
                st.dataframe(missed, hide_index=True, width="stretch")
