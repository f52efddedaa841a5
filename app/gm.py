"""Player view and GM view in the app.

Everyone who opens the app gets the player view: GM-only passages are left out of every search, list and
chart (``Config.view``, enforced in the store queries). The GM view needs the game master's passphrase, set
outside the app: ``gm_passphrase`` in ``.streamlit/secrets.toml`` or the ``CHRONICLER_GM_PASSPHRASE``
environment variable. With no passphrase set there is no GM view in the app at all, whatever the config
files say; the CLI has ``--gm`` instead (whoever runs it can read the files anyway).

A passphrase also makes the app *shared*: the player view may then only ask, search and browse, and every
action (adding notes, settings, tests, measuring) is the GM view's (``Config.role``, checked by ``rag.access``
where each action runs). Without one the app is one person's, and everything stays open.
"""

from __future__ import annotations

import hmac
import os

import streamlit as st

from rag.access import GM, OWNER, PLAYER, Role
from rag.config import GM_PASSPHRASE_ENV

UNLOCKED = "_gm_view"  # session state: this browser session entered the passphrase
ATTEMPT, WRONG = "gm_attempt", "_gm_wrong"  # the passphrase field; the last attempt failed
# What pages keep between reruns that was read in one view: the chat's turns (pages/chat.py), the Campaign
# page's question-file result (pages/home.py), the last ingest report (pages/ingest.py). Dropped whenever the
# view changes, so a GM who hands the screen back to the table leaves no answer on it.
VIEW_SCOPED = ("chat_turns", "_campaign_eval", "last_report")
SECRET_KEY = "gm_passphrase"  # in .streamlit/secrets.toml
PLAYER_LABEL = "Player view: GM notes hidden"
GM_LABEL = "GM view: GM-only notes shown"


def passphrase() -> str:
    """The configured passphrase, or "" when none is set (no GM view)."""
    try:
        secret = st.secrets.get(SECRET_KEY, "")
    except Exception:  # no secrets.toml, or one that does not parse: no passphrase from there
        secret = ""
    return str(secret or os.environ.get(GM_PASSPHRASE_ENV, "")).strip()


def view() -> str:
    """ "gm" only for a session that entered the passphrase while one is set; otherwise "player"."""
    return "gm" if st.session_state.get(UNLOCKED) and passphrase() else "player"


def role_for(view: str) -> Role:
    """Who acts in a session in ``view``: the owner of an app without a passphrase, else the GM in the GM view
    and a player in the player view."""
    if not passphrase():
        return OWNER
    return GM if view == "gm" else PLAYER


def current_role() -> Role:
    """This session's role, for a button callback that has no config at hand."""
    return role_for(view())


def shared() -> bool:
    """Whether the app is shared with the table (a GM passphrase is set)."""
    return bool(passphrase())


def unlock(attempt: str) -> bool:
    """Open the GM view for this session when ``attempt`` is the passphrase (compared in constant time)."""
    secret = passphrase()
    ok = bool(secret) and hmac.compare_digest(attempt.strip().encode(), secret.encode())
    if ok:
        _forget()
    st.session_state[UNLOCKED] = ok
    return ok


def lock() -> None:
    _forget()
    st.session_state[UNLOCKED] = False


def _forget() -> None:
    for key in VIEW_SCOPED:
        st.session_state.pop(key, None)


def _submit() -> None:
    """Form callback: runs before the rerun, so every page of that run already sees the new view."""
    st.session_state[WRONG] = not unlock(st.session_state.get(ATTEMPT, ""))
    st.session_state[ATTEMPT] = ""  # the passphrase does not stay in the widget


def draw() -> None:
    """The sidebar's view line; with a passphrase set, the form that opens the GM view (or the button that
    closes it)."""
    if view() == "gm":
        st.warning(GM_LABEL, icon=":material/visibility:")
        st.button("Back to the player view", key="gm_lock", on_click=lock, width="stretch")
        return
    st.caption(f":material/visibility_off: {PLAYER_LABEL}")
    if not passphrase():
        return
    with st.expander("Game master", expanded=bool(st.session_state.get(WRONG))):
        with st.form("gm_unlock", border=False):
            st.text_input("GM passphrase", type="password", key=ATTEMPT)
            st.form_submit_button("Show GM notes", on_click=_submit)
        if st.session_state.get(WRONG):
            st.error("That is not the GM passphrase.")
