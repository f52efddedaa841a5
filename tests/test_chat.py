"""The chat page driven by AppTest (fake embedder, embedded store in a tmp folder, extractive answerer):
a question gets a cited answer with its passage one click away; an unanswerable one is refused plainly;
a follow-up is rewritten; "New conversation" clears the history."""

from __future__ import annotations

import pytest

from app import state as app_state
from rag.config import load_config
from tests.helpers import indexed, plotly, start, texts, write_notes

pytestmark = pytest.mark.usefixtures("app_env")

CHAT = "pages/chat.py"


def ask(at, question: str):
    at.chat_input(key="chat_question").set_value(question).run()
    assert not at.exception, at.exception
    return at


def test_chat_is_the_default_page_and_says_what_to_do(tmp_path):
    indexed(tmp_path)
    at = start()
    assert "Ask the chronicle" in at.title[0].value
    assert "Ask anything about the campaign" in texts(at.info)


def test_question_gets_a_cited_answer_with_its_passage(tmp_path):
    indexed(tmp_path)
    at = ask(start(CHAT), "Which bear did Vex tame in the Underdark?")
    said = texts(at.chat_message[1].markdown)
    assert said.startswith("Trinket. [Session 3 · The Underdark")  # the short answer first
    assert "tames a bear named Trinket" in said  # then the proof
    assert "Found it in Session 3" in said  # how sure, in a player's words
    assert not at.warning  # every citation resolved
    passages = [p for p in at.get("popover")]
    assert passages and "Session 3" in passages[0].proto.popover.label
    assert "Trinket" in texts(at.markdown)
    assert plotly(at, 0)["data"][0]["orientation"] == "h"
    # the run that answers the first question already drops the tip and offers a new conversation
    assert "Ask anything about the campaign" not in texts(at.info)
    assert not at.button(key="new_conversation").proto.disabled


def test_a_passage_of_a_note_without_headings_names_its_session_once(tmp_path):
    """A note without headings is titled by its session: its passage said "Session 4 · Session 4 · …" (walk)."""
    notes = write_notes(tmp_path / "v", {"Session 4.md": "Vex tames a bear named Trinket in the Underdark.\n"})
    app_state.pipeline(load_config()).index(notes, "demo")
    app_state.changed()
    at = ask(start(CHAT), "Which bear did Vex tame?")
    shown = texts(at.markdown)
    assert ":gray[Session 4 · `Session 4.md` lines" in shown and "Session 4 · Session 4" not in shown


def test_unanswerable_question_is_refused_plainly(tmp_path):
    indexed(tmp_path)
    at = ask(start(CHAT), "What colour is the cook's favourite hat?")
    said = texts(at.chat_message[1].markdown)
    assert "The notes don't say" in said
    assert "[Session" not in said
    assert not at.get("popover")


def test_follow_up_then_new_conversation_clears(tmp_path):
    indexed(tmp_path)
    at = ask(start(CHAT), "What did Nostoc offer?")
    at = ask(at, "And where did they meet him?")
    assert len(at.chat_message) == 4
    assert "Follow-up read as" in texts(at.markdown) and "Nostoc" in texts(at.markdown)
    # what it borrowed shows under the answer, not only inside "Why this answer?"
    assert "Read as a follow-up:" in texts(at.chat_message[3].caption) and "Nostoc" in texts(at.chat_message[3].caption)
    assert "Read as a follow-up" not in texts(at.chat_message[1].caption)  # the first question borrowed nothing
    at.button(key="new_conversation").click().run()
    assert not at.exception, at.exception
    assert len(at.chat_message) == 0
    assert "Ask anything about the campaign" in texts(at.info)


def test_a_name_spelt_otherwise_is_answered_as_the_notes_spell_it_and_says_so(tmp_path):
    """ "Nosstoc" is nowhere in the notes, "Nostoc" is: the answer is the one to "What did Nostoc offer?", and the
    player sees how the question was read, under the answer and under "Why this answer?"."""
    indexed(tmp_path)
    at = ask(start(CHAT), "What did Nosstoc offer?")
    at = ask(at, "What did Nostoc offer?")
    misspelt, spelt = at.chat_message[1].markdown[0].value, at.chat_message[3].markdown[0].value
    assert misspelt.startswith("A dwarf named Nostoc offers gold") and misspelt == spelt
    assert "Read as your notes spell it: What did Nostoc offer?" in texts(at.chat_message[1].caption)
    assert "Read as your notes spell" not in texts(at.chat_message[3].caption)
    assert "Read as your notes spell **Nostoc** (asked as Nosstoc)" in texts(at.markdown)


def test_a_question_typed_without_capitals_is_refused_for_a_name_the_notes_never_write(tmp_path):
    """Typed as a chat is, "who rules whitestone?" asks about Whitestone as "Who rules Whitestone?" does; the notes
    never mention it, so the player is told so rather than given whatever passage holds "rules"."""
    indexed(tmp_path)
    at = ask(start(CHAT), "who rules whitestone?")
    assert at.chat_message[1].markdown[0].value == "The notes don't say: they never mention Whitestone."
    assert not at.exception


def test_a_question_typed_without_capitals_names_whom_the_notes_capitalise(tmp_path):
    """ "grog" is an everyday word, but these notes always write Grog as a name: typed as a chat is, "when did we first
    meet grog?" asks when the party met him, as the capitalised question does (it used to say when Grog was first
    named, as of a word), and a question about his mother is refused for her, not for some mother."""
    indexed(tmp_path)
    at = start(CHAT)
    for question in ("When did we first meet Grog?", "when did we first meet grog?", "what is grog's mother called?"):
        at = ask(at, question)
    said = [m.markdown[0].value for m in at.chat_message if m.name != "user"]
    assert said[0].startswith("First met in Session 1.") and said[1].startswith("First met in Session 1.")
    assert said[2] == "The notes don't say: no passage found names Grog's mother."
    assert not at.exception


def test_chat_without_notes_says_what_to_do_first():
    at = start()  # the Chat page is the default
    assert "Add your notes on the Ingest page" in texts(at.info)
    assert at.chat_input(key="chat_question").proto.disabled  # nothing to ask yet


def test_bounds_a_long_question_is_refused_and_the_chat_keeps_its_last_turns(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_LIMITS__CHAT_TURNS", "2")
    indexed(tmp_path)
    at = start(CHAT)
    at = ask(at, "Trinket " * 200)  # 1,600 characters
    assert "ask it in at most 1,000 characters" in texts(at.error) and not at.exception
    at.switch_page(CHAT).run()
    # the question and what stopped it stay in the chat, with a way to ask it again
    assert texts(at.chat_message[0].markdown).startswith("Trinket Trinket")
    assert "ask it in at most 1,000 characters" in texts(at.error) and at.button(key="again0")
    for question in ("Which bear did Vex tame?", "What did Nostoc offer?", "Who smashed the duergar patrol?"):
        at = ask(at, question)
    questions = [texts(m.markdown) for m in at.chat_message if m.name == "user"]
    assert questions == ["What did Nostoc offer?", "Who smashed the duergar patrol?"]
    assert "keeps the last 2 questions and answers" in texts(at.caption)


def with_model(monkeypatch, url: str, model: str) -> None:
    """The chat answers with a model of tests/llm_server.py (one that streams a scripted answer)."""
    from tests.llm_server import KEY

    for key, value in {"BACKEND": "openai", "BASE_URL": url, "MODEL": model, "API_KEY": KEY}.items():
        monkeypatch.setenv(f"CHRONICLER_ANSWER__{key}", value)


def test_a_citation_of_no_passage_given_is_said_once_under_the_answer(tmp_path, monkeypatch, llm_server):
    with_model(monkeypatch, llm_server, "copies-example")
    indexed(tmp_path)
    at = ask(start(CHAT), "What did Nostoc offer?")
    said = texts(at.chat_message[1].markdown)
    assert said.count("[Session 5 · The Sunken Tavern] is not a passage this answer was given") == 1
    assert not [w for w in at.warning if "Sunken Tavern" in str(w.value)]  # no second, yellow, box


@pytest.mark.parametrize(
    ("model", "question", "line", "badge"),
    [
        ("right", "Which bear did Vex tame?", None, "Found it in Session 3"),
        ("invents", "What did Nostoc offer?", "⚠ The notes cited don't say this", "Not sure"),
        ("uncited", "Which bear did Vex tame?", None, "Found it in Session 3"),  # cited where its passage holds it
        ("uncited-invents", "What colour is the cook's favourite hat?", "⚠ This answer cites no passage", "Not sure"),
    ],
)
def test_a_models_answer_says_when_the_notes_it_cites_do_not_hold_it(
    tmp_path, monkeypatch, llm_server, model, question, line, badge
):
    with_model(monkeypatch, llm_server, model)
    indexed(tmp_path)
    said = texts(ask(start(CHAT), question).chat_message[1].markdown)
    assert badge in said
    assert (line in said) if line else "⚠" not in said


def test_what_happened_in_a_session_gets_its_recap(tmp_path):
    """A player's most common question is answered with the session's own lines, each cited, not refused."""
    indexed(tmp_path)
    at = ask(start(CHAT), "What happened in session 2?")
    said = texts(at.chat_message[1].markdown)
    assert said.startswith("Previously on Session 2:") and "The notes don't say" not in said
    shown = [line.strip() for line in said.splitlines()]  # as it streamed in: each line of the recap on its own
    assert "- The party descends into the mines below Kraghammer. [Session 2 · Into the Mines]" in shown
    assert not at.warning and not at.error  # every citation resolved
    assert [p.proto.popover.label for p in at.get("popover")] == ["Session 2 · Into the Mines"]  # one click away


def test_asked_in_the_party_s_voice_it_says_how_it_read_the_question(tmp_path):
    """The small vault tells of the party in the third person, so "us" was looked for as "the party": "Why this
    answer?" says so in the player's words; a question without "we" or "us" gets no such line."""
    indexed(tmp_path)
    at = ask(start(CHAT), "Which bear did Vex show us in the Underdark?")
    assert "as your notes tell it: **Which bear did Vex show the party in the Underdark?**" in texts(at.markdown)
    at = ask(at, "Which bear did Vex tame in the Underdark?")
    assert texts(at.markdown).count("as your notes tell it") == 1


def test_a_campaign_made_by_another_reading_model_says_to_read_it_again(tmp_path, monkeypatch, register_backend):
    """Settings changed the embedding model and the notes were not read again: the chat says what to do, in one
    line, instead of the engine's error."""
    import numpy as np

    from tests.fakes import FakeEmbedder

    class SmallerEmbedder(FakeEmbedder):
        name, dim = "fake-small", 32

        def embed_batch(self, texts):
            return np.ascontiguousarray(super().embed_batch(texts)[:, : self.dim])

    indexed(tmp_path)
    register_backend("embedders", "fake-small", SmallerEmbedder)
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake-small")
    at = ask(start(CHAT), "Which bear did Vex tame in the Underdark?")
    assert "made with another reading model" in texts(at.error) and "Re-index" in texts(at.error)
