"""The story so far: the sessions in order (when they were played, when in the story, their scenes, who first
appears), and a "previously on…" recap of any session or range, every line cited."""

from __future__ import annotations

import streamlit as st

from app import routing, sidebar, state, story
from rag.errors import ChroniclerError

routing.require_router()
config = state.get_config()
campaign = state.current_campaign(config)

st.title(":material/timeline: Story so far")
st.caption(f"The sessions of **{campaign}** in order, and what happened in them, told by your own notes.")
_, filters = sidebar.search_settings(config)
pipeline = state.pipeline(config)
try:
    entries = pipeline.timeline(campaign, filters)
except ChroniclerError as err:
    st.error(err.one_line())
    st.stop()
if not entries:
    st.info(
        "No session notes yet. Session notes are files named like 'Session 12.md' (or with `session: 12` in their "
        "front matter); add them on the Ingest page.",
        icon=":material/event_note:",
    )
    st.stop()

st.subheader("Previously on…")
labels = [e.label for e in entries]
c1, c2 = st.columns(2)
first = c1.selectbox("From", labels, index=len(labels) - 1, key="recap_from")
last = c2.selectbox(
    "To",
    labels,
    index=len(labels) - 1,
    key="recap_to",
    help="The recap tells every session from the one chosen in From to this one; choose the same session in "
    "both to recap one evening.",
)
start, end = sorted((labels.index(first), labels.index(last)))
lines = pipeline.recap([e.key for e in entries[start : end + 1]], campaign, filters)
if not lines:
    st.caption("Those sessions have no lines to recap.")
with st.container(border=True):
    for x in lines:
        st.markdown(f"- {x.text} **[{x.label}]**")
    st.caption("Every line is a sentence of your notes; the name after it is the passage it comes from.")

st.subheader("Timeline")
st.caption(
    "Each session as its notes title it, its scenes of the story (the table talk around them left out), and who "
    "first appears in it."
)
with st.container(height=560 if len(entries) > 12 else "content", border=False, key="timeline"):
    st.table(story.timeline_frame(entries).set_index("session"), border="horizontal")
