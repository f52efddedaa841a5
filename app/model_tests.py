"""The Settings page's "Test" buttons: one tiny question to the answer model, or a campaign list from the
store, with the settings as typed (saved or not).

Settings are every session's, so in a shared app only the GM view may test (``rag.access``). A test never
shows a key: any error text is redacted of the keys it could hold.
"""

from __future__ import annotations

import streamlit as st

from app import state
from app.settings_form import candidate
from rag import access
from rag.config import Config
from rag.errors import ChroniclerError
from rag.llm import LLMClient
from rag.stores import get_store

TEST_TIMEOUT = 20.0  # seconds: a connection test should not hang for the answerer's full timeout


def _redact(text: str, *secrets: str | None) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


def answer_model(config: Config) -> None:
    """Ask the answer model as typed for one word, and say what came back."""
    typed = st.session_state.get("s_answer_key")
    try:
        access.require(config.role, "test")
        cand = candidate(config, "answer")
        settings = cand.answer.model_copy(update={"max_retries": 0, "timeout": min(cand.answer.timeout, TEST_TIMEOUT)})
        with st.spinner("Asking the model…"):
            ping = [{"role": "user", "content": "Reply with the single word: ready"}]
            reply = LLMClient(settings).complete(ping, max_tokens=16)
    except ChroniclerError as err:
        st.error(f"The answer model did not answer: {_redact(err.one_line(), typed, config.answer.api_key)}")
    except Exception as err:  # noqa: BLE001 - any failure of a connection test is the answer to show
        first = str(err).splitlines()[0] if str(err) else ""
        st.error(
            f"The answer model did not answer: {type(err).__name__}: {_redact(first, typed, config.answer.api_key)}"
        )
    else:
        said = f" It replied: “{reply[:80]}”." if reply else ""
        st.success(f"The model '{settings.model or 'gpt-4o-mini'}' answered.{said}", icon=":material/check_circle:")


def store(config: Config) -> None:
    """Open the store as typed and list its campaigns."""
    typed = st.session_state.get("s_api_key")
    try:
        access.require(config.role, "test")
        cand = candidate(config, "store")
        if state.same_store(cand, config):
            names = state.store(config).collections()
        else:
            probe = get_store(cand)
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
