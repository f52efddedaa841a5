"""The Settings page's shared helpers and its "Answers" and "Reranking" sections.

Each section is saved on its own through ``rag.config.save_local``, which validates first: a bad value
shows the config's own one-line message (it names the key) and nothing is written. Saving happens in
button callbacks so secret fields can be emptied before they are drawn again: a saved API key is never
put back into a widget, shown, or logged.

Settings are global (every session's model, URLs and keys), so in a shared app only the GM view saves or
tests them, checked in each handler (``rag.access``).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from app import gm
from rag import access
from rag.config import Config, RetrievalConfig, deep_merge, dotted, load_config, save_local, validate
from rag.errors import ChroniclerError, ModelUnavailableError, no_llm_error
from rag.pipeline import Pipeline

MSG = "_settings_msg"
# (the reply, or None and why it did not answer) of the answer model as typed: app.model_tests.ask_answer_model
AskModel = Callable[[Config], tuple[str, str | None]]
CONFIRM = "_confirm_answer_model"  # why the language model typed in Answers did not answer, until saved or kept
REINDEX = "_reindex_needed"
# Typed secrets and their "remove" checkboxes, per section: emptied after every save of that section.
SECRETS = {"store": ("s_api_key", "s_forget_key"), "answer": ("s_answer_key", "s_answer_forget")}
ANSWER_BACKENDS = {
    "extractive": "Offline: quotes your notes (no setup)",
    "openai": "A language model (OpenAI-compatible)",
}
RERANKERS = {  # short enough for a phone's selectbox; the help says more
    "learned": "Built in (recommended)",
    "cross-encoder": "A reranking model you downloaded",
    "late-interaction": "Built in: word by word (slower)",
}
# Kept working when a config file asks for it, no longer offered: measured with a small local model, it pushed the
# passage that answers out of the top five for 5 of 6 demo questions, at ~60 s a search (docs/EVALUATION.md)
NOT_OFFERED = {"llm": "The language model rates each passage (not recommended)"}


def init(key: str, value) -> str:
    """A widget key with its starting value (kept across reruns once set)."""
    st.session_state.setdefault(key, value)
    return key


def changes(section: str) -> dict:
    """The dotted settings one section's widgets describe."""
    ss = st.session_state
    if section == "embedding":
        return {
            "embedding.backend": ss["s_backend"],
            "embedding.model": ss["s_model"].strip(),
            "embedding.batch_size": int(ss["s_batch"]),
            # shown for the built-in model only: otherwise the saved setting stays
            "embedding.precision": ("int8" if ss["s_int8"] else "full")
            if "s_int8" in ss
            else load_config().embedding.precision,
        }
    if section == "store":
        server = ss["s_where"] == "server"
        out = {
            "store.url": ss["s_url"].strip() if server else "",
            "store.path": "" if server else ss["s_path"].strip(),
            "store.backend": "qdrant" if server else ss["s_engine"],
        }
        return out | _secret("store.api_key", "store", cleared="")
    if section == "retrieval":
        saved = load_config().retrieval  # the weights as the config files set them
        return {
            "retrieval.mode": ss["s_mode"],
            "retrieval.k": int(ss["s_k"]),
            "retrieval.candidates": int(ss["s_candidates"]),
            "retrieval.score_threshold": ss["s_threshold"],
            "retrieval.alias_expansion": bool(ss["s_aliases"]),
            "retrieval.spelling_variants": bool(ss["s_spellings"]),
            "retrieval.context_weight": _stage_weight(saved, "context_weight", bool(ss["s_context"])),
            "retrieval.first_mention_weight": _stage_weight(saved, "first_mention_weight", bool(ss["s_first_mention"])),
        }
    if section == "answer":
        out = {"answer.backend": ss["s_answer_backend"]}
        if ss["s_answer_backend"] == "openai":  # the offline answerer keeps the LLM settings as they are
            out |= {
                "answer.base_url": ss["s_answer_url"].strip() or None,
                "answer.model": ss["s_answer_model"].strip(),
                "answer.temperature": float(ss["s_answer_temp"]),
            }
            out |= _secret("answer.api_key", "answer", cleared=None)
        return out
    if section == "reranker":
        out = {
            "reranker.backend": ss["s_rr_backend"],
            "reranker.candidates": int(ss["s_rr_candidates"]),
            "reranker.enabled": bool(ss["s_rr_enabled"]),
        }
        if ss["s_rr_backend"] == "cross-encoder":
            out["reranker.model"] = ss["s_rr_model"].strip()
        return out
    return {
        "chunking.max_chars": int(ss["s_max_chars"]),
        "chunking.min_chars": int(ss["s_min_chars"]),
        "chunking.overlap_sentences": int(ss["s_overlap"]),
        "chunking.heading_prefix": ss["s_heading"],
    }


def _secret(dotted_key: str, section: str, cleared: str | None) -> dict:
    """A typed key replaces the saved one; "remove" clears it; otherwise the saved one is kept."""
    typed, forget = SECRETS[section]
    if st.session_state.get(typed):
        return {dotted_key: st.session_state[typed]}
    if st.session_state.get(forget):
        return {dotted_key: cleared}
    return {}


def _stage_weight(saved: RetrievalConfig, key: str, on: bool) -> float:
    """A fusion stage switch: on keeps a weight already set in the config files (the default when it was
    off); off is 0."""
    current = getattr(saved, key)
    return (current or RetrievalConfig.model_fields[key].default) if on else 0.0


def candidate(config: Config, section: str) -> Config:
    """The config as it would be after saving ``section`` (validated; nothing written)."""
    return validate(deep_merge(config.model_dump(), dotted(changes(section), keep_none=True)))


def save(section: str, ask_model: AskModel | None = None) -> None:
    """Save one section (a button's callback). With ``ask_model`` (``app.model_tests.ask_answer_model``), answer
    settings whose language model does not answer are not saved but kept for a confirmation (``CONFIRM``): until it
    answers, every question would get the offline answer instead."""
    ss = st.session_state
    ss.pop(CONFIRM, None)
    try:
        access.require(gm.current_role(), "settings")
        trial, saved = candidate(load_config(), section), load_config()
        if section == "embedding" and trial.embedding != saved.embedding:
            Pipeline.load_embedder(trial)  # a model that does not load is refused here, not on every question
        if section == "answer" and trial.answer.uses_llm and ask_model is not None:
            _, failed = ask_model(saved.model_copy(update={"role": gm.current_role()}))
            if failed is not None:
                ss[CONFIRM] = failed
                ss.pop(MSG, None)
                return
        save_local(changes(section))
    except ChroniclerError as err:
        ss[MSG] = (section, "error", err.one_line())
        return
    ss[MSG] = (section, "success", "Saved.")
    if section in SECRETS:  # never keep a typed key around, and never show it again
        typed, forget = SECRETS[section]
        ss[typed], ss[forget] = "", False
    if section in ("embedding", "chunking"):
        ss[REINDEX] = True


def message(section: str) -> None:
    msg = st.session_state.get(MSG)
    if msg and msg[0] == section:
        (st.error if msg[1] == "error" else st.success)(msg[2])


def confirm_answer_model() -> None:
    """When the language model typed in Answers did not answer: save anyway, or keep the saved settings."""
    failed = st.session_state.get(CONFIRM)
    if failed is None:
        return
    st.warning(
        f"The language model did not answer: {failed} Save these settings anyway? Until it answers, every "
        "question gets the offline answer quoted from your notes, with a line saying the model did not answer.",
        icon=":material/cloud_off:",
    )
    c1, c2 = st.columns(2)
    c1.button("Save anyway", key="s_save_answer_anyway", on_click=save, args=("answer",), width="stretch")
    c2.button(
        "Keep the saved settings",
        key="s_keep_answer",
        on_click=lambda: st.session_state.pop(CONFIRM, None),
        width="stretch",
    )


def answers_section(config: Config, ask_model: AskModel) -> bool:
    """The Answers section; whether "Test the answer model" was clicked (``app.model_tests`` runs it). Saving a
    language model first asks it for a word with ``ask_model``."""
    st.subheader("Answers")
    st.caption(
        "Who writes the answer on the Ask page. The offline answerer quotes the sentences of your notes "
        "that match best; a language model writes a short answer in its own words, still citing the notes."
    )
    backend = st.radio(
        "Answer provider",
        list(ANSWER_BACKENDS),
        key=init(
            "s_answer_backend", config.answer.backend if config.answer.backend in ANSWER_BACKENDS else "extractive"
        ),
        format_func=ANSWER_BACKENDS.get,
        help='A language model also helps "Expand the question" in the sidebar: it writes other ways to ask.',
    )
    a = config.answer
    if backend == "openai":
        st.caption("Any service that speaks OpenAI's language: OpenAI, or Ollama, llama.cpp server, LM Studio.")
        c1, c2 = st.columns(2)
        c1.text_input(
            "Server address (base URL)",
            key=init("s_answer_url", a.base_url or ""),
            placeholder="e.g. http://localhost:11434/v1 for Ollama",
            help="Leave empty to use OpenAI. For a model on this computer, the address its program shows, "
            "ending in /v1.",
        )
        c2.text_input(
            "Model name",
            key=init("s_answer_model", a.model),
            placeholder="gpt-4o-mini",
            help="The model to ask, as the service names it (e.g. llama3.2 in Ollama). Empty: gpt-4o-mini.",
        )
        c1, c2 = st.columns(2)
        c1.text_input(
            "API key",
            type="password",
            key=init("s_answer_key", ""),
            placeholder="saved (hidden): type a new one to replace it" if a.api_key else "",
            help="The password the service gave you. Not needed for most models on your own computer. "
            "Without one, the OPENAI_API_KEY environment variable is used. It is never shown again once saved.",
        )
        c2.number_input(
            "Temperature",
            min_value=0.0,
            step=0.1,
            format="%.2f",
            key=init("s_answer_temp", float(a.temperature)),
            help="How free the wording is, from 0 to 2. Low values (0 to 0.3) stick closest to the notes.",
        )
        if a.api_key:
            st.checkbox("Remove the saved API key", key=init("s_answer_forget", False))
    c1, c2 = st.columns(2)
    test = c1.button(
        "Test the answer model",
        key="s_test_answer",
        icon=":material/network_check:",
        width="stretch",
        disabled=backend != "openai",
        help="Sends one tiny question to the model with the settings above (saved or not).",
    )
    c2.button("Save answers", key="s_save_answer", on_click=save, args=("answer", ask_model), width="stretch")
    message("answer")
    confirm_answer_model()
    return test


def reranking_section(config: Config) -> None:
    r = config.reranker
    st.subheader("Reranking")
    st.caption(
        "A second, slower look at the best passages: it re-reads each one next to the question and puts "
        'the most useful first. The sidebar\'s "Rerank passages" switch turns it on for a search.'
    )
    options = list(RERANKERS) + ([r.backend] if r.backend not in RERANKERS else [])
    c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
    backend = c1.selectbox(
        "How passages are re-read",
        options,
        key=init("s_rr_backend", r.backend),
        format_func=lambda name: RERANKERS.get(name) or NOT_OFFERED.get(name, name),
        help="Built in: a small model shipped with Chronicler weighs how each passage matched; offline, a few "
        "milliseconds, measured to help on the test campaigns. A reranking model you downloaded once. Word by "
        "word: the search model compares the question and each passage word by word, slower.",
    )
    c2.number_input(
        "Passages re-read",
        min_value=1,
        step=5,
        key=init("s_rr_candidates", r.candidates),
        help="How many of the best passages are re-read (1 to 200). More finds more, but is slower.",
    )
    if backend == "cross-encoder":
        st.text_input(
            "Reranking model",
            key=init("s_rr_model", r.model),
            placeholder="cross-encoder/ms-marco-MiniLM-L6-v2",
            help="A folder holding the model, or its Hugging Face name if it is already downloaded.",
        )
    else:
        init("s_rr_model", r.model)
    st.toggle(
        "Rerank by default",
        key=init("s_rr_enabled", r.enabled),
        help='Whether the sidebar\'s "Rerank passages" switch starts on in a new browser tab.',
    )
    _reranker_status(config, backend)
    st.button("Save reranking", key="s_save_reranker", on_click=save, args=("reranker",))
    message("reranker")


def _reranker_status(config: Config, backend: str) -> None:
    if backend == "cross-encoder":
        try:
            found = Pipeline.reranking_model(st.session_state.get("s_rr_model") or "")
        except ModelUnavailableError as err:
            st.warning(err.one_line(), icon=":material/download:")
        else:
            st.success(f"The reranking model is on this computer: {found}", icon=":material/check_circle:")
    elif backend == "llm":
        st.warning(
            "Not recommended: a small language model rating the passages put the one that answers lower, not "
            "higher (5 of 6 test questions lost it from the top five), and took about a minute a search. "
            "Choose Built in.",
            icon=":material/info:",
        )
        if not config.answer.uses_llm:
            st.warning(no_llm_error("Reranking with the language model").one_line(), icon=":material/info:")
    else:  # learned, late-interaction: built in
        st.info("Built in: works offline, nothing to download.", icon=":material/check_circle:")
