"""People, places and things: everyone and everywhere the notes link, one entry per entity however many names
it has; pick one to see its page, every mention by session, and who it is seen with."""

from __future__ import annotations

import streamlit as st

from app import routing, sidebar, state, story
from app.tables import count_of
from rag.errors import ChroniclerError
from rag.models import format_session

routing.require_router()
config = state.get_config()
campaign = state.current_campaign(config)
PICKED = "entity"

st.title(":material/groups: People & places")
st.caption(
    f"Everyone and everything your notes on **{campaign}** link with [[double brackets]], give a page, or write as "
    "a name (with a capital, in two passages or more), each once, whatever name the notes use; a passage that "
    "writes one of their names mentions them, linked or not. The sidebar's 'As of session' keeps later sessions out."
)
_, filters = sidebar.search_settings(config)
pipeline = state.pipeline(config)
try:
    cast = pipeline.cast(campaign, filters)
except ChroniclerError as err:
    st.error(err.one_line())
    st.stop()
entities = cast.entities
if not entities:
    st.info(
        "No one here yet. Write names with a capital, link them like [[Grog]] or give people and places pages of "
        "their own (a note in an NPCs or Locations folder), then read the notes again.",
        icon=":material/person_search:",
    )
    st.stop()

names = [e.name for e in entities]
if st.session_state.get(PICKED) not in names:
    st.session_state[PICKED] = names[0]
left, right = st.columns([1, 1], gap="large")
with left:
    st.dataframe(
        story.entities_frame(entities),
        hide_index=True,
        width="stretch",
        height=520,
        key="entities_table",
        column_order=["name", "also called", "passages"],  # the rest is on each one's page: it fits a phone
        column_config={
            "name": st.column_config.TextColumn("name", width=140),
            "also called": st.column_config.TextColumn("also called", width=130),
            "passages": st.column_config.NumberColumn("passages", width=70),
        },
    )
with right:
    name = st.selectbox("Show", names, key=PICKED, help="Type to find someone by name.")
    entity = cast.find(name)
    also = f" · also called {', '.join(entity.aliases[:5])}" if entity.aliases else ""
    seen = f"first in {entity.first_seen}, last in {entity.last_seen}" if entity.sessions else "in no session note"
    # what other notes say of it: a page's own passages are its page, so "0 passages" read as "nothing was read"
    # beside a page of 13 passages (vault-cos-bahodge walk, "Quests")
    named = count_of(entity.mentions, "passage") if entity.mentions else "no other note names it"
    st.subheader(entity.name)
    how = entity.kind or ("named in the notes, never linked" if entity.unlinked else "linked in the notes")
    st.caption(f"{how}{also} · {named} · {seen}")
    own = cast.page(entity)
    if own:
        for c in story.page_opening(own):
            st.markdown(story.as_markdown(c))
        st.caption(f"From its page, {own[0].source}")
    elif entity.page:
        st.caption(f"Its page, {entity.page}, has nothing written in it yet.")
    if st.button(f"Ask about {entity.name}", icon=":material/forum:", key="ask_about"):
        story.ask_in_chat(story.ask_about(entity))
    if entity.sessions:
        entries = pipeline.timeline(campaign, filters)
        st.plotly_chart(
            story.appearances_figure(cast, entity, entries), width="stretch", config={"displayModeBar": False}
        )
    together = cast.seen_with(entity)
    if together:
        st.markdown("**Seen with** " + " · ".join(f"{other} ({n})" for other, n in together))

st.subheader(f"Every mention of {entity.name}")
found = story.once_each([c for c in cast.mentions(entity) if c.source != entity.page])
if not found:
    st.caption("No session passage names them yet.")
for c, copies in found[:40]:
    where = f"Session {format_session(c.session)}" if c.session is not None else c.title
    with st.container(border=True):  # "[Session 0 · Notes]" names its session already
        st.markdown(f"**[{c.name}]**" + ("" if where in c.name else f" :gray[{where}]"))
        st.markdown(story.as_markdown(c))
        if copies:
            st.caption("The same words are also in " + ", ".join(f"[{copy.name}]" for copy in copies) + ".")
if len(found) > 40:
    st.caption(f"…and {len(found) - 40} more. Search notes finds any of them.")
