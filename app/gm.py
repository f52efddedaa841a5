"""Player view and GM view in the app, and who may act.

Everyone who opens the app gets the player view: GM-only passages are left out of every search, list and
chart (``Config.view``, enforced in the store queries). The GM view needs the game master's passphrase, set
outside the app: ``gm_passphrase`` in ``.streamlit/secrets.toml`` or the ``CHRONICLER_GM_PASSPHRASE``
environment variable. With no passphrase set there is no GM view in the app at all, whatever the config
files say; the CLI has ``--gm`` instead (whoever runs it can read the files anyway).

A passphrase also makes the app *shared*: the player view may then only ask, search and browse, and every
action (adding notes, settings, tests, measuring) is the GM view's (``Config.role``, checked by ``rag.access``
where each action runs). Without one the app is one person's, and everything stays open.

The passphrase resists guessing (``gm_view`` settings): it is compared in constant time, a longer input than
``max_chars`` is refused at once, and after a few wrong tries each next one waits, per browser session and for
the server as a whole (``app.throttle``), with one log line per burst. The GM view closes after
``idle_minutes`` without a click, even when nobody clicks again: a timer in the sidebar reruns the page.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import os
import threading
import time

import streamlit as st

from app.throttle import Tries
from rag import access
from rag.access import GM, OWNER, PLAYER, Role
from rag.config import GM_PASSPHRASE_ENV, Config, GMViewConfig, load_config

log = logging.getLogger("chronicler.gm")

UNLOCKED = "_gm_view"  # session state: this browser session entered the passphrase
SEEN = "_gm_seen"  # when this session last used the GM view (time.monotonic)
TRIES = "_gm_tries"  # this session's wrong tries (app.throttle.Tries)
ATTEMPT = "gm_attempt"  # the passphrase field
NOTICE = "_gm_notice"  # what the last try (or the idle timer) has to say, shown under the form
# What pages keep between reruns that was read in one view: the chat's turns (pages/chat.py), the Campaign
# page's question-file result (pages/home.py), the last ingest report (pages/ingest.py). Dropped whenever the
# view changes, so a GM who hands the screen back to the table leaves no answer on it.
VIEW_SCOPED = ("chat_turns", "_campaign_eval", "last_report")
# What the GM typed or picked in the GM view, which may name a secret: the search's question and its filters
# (pages/search.py), the person shown (pages/people.py). Dropped when the view goes back to the players'; what a
# player typed stays when the GM opens the GM view (the search runs again there).
GM_TYPED = ("question", "_last_question", "f_subject", "f_senders", "entity")
SECRET_KEY = "gm_passphrase"  # in .streamlit/secrets.toml
PLAYER_LABEL = "Player view: GM notes hidden"
GM_LABEL = "GM view: GM-only notes shown"
WRONG = "That is not the GM passphrase."
HOW_TO_SHARE = (
    "Notes marked GM only (a GM or Session Prep folder, gm-only: true, a #secret tag) are hidden here. To see them, "
    'and to share Chronicler with your table, set a GM passphrase: gm_passphrase = "…" in '
    ".streamlit/secrets.toml beside Chronicler, or the CHRONICLER_GM_PASSPHRASE environment variable. Then open "
    "the GM view here with it (docs/SECRETS.md)."
)
HOW_TO_OPEN = "The game master types the passphrase set for this app to see the GM-only notes in this browser."


def passphrase() -> str:
    """The configured passphrase, or "" when none is set (no GM view). A secrets file that changed or was removed
    is read again (``_secrets_files_changed``): removing the passphrase turns the GM view off without a restart."""
    if _secrets_files_changed():
        reset = getattr(st.secrets, "_reset", None)  # Streamlit reads the file once, and never again
        if reset is not None:
            reset()
    try:
        secret = st.secrets.get(SECRET_KEY, "")
    except Exception:  # no secrets.toml, or one that does not parse: no passphrase from there
        secret = ""
    return str(secret or os.environ.get(GM_PASSPHRASE_ENV, "")).strip()


_seen_files: list[tuple] = []  # the secrets files as last seen: (path, modified) of each, None when missing


def _secrets_files_changed() -> bool:
    """Whether a secrets file Streamlit reads was added, changed or removed since the last look. The app runs
    without a file watcher (.streamlit/config.toml), so Streamlit would keep what it read at the first page."""
    from streamlit import config as streamlit_config

    stamp = []
    for path in streamlit_config.get_option("secrets.files") or []:
        try:
            stamp.append((path, os.stat(path).st_mtime_ns))
        except OSError:
            stamp.append((path, None))
    with _seen_lock:
        changed = bool(_seen_files) and _seen_files[0] != stamp
        _seen_files[:] = [stamp]
    return changed


_seen_lock = threading.Lock()


def view(settings: GMViewConfig) -> str:
    """ "gm" only for a session that entered the passphrase while one is set, and used the GM view within
    ``idle_minutes``; otherwise "player". Each call counts as a use."""
    if not (st.session_state.get(UNLOCKED) and passphrase()):
        return "player"
    now = time.monotonic()
    if now - st.session_state.get(SEEN, now) > settings.idle_minutes * 60:
        lock()
        st.session_state[NOTICE] = f"The GM view closed after {settings.idle_minutes:g} minutes without use."
        return "player"
    st.session_state[SEEN] = now
    return "gm"


def role_for(view: str) -> Role:
    """Who acts in a session in ``view``: the owner of an app without a passphrase, else the GM in the GM view
    and a player in the player view."""
    if not passphrase():
        return OWNER
    return GM if view == "gm" else PLAYER


def current_role() -> Role:
    """This session's role, for a button callback that has no config at hand."""
    return role_for(view(load_config().gm_view)) if passphrase() else OWNER


@st.cache_resource(show_spinner=False)
def _server_tries() -> Tries:
    """Wrong tries over every session of this server (one object per process)."""
    return Tries()


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def unlock(attempt: str, settings: GMViewConfig) -> str:
    """Open the GM view for this session when ``attempt`` is the passphrase; "" when it opened, else what to
    tell the person who tried (in their words)."""
    secret = passphrase()
    if not secret:
        return WRONG
    mine: Tries = st.session_state.setdefault(TRIES, Tries())
    server = _server_tries()
    wait = max(mine.wait(settings.free_tries, settings), server.wait(settings.server_free_tries, settings))
    if wait > 0:  # not compared, not counted: sending more tries gains nothing
        return f"Too many wrong passphrases: wait {math.ceil(wait)} seconds, then try again."
    if len(attempt) > settings.max_chars:  # refused at once, never hashed or compared
        _wrong(mine, server, settings)
        return f"That is too long to be the GM passphrase (at most {settings.max_chars} characters)."
    if not hmac.compare_digest(_digest(attempt.strip()), _digest(secret)):  # same time whatever the length
        _wrong(mine, server, settings)
        return WRONG
    mine.succeeded()
    _forget()
    st.session_state[UNLOCKED] = True
    st.session_state[SEEN] = time.monotonic()
    return ""


def _wrong(mine: Tries, server: Tries, settings: GMViewConfig) -> None:
    st.session_state[UNLOCKED] = False
    session = _session_id()
    mine.failed(settings, session)
    count = server.failed(settings, session)
    if count == min(settings.free_tries, settings.server_free_tries):  # once per burst: when waiting begins
        log.warning(
            "GM passphrase: %d wrong tries in a row on this server, from %d browser session(s); from now on "
            "each further try waits longer (gm_view settings). Not logged again until %g minutes pass "
            "without a wrong try.",
            count,
            len(server.sessions),
            settings.forget_minutes,
        )


def _session_id() -> str:
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
        return ctx.session_id if ctx else ""
    except ImportError:  # a Streamlit without it: the log line counts no sessions
        return ""


def lock() -> None:
    _forget()
    for key in GM_TYPED:
        st.session_state.pop(key, None)
    st.session_state[UNLOCKED] = False
    st.session_state.pop(SEEN, None)


def _forget() -> None:
    for key in VIEW_SCOPED:
        st.session_state.pop(key, None)


def _submit(settings: GMViewConfig) -> None:
    """Form callback: runs before the rerun, so every page of that run already sees the new view."""
    st.session_state[NOTICE] = unlock(st.session_state.get(ATTEMPT, ""), settings)
    st.session_state[ATTEMPT] = ""  # the passphrase does not stay in the widget


def _leave() -> None:
    lock()
    st.session_state.pop(NOTICE, None)


def draw(config: Config) -> None:
    """The sidebar's view line; with a passphrase set, the form that opens the GM view (or the button that
    closes it, and the timer that closes it after ``idle_minutes`` unused)."""
    settings = config.gm_view
    if config.view == "gm":
        st.warning(GM_LABEL, icon=":material/visibility:")
        st.button("Back to the player view", key="gm_lock", on_click=_leave, width="stretch")
        _idle_timer(settings.idle_minutes * 60)
        return
    st.caption(f":material/visibility_off: {PLAYER_LABEL}")
    if not passphrase():
        with st.expander("How a game master sees GM notes", key="gm_how"):
            st.caption(HOW_TO_SHARE)
        return
    notice = st.session_state.get(NOTICE)
    with st.expander("Game master", expanded=bool(notice)):
        st.caption(HOW_TO_OPEN)
        with st.form("gm_unlock", border=False):
            # No max_chars here: Streamlit would cut a longer input silently and it would read as a wrong guess;
            # unlock refuses it by its length instead, before anything is compared.
            st.text_input("GM passphrase", type="password", key=ATTEMPT)
            st.form_submit_button("Show GM notes", on_click=_submit, args=(settings,))
        if notice:
            st.error(notice)


def _idle_timer(idle_seconds: float) -> None:
    """Rerun the whole page once the GM view has gone unused for ``idle_seconds``, so a screen left open in
    the GM view goes back to the player view by itself. Its own runs are not a use."""

    @st.fragment(run_every=max(2.0, min(60.0, idle_seconds / 4)))
    def watch() -> None:
        seen = st.session_state.get(SEEN)
        if seen is not None and time.monotonic() - seen > idle_seconds:
            st.rerun(scope="app")

    watch()


def only_for_the_gm(config: Config, action: str, what: str) -> None:
    """Stop the page here for a session that may not do ``action`` (``rag.access``), saying in a player's words
    that ``what`` is the game master's while the app is shared, and how the GM opens the GM view."""
    if access.may(config.role, action):
        return
    st.info(
        f"{what} are for the game master while Chronicler is shared with the table. Ask your game master, or open "
        "the GM view in the sidebar (Game master → passphrase).",
        icon=":material/lock:",
    )
    st.stop()
