"""Settings saved to configs/local.yaml through ``rag.config.save_local``, which validates first: a bad
value shows the config's own message (it names the key) and nothing is written. Saving happens in
button callbacks so the form can be reset (the API key field) before it is drawn again. The shared
helpers and the Answers and Reranking sections live in app/settings_form.py (not in pages/, where every
file may be shown as a page)."""

from __future__ import annotations

import streamlit as st

from app import gm, model_tests, routing, sidebar, state
from app import settings_form as sections
from app.settings_form import init as _init
from app.settings_form import message as _message
from app.settings_form import save as _save
from app.tables import ingest_summary
from rag.config import local_config_name
from rag.errors import ChroniclerError
from rag.pipeline import Pipeline

routing.require_router()
config = state.get_config()
campaign = state.current_campaign(config)
ss = st.session_state


st.title(":material/settings: Settings")
gm.only_for_the_gm(config, "settings", "Settings (the language model, its address and key, where notes are stored)")
st.caption(
    "Saved for this computer. Each section is saved on its own; the rest of the machinery is under Advanced at "
    "the bottom."
)

if ss.get(sections.REINDEX):
    with st.container(border=True):
        st.warning(
            f"Passages of **{campaign}** were made with the old settings. Re-read the notes so searches "
            "use the new ones.",
            icon=":material/sync_problem:",
        )
        source = state.pipeline(config).files.source(campaign)
        if source is None:
            st.caption("No notes folder is known for this campaign: add the notes again on the Ingest page.")
        elif st.button(f"Re-index {campaign} now", type="primary", key="s_reindex", icon=":material/sync:"):
            try:
                report = state.run_index(config, source, campaign)
            except ChroniclerError as err:
                st.error(err.one_line())
            else:
                ss.pop(sections.REINDEX, None)
                st.success(f"Done. {ingest_summary(report, config.view)}")

# -- what a player sets first: answers and re-reading (app/settings_form.py) ---------------------------------
with st.container(border=True):
    if sections.answers_section(config, model_tests.ask_answer_model):
        model_tests.answer_model(config)

with st.container(border=True):
    sections.reranking_section(config)

# -- the engine room ---------------------------------------------------------------------------------------
advanced = st.expander("Advanced: the search model, storage, search defaults, passages", icon=":material/tune:")
advanced.caption(f"These settings are saved in {local_config_name()}.")

# -- embedding ------------------------------------------------------------------------------------------
with advanced, st.container(border=True):
    st.subheader("Search model")
    st.caption(
        "The model that turns notes and questions into meaning vectors (embeddings). Changing it "
        "means every passage is read again."
    )
    backends = Pipeline.backends("embedders")
    c1, c2, c3 = st.columns([1, 2, 1])
    c1.selectbox(
        "Backend",
        backends,
        key=_init("s_backend", config.embedding.backend),
        help="local: a small model running on this computer, private and free. "
        "openai: an OpenAI-compatible service (needs a key).",
    )
    c2.text_input(
        "Model",
        key=_init("s_model", config.embedding.model),
        placeholder="built-in all-MiniLM-L6-v2",
        help="Leave empty for the model shipped with Chronicler, or give a model name or folder.",
    )
    c3.number_input(
        "Batch size",
        min_value=1,
        step=8,
        key=_init("s_batch", config.embedding.batch_size),
        help="Passages embedded at once. Bigger is faster but uses more memory.",
    )
    if st.session_state["s_backend"] == "local":  # the 8-bit copy is the built-in model's alone
        st.toggle(
            "Read notes twice as fast (8-bit model)",
            key=_init("s_int8", config.embedding.precision == "int8"),
            help="The built-in model reads your passages with 8-bit weights: about twice as fast, and in our tests "
            "it finds the same passages within a question or two. Questions always use the full model. Changing "
            "this means every passage is read again.",
        )
    st.button("Save search model", key="s_save_embedding", on_click=_save, args=("embedding",))
    _message("embedding")

# -- store ----------------------------------------------------------------------------------------------
with advanced, st.container(border=True):
    st.subheader("Where passages are stored")
    where = st.radio(
        "Store",
        ["folder", "server"],
        horizontal=True,
        key=_init("s_where", "server" if config.store.url else "folder"),
        format_func={"folder": "A folder on this computer", "server": "A Qdrant server"}.get,
        help="The folder needs nothing else, but only one program can use it at a time. "
        "A Qdrant server can be shared by the app and the command line.",
    )
    if where == "folder":
        engine = st.radio(
            "Engine",
            ["edge", "qdrant"],
            horizontal=True,
            key=_init("s_engine", config.store.backend if config.store.backend in ("edge", "qdrant") else "edge"),
            format_func={"edge": "Fast (Qdrant Edge, recommended)", "qdrant": "Compatible (qdrant-client)"}.get,
            help="Both keep your passages in a folder. The fast engine answers in milliseconds even for "
            "big campaigns; the compatible one is slower but uses the same code as a Qdrant server. "
            "Switching engines means indexing your notes again.",
        )
        st.text_input(
            "Folder",
            key=_init("s_path", config.store.path or ""),
            placeholder=config.store_folder(engine),
            help="Leave empty for the default folder shown in grey.",
        )
        _init("s_url", config.store.url or "")
    else:
        st.text_input(
            "Server URL",
            key=_init("s_url", config.store.url or ""),
            placeholder="http://localhost:6333",
            help="The address of your Qdrant server or cluster.",
        )
        _init("s_engine", config.store.backend)
        st.text_input(
            "API key",
            type="password",
            key=_init("s_api_key", ""),
            placeholder="saved (hidden): type a new one to replace it" if config.store.api_key else "",
            help="Only needed for a server that asks for one (e.g. Qdrant Cloud). It is never shown again once saved.",
        )
        if config.store.api_key:
            st.checkbox("Remove the saved API key", key=_init("s_forget_key", False))
        _init("s_path", config.store.path or "")
    c1, c2 = st.columns(2)
    test = c1.button("Test connection", key="s_test_store", icon=":material/network_check:", width="stretch")
    c2.button("Save store", key="s_save_store", on_click=_save, args=("store",), width="stretch")
    _message("store")
    if test:
        model_tests.store(config)

# -- retrieval defaults -------------------------------------------------------------------------------------
with advanced, st.container(border=True):
    st.subheader("Search defaults")
    st.caption("What the sidebar starts with in a new browser tab.")
    c1, c2, c3, c4 = st.columns(4)
    c1.selectbox(
        "Mode",
        list(sidebar.MODES),
        format_func=sidebar.MODES.get,
        key=_init("s_mode", config.retrieval.mode),
        help=sidebar.MODE_HELP,
    )
    c2.number_input(
        "Top-k",
        min_value=1,
        key=_init("s_k", config.retrieval.k),
        help="Passages shown per question (at most 100).",
    )
    c3.number_input(
        "Candidates",
        min_value=1,
        key=_init("s_candidates", config.retrieval.candidates),
        help="How many passages each search stage looks at before the best top-k are picked (at most 1000).",
    )
    c4.number_input(
        "Minimum score",
        min_value=0.0,
        step=0.01,
        format="%.4f",
        key=_init("s_threshold", config.retrieval.score_threshold),
        help="Drop passages scoring below this. Empty or 0: keep everything.",
    )
    st.toggle(
        "Also search other names of people and places",
        key=_init("s_aliases", config.retrieval.alias_expansion),
        help="Alias expansion: a question about 'Percy' also looks for 'Percival de Rolo', using the "
        "[[Page|other name]] links in your notes. Affects the exact-word (keyword) search.",
    )
    st.toggle(
        "Also try the notes' other spellings of names",
        key=_init("s_spellings", config.retrieval.spelling_variants),
        help="A name your notes spell two ways ('Ellias' and 'Elias') is found either way: the exact-word "
        "search also looks for names in your notes one letter away from a name in the question. Measured to "
        "find more answers on a real vault (docs/EVALUATION.md).",
    )
    st.toggle(
        "Also match words in the passages around each one",
        key=_init("s_context", config.retrieval.context_weight > 0),
        help='A passage is also searched together with the passages just before and after it, so "she '
        'hands them the map" is found by the name written in the bullet before it. Measured to find more '
        "of the right passages on both test campaigns (docs/EVALUATION.md).",
    )
    st.toggle(
        'Answer "when did we first meet…" and "…last see…" from the first and last mentions',
        key=_init("s_first_mention", config.retrieval.first_mention_weight > 0),
        help='For questions like "When did we first meet Osiris?", also look up the earliest session note '
        "that names Osiris and rank its passages high. Later sessions name a character far more often than "
        'the one where they appear. "When did we last see Osiris?" looks up the latest one the same way. '
        "Measured on the test campaign (docs/EVALUATION.md).",
    )
    st.button("Save search defaults", key="s_save_retrieval", on_click=_save, args=("retrieval",))
    _message("retrieval")

# -- chunking -----------------------------------------------------------------------------------------------
with advanced, st.container(border=True):
    st.subheader("How notes are cut into passages")
    st.caption("Chunking: each passage is searched on its own. After a change, the notes must be read again.")
    c1, c2, c3 = st.columns(3)
    c1.number_input(
        "Longest passage (characters)",
        min_value=1,
        step=100,
        key=_init("s_max_chars", config.chunking.max_chars),
        help="Longer bullets are split between sentences (at least 100).",
    )
    c2.number_input(
        "Shortest passage (characters)",
        min_value=0,
        step=20,
        key=_init("s_min_chars", config.chunking.min_chars),
        help="Shorter bullets next to each other are merged up to this length.",
    )
    c3.number_input(
        "Overlap (sentences)",
        min_value=0,
        step=1,
        key=_init("s_overlap", config.chunking.overlap_sentences),
        help="Sentences repeated at the start of the next piece when a bullet is split (0 to 5).",
    )
    st.toggle(
        "Start each passage with its scene heading",
        key=_init("s_heading", config.chunking.heading_prefix),
        help="Helps searches like 'what happened at the Announcements' find the right part.",
    )
    st.button("Save passage settings", key="s_save_chunking", on_click=_save, args=("chunking",))
    _message("chunking")
