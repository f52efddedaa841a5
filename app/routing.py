"""The one workaround for a folder named ``pages/``: every page runs inside the router.

A folder named ``pages/`` next to the entry script makes Streamlit start in its old multipage mode until
``st.navigation`` has run once in the process. So the first run of a fresh server that lands on a page URL
(a bookmark, a browser reconnecting after a restart) and every ``AppTest.switch_page`` run would execute the
page alone, without the sidebar and the page config. The router marks each run it makes; a page that finds
no mark switches the old mode off and reruns, which goes through the router.
"""

from __future__ import annotations

import threading

import streamlit as st

_routed = threading.local()  # set by the router just before it runs a page, in the same script thread


def mark_routed() -> None:
    _routed.ok = True


def require_router() -> None:
    """Every page calls this first."""
    if getattr(_routed, "ok", False):
        _routed.ok = False
        return
    try:
        from streamlit.runtime.pages_manager import PagesManager

        PagesManager.uses_pages_directory = False
    except ImportError:  # a Streamlit without the flag has no old mode to fall into
        return
    st.rerun()
