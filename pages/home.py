"""Campaign overview: what Chronicler knows about the selected campaign, or what to do first."""

from __future__ import annotations

import streamlit as st

import app_state as state
from rag.errors import ChroniclerError
from rag.models import format_session
from rag.ui_data import chunks_per_session_figure, files_frame, sessions_of, top_entities

state.require_router()
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
entities = top_entities(chunks, n=1000)
files = files_frame(chunks)

cols = st.columns(4)
cols[0].metric(
    "Sessions", len(sessions), help="Notes whose file name gives a session number, e.g. 'Session 12.md'."
)
cols[1].metric(
    "People, places & things",
    len(entities),
    help="Distinct [[wiki links]] in your notes: characters, places, items, factions.",
)
cols[2].metric(
    "Passages",
    len(chunks),
    help="Notes are cut into short passages; a search returns the passages that match best.",
)
cols[3].metric("Files", len(files))
if sessions:
    st.caption(f"Sessions {format_session(sessions[0])} to {format_session(sessions[-1])}.")

left, right = st.columns([3, 2], gap="large")
with left:
    st.plotly_chart(chunks_per_session_figure(chunks), width="stretch", config={"displayModeBar": False})
with right:
    st.markdown("**Most mentioned**")
    if entities.empty:
        st.caption("No [[wiki links]] found. Link names in your notes like [[Grog]] to see them here.")
    else:
        st.dataframe(
            entities.head(15),
            hide_index=True,
            width="stretch",
            column_config={
                "passages": st.column_config.ProgressColumn(
                    "passages", format="%d", min_value=0, max_value=int(entities["passages"].max())
                )
            },
        )

st.subheader("Files")
st.dataframe(
    files,
    hide_index=True,
    width="stretch",
    column_config={
        "chunks": st.column_config.NumberColumn("passages", help="Passages cut from the file"),
        "entities": st.column_config.NumberColumn("links", help="Distinct [[links]] in it"),
    },
)
st.page_link("pages/search.py", label="Search these notes", icon=":material/manage_search:")
