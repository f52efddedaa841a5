"""Ask the chronicle: a chat whose every answer comes from the campaign's notes, with checked citations.

The answer streams in; each citation is a chip that opens the exact passage; a confidence label sits beside
it; "Why this answer?" shows the rewrite, the query variants, filters and the passages' scores. The
conversation lives in this browser session only. Layout here; the work is in ``rag.answering``.
"""

from __future__ import annotations

import streamlit as st

from app import routing, sidebar, state, story
from app.charts import (
    CITED_CAPTION,
    cited_scores_figure,
    first_places,
    found_in,
    moved_out,
    why_figure,
    why_legend,
)
from app.markdown import as_written
from rag.config import RetrievalConfig
from rag.errors import CampaignNotFoundError, ChroniclerError
from rag.models import Answer, format_session

# list of {"question": str, "answer": Answer | None, "error": str}: a turn is kept from the moment it is asked,
# so a question whose answer never came (the player asked again or went to another page meanwhile, or it failed)
# stays on screen
TURNS = "chat_turns"
UNANSWERED = (
    "No answer: you asked the next question before this one's answer came (or left the page first). "
    "Ask it again to see its answer."
)
CONFIDENCE_HELP = (
    "How sure the answer is, from how closely the passages match the question and whether every citation "
    "points at a passage that was read; with a language model, also whether the passages it cites say what it "
    "says. When it is not sure, open the passages before you rely on it."
)
PLOT = {"displayModeBar": False}
REFUSAL_WORDS = {  # the answerer's rules (kept in the trace and the answer snapshots) as a player reads them
    "support below the floor": "no sentence of the passages it found says enough about what you asked",
    "no passage passed the threshold": "no passage matched your question well enough",
}


def badge(result: Answer) -> str:
    """The answer's confidence in a player's words: where it was found, or how careful to be."""
    if result.confidence == "high":
        return f":green-badge[Found it in {as_written(found_in(result))}]"
    if result.confidence == "medium":
        return ":orange-badge[Probably: check the passages below]"
    return ":gray-badge[Not sure: these passages may not answer it]"


def new_conversation() -> None:
    st.session_state[TURNS] = []


def ask_again(i: int) -> None:
    """The unanswered turn moves to the end of the chat and is answered there."""
    st.session_state[story.ASK] = st.session_state[TURNS].pop(i)["question"]


def show_turn(turn: dict, i: int, retrieval: RetrievalConfig, can_ask: bool) -> None:
    """An earlier turn as it ended: its answer, the error it met, or a question left without an answer."""
    with st.chat_message("user"):
        st.markdown(as_written(turn["question"]))
    with st.chat_message("assistant"):
        if turn["answer"] is not None:
            if fell_back := turn["answer"].trace.get("fallback"):  # the language model did not answer it
                st.warning(fell_back, icon=":material/cloud_off:")
            st.markdown(as_written(turn["answer"].text))
            show_answer(turn["answer"], f"turn{i}", retrieval)
            return
        if turn.get("error"):
            st.error(turn["error"])
        else:
            st.info(UNANSWERED, icon=":material/hourglass_disabled:")
        st.button(
            "Ask it again",
            icon=":material/replay:",
            key=f"again{i}",
            on_click=ask_again,
            args=(i,),
            disabled=not can_ask,  # the store is down: the question stays here until it can be asked
            width="content",
        )


def show_citations(result: Answer) -> None:
    """Each cited passage as a chip that opens it. A citation that names no passage given is said once, in the
    answer's own last lines (``rag.citations.check_citations``), not again here."""
    resolved = list({chunk.id: chunk for chunk in result.cited}.values())  # each passage once, as first cited
    if resolved:
        columns = st.columns(min(len(resolved), 4))
        for i, chunk in enumerate(resolved):
            # a label wraps: cut to one line, four scenes of one evening read "Session 26 · The …" alike
            chip = columns[i % len(columns)].popover(
                chunk.name, icon=":material/menu_book:", width="stretch", wrap=True
            )
            with chip:
                session = f"Session {format_session(chunk.session)}" if chunk.session is not None else chunk.kind
                # a note without headings is titled "Session 4" too: said once (as the Search page does)
                where = [p for p in dict.fromkeys((session, chunk.heading or chunk.title)) if p]
                st.markdown(
                    f"**{as_written(chunk.name)}**  \n:gray[{' · '.join(map(as_written, where))} · "
                    f"`{chunk.source}` lines {chunk.line_start}–{chunk.line_end}]"
                )
                st.markdown(as_written(chunk.text))


def show_why(result: Answer, key: str, retrieval: RetrievalConfig) -> None:
    trace = result.trace
    with st.expander("Why this answer?", icon=":material/troubleshoot:"):
        in_short, advanced = st.tabs(["In short", "Advanced"])
    with in_short:
        rewrite = result.borrowed or {}
        if rewrite:
            how = "by the language model" if rewrite["method"] == "llm" else "from the earlier question"
            st.markdown(f"Follow-up read as: **{as_written(rewrite['standalone'])}** ({how})")
        if respelt := result.respelt:
            st.markdown(f"Read as your notes spell {names_read_as(respelt)}")
        keyword = (trace.get("variants") or {}).get("keyword", "")
        asked = result.read_as
        if keyword.startswith(asked) and keyword != asked:
            st.markdown(f"Also looked for other names from your notes: **{as_written(keyword[len(asked) :].strip())}**")
        told = (trace.get("variants") or {}).get("dense", "")
        if told and told != " ".join(asked.split()):  # "us" read as "the party", where the notes never say "we"
            st.markdown(f"Looked for its meaning as your notes tell it: **{as_written(told)}**")
        if cap := sessions_said(trace.get("filters") or {}):
            st.markdown(cap)
        if rule := trace.get("refusal_rule"):
            st.caption(f"It says the notes don't say because {REFUSAL_WORDS.get(rule, rule)}.")
        if result.hits:
            cited = frozenset(c.chunk_id for c in result.citations if c.chunk_id)
            figure = why_figure(result.hits, retrieval, trace.get("mode") or retrieval.mode, cited)
            st.plotly_chart(figure, width="stretch", config=PLOT, key=f"why_{key}")
            st.markdown(why_legend(figure), unsafe_allow_html=True)
            st.caption(CITED_CAPTION)
            if out := moved_out(result.hits, first_places(trace.get("hits") or [])):
                st.caption(out)
    with advanced:
        for text in (trace.get("queries") or [])[1:]:  # other wordings: the words of the best passages, or a model's
            st.markdown(f"Also searched: {as_written(text)}")
        for stage, text in (trace.get("variants") or {}).items():
            st.markdown(f"- {stage} search: {as_written(text)}")
        filters = trace.get("filters") or {}
        st.caption("Filters: " + (", ".join(f"{k} {v}" for k, v in filters.items()) if filters else "none"))
        if trace.get("support") is not None:
            st.caption(
                f"Best sentence score {trace['support']:.3f} (refuses below {trace['refusal_floor']:.2f}) · "
                f"answerer: {trace.get('generator')}"
            )
        if result.hits:
            st.plotly_chart(cited_scores_figure(result), width="stretch", config=PLOT, key=f"scores_{key}")
        timings = trace.get("timings") or {}
        if timings.get("total"):
            st.caption(f"{1000 * timings['total']:.0f} ms in all")


def names_read_as(respelt: dict[str, str]) -> str:
    """The names a question was read with, in a player's words: "**Clarota** (asked as Clarrota)"."""
    return ", ".join(f"**{as_written(other)}** (asked as {as_written(word)})" for word, other in respelt.items())


def sessions_said(filters: dict) -> str:
    """The session filter of an answer in a player's words ("Only Session 2", "Only up to Session 12")."""
    low, high = filters.get("session_min"), filters.get("session_max")
    if high is None:
        return f"Only from Session {format_session(low)} on" if low is not None else ""
    if low == high:
        return f"Only Session {format_session(high)}"
    return f"Only up to Session {format_session(high)}" + (f", from Session {format_session(low)}" if low else "")


def working(cfg) -> str:
    """The status line while an answer is looked for: what the search is doing, in a player's words."""
    steps = ["Searching your notes"]
    if cfg.retrieval.query_expansion:
        steps.append("trying other wordings")
    if cfg.reranker.enabled:
        steps.append(f"re-reading the best {cfg.reranker.candidates} passages")
    return ", ".join(steps) + "…"


def show_answer(result: Answer, key: str, retrieval: RetrievalConfig) -> None:
    if result.trace.get("mode") == "recap":  # the notes' own lines, chosen without a search: nothing to explain
        show_citations(result)
        return
    if result.borrowed:  # what a follow-up borrowed, in sight (how: under "Why this answer?")
        st.caption(f"Read as a follow-up: {as_written(result.read_as)}")
    elif result.respelt:  # a name the notes write only another way: the question answered is in sight
        st.caption(f"Read as your notes spell it: {as_written(result.read_as)}")
    if not result.refused:
        st.markdown(badge(result), help=CONFIDENCE_HELP)
        show_citations(result)
    show_why(result, key, retrieval)


routing.require_router()
config = state.get_config()
campaign = state.current_campaign(config)
turns: list[dict] = st.session_state.setdefault(TURNS, [])
if len(turns) >= config.limits.chat_turns:  # room for this run's turn: the oldest leave the screen
    del turns[: len(turns) - config.limits.chat_turns + 1]
    st.session_state["_turns_dropped"] = True

try:
    has_notes, store_error = bool(state.campaign_chunks(config, campaign)), None
except ChroniclerError as err:
    has_notes, store_error = False, err

# Read first (the box is pinned to the bottom wherever it is called) so the run that answers the first
# question already hides the tip and enables "New conversation".
question = st.chat_input("Ask about your campaign…", key="chat_question", disabled=not has_notes)
question = question or st.session_state.pop(story.ASK, None)  # "Ask about X" from People & places
asking = bool(has_notes and question and question.strip())

st.title(":material/forum: Ask the chronicle")
# The buttons sit in a row of their own at their labels' width: beside the title they were cut at 1280 px.
actions = st.container(horizontal=True)
RECAP_QUESTION = "Recap the last session"
recapping = actions.button(
    "Recap last session",
    icon=":material/history:",
    key="recap_last",
    disabled=not has_notes,  # not greyed while an answer comes: it would stay so until the next click
    width="content",
    help="A 'previously on…' of the last session, each line from your notes, cited.",
)
actions.button(
    "New conversation",
    icon=":material/add_comment:",
    on_click=new_conversation,
    key="new_conversation",
    disabled=not (turns or asking or recapping),
    width="content",
)
st.caption(
    f"Answers about **{campaign}** come only from your notes, with the passage behind every claim. "
    "Search options in the sidebar apply."
)

if store_error is not None:  # the conversation so far stays readable; asking waits for the store
    st.error(store_error.one_line())
    st.page_link("pages/settings.py", label="Check the store settings", icon=":material/settings:")
    if not turns:
        st.stop()
elif not has_notes:
    st.info(
        f"**No notes in '{campaign}' yet.** Add your notes on the Ingest page: upload Markdown files or a "
        "zipped Obsidian vault, then come back and ask.",
        icon=":material/upload_file:",
    )
    st.page_link("pages/ingest.py", label="Add your notes", icon=":material/upload_file:")
    st.stop()

if not (turns or asking or recapping):
    st.info(
        "Ask anything about the campaign, e.g. *Who gave us the map?* or *Where did we "
        'leave off?* Follow-up questions ("and what did she do next?") work too.',
        icon=":material/lightbulb:",
    )

if st.session_state.get("_turns_dropped") and turns:
    st.caption(f"The chat keeps the last {config.limits.chat_turns} questions and answers; older ones have left it.")

for i, turn in enumerate(turns):
    show_turn(turn, i, config.retrieval, has_notes)

if recapping and not asking:  # asked as if typed: the answer to "Recap the last session" is its recap
    question, asking = RECAP_QUESTION, True

if asking:
    history = [(t["question"], t["answer"].text) for t in turns if t["answer"] is not None]
    turn = {"question": question, "answer": None}
    turns.append(turn)  # kept now: a question asked before this answer comes must not wipe this one out
    with st.chat_message("user"):
        st.markdown(as_written(question))
    with st.chat_message("assistant"):
        cfg, filters = sidebar.search_settings(config)
        try:
            with st.spinner(working(cfg)):
                stream = state.pipeline(cfg).ask(question, campaign, filters, history=history)
            fell_back = getattr(stream, "fell_back", None)
            for notice in stream.notices:
                st.warning(notice, icon=":material/cloud_off:" if notice == fell_back else ":material/info:")
            said, answer_slot = st.empty(), st.empty()
            with answer_slot:
                st.write_stream(as_written(piece) for piece in stream)
            result = stream.answer
            if getattr(stream, "restarted", False):  # the model broke off midway: its words give way to the offline
                said.warning(stream.fell_back, icon=":material/cloud_off:")
                answer_slot.markdown(as_written(result.text))
            elif getattr(stream, "rewritten", False):  # citations were added after sentences the model left uncited
                answer_slot.markdown(as_written(result.text))
        except ChroniclerError as err:
            turn["error"] = err.one_line()
            st.error(turn["error"])
            if isinstance(err, CampaignNotFoundError):
                st.page_link("pages/ingest.py", label="Add notes to this campaign", icon=":material/upload_file:")
            st.stop()
        turn["answer"] = result
        show_answer(result, f"turn{len(turns) - 1}", cfg.retrieval)
    if cfg.tracking.enabled:
        try:
            state.pipeline(cfg).record(result)
        except OSError as err:
            st.caption(f"Could not record this run: {err.strerror}")
