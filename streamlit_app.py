"""Chronicler's entry point: ``streamlit run streamlit_app.py``. Routing only.

The sidebar (``app.sidebar``) is drawn on every page so its values survive page switches; the first start
indexes the demo campaign (``app.state.first_start``). Pages hold layout only and call ``rag`` through
``app.state.pipeline``.
"""

from __future__ import annotations

import streamlit as st

from app import routing, sidebar, state

page = st.navigation(
    [
        st.Page("pages/chat.py", title="Ask the chronicle", icon=":material/forum:", default=True),
        st.Page("pages/home.py", title="Campaign", icon=":material/auto_stories:"),
        st.Page("pages/people.py", title="People & places", icon=":material/groups:"),
        st.Page("pages/story.py", title="Story so far", icon=":material/timeline:"),
        st.Page("pages/search.py", title="Search notes", icon=":material/manage_search:"),
        st.Page("pages/ingest.py", title="Ingest notes", icon=":material/upload_file:"),
        st.Page("pages/settings.py", title="Settings", icon=":material/settings:"),
    ]
)
# The browser tab names the page too: a player with the chat and the search open in two tabs tells them apart.
st.set_page_config(page_title=f"{page.title} · Chronicler", page_icon="📜", layout="wide", initial_sidebar_state="auto")
config = state.get_config()
state.first_start(config)
sidebar.draw(config)
routing.mark_routed()
page.run()
