"""The Settings page's "Test" buttons: one tiny question to the answer model, or a campaign list from the
store, with the settings as typed (saved or not).

Settings are every session's, so in a shared app only the GM view may test (``rag.access``). A test sends a
saved key only to the address it was saved for: an address typed and not saved is tried with the key typed
beside it, or with none (``test_candidate``), so typing a server of one's own is no way to be sent the GM's
key. A test never shows a key either: any error text is redacted of the keys it could hold.
"""

from __future__ import annotations

import streamlit as st

from app import state
from app.settings_form import candidate
from rag import access
from rag.config import Config
from rag.errors import ChroniclerError
from rag.pipeline import Pipeline

TEST_TIMEOUT = 20.0  # seconds: a connection test should not hang for the answerer's full timeout
NO_KEY = "not-needed"  # what the OpenAI client sends without a key (rag.llm does the same)
SECRETS = {"answer": "s_answer_key", "store": "s_api_key"}  # the key typed beside each address


def test_candidate(config: Config, section: str) -> Config:
    """The config a "Test" button tries: the settings as typed, but the saved key (or OPENAI_API_KEY) only for
    the address it was saved for; another address gets the key typed beside it, or none."""
    cand = candidate(config, section)
    typed = st.session_state.get(SECRETS[section]) or None
    if section == "answer" and _place(cand.answer.base_url) != _place(config.answer.base_url):
        return cand.model_copy(update={"answer": cand.answer.model_copy(update={"api_key": typed or NO_KEY})})
    if section == "store" and _place(cand.store.url) != _place(config.store.url):
        return cand.model_copy(update={"store": cand.store.model_copy(update={"api_key": typed})})
    return cand


def _place(url: str | None) -> str:
    """An address as ``test_candidate`` compares it; "" is the service's default (OpenAI, or no server)."""
    return (url or "").strip().rstrip("/")


def _redact(text: str, *secrets: str | None) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def ask_answer_model(config: Config) -> tuple[str, str | None]:
    """Ask the answer model as typed (saved or not) for one word: (its reply, None), or ("", why it did not answer,
    in a player's words, with no key in it)."""
    typed = st.session_state.get("s_answer_key")
    try:
        access.require(config.role, "test")
        cand = test_candidate(config, "answer")
        settings = cand.answer.model_copy(update={"max_retries": 0, "timeout": min(cand.answer.timeout, TEST_TIMEOUT)})
        return Pipeline.ping_answer_model(settings), None
    except ChroniclerError as err:
        return "", _redact(err.one_line(), typed, config.answer.api_key)
    except Exception as err:  # noqa: BLE001 - any failure of a connection test is the answer to show
        first = str(err).splitlines()[0] if str(err) else ""
        return "", f"{type(err).__name__}: {_redact(first, typed, config.answer.api_key)}"


def answer_model(config: Config) -> None:
    """Ask the answer model as typed for one word, and say what came back."""
    with st.spinner("Asking the model…"):
        reply, failed = ask_answer_model(config)
    if failed is not None:
        st.error(f"The answer model did not answer: {failed}")
        return
    said = f" It replied: “{reply[:80]}”." if reply else ""
    model = st.session_state.get("s_answer_model", "").strip() or "gpt-4o-mini"
    st.success(f"The model '{model}' answered.{said}", icon=":material/check_circle:")


def store(config: Config) -> None:
    """Open the store as typed and list its campaigns."""
    typed = st.session_state.get("s_api_key")
    try:
        access.require(config.role, "test")
        cand = test_candidate(config, "store")
        if state.same_store(cand, config):
            names = state.store(config).collections()
        else:
            probe = Pipeline.open_store(cand)
            try:
                names = probe.collections()
            finally:
                probe.close()
    except ChroniclerError as err:
        st.error(f"Could not connect: {_redact(err.one_line(), typed, config.store.api_key)}")
    except Exception as err:  # noqa: BLE001 - any failure of a connection test is the answer to show
        first = str(err).splitlines()[0] if str(err) else ""
        st.error(f"Could not connect: {type(err).__name__}: {_redact(first, typed, config.store.api_key)}")
    else:
        prefix = cand.store.collection_prefix
        found = ", ".join(n[len(prefix) :] for n in names) or "none yet"
        st.success(f"Connected. Campaigns found: {found}.", icon=":material/check_circle:")
