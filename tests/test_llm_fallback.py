"""A language model that does not answer never leaves a player without an answer: down, wrong key, time-out, or a
stream that breaks off midway, the question gets the offline answer from the notes and one line saying the model did
not answer and where to fix it, in the Pipeline, in the chat, in the Search page and on the command line; saving
answer settings whose model does not answer asks to confirm. The model is tests/llm_server.py's real HTTP server
(the real ``openai`` client), or a port nobody listens on."""

from __future__ import annotations

import socket
import time

import pytest
import yaml

from rag.cli import main
from rag.config import load_config
from rag.pipeline import Pipeline
from tests.fakes import FakeEmbedder
from tests.helpers import indexed, start, texts, write_notes, write_vault
from tests.llm_server import KEY, Handler

QUESTION = "Which bear did Vex tame?"


def closed_port() -> str:
    """An address where nothing listens: a model server that is down."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def llm(url: str, **answer) -> dict:
    settings = {"backend": "openai", "base_url": url, "model": "known-model", "api_key": KEY, "max_retries": 0}
    return {f"answer.{k}": v for k, v in (settings | answer).items()}


@pytest.fixture
def offline(tmp_path):
    """The campaign, indexed, answered by the offline answerer: what a fallback must say."""
    config = load_config(overrides={"store.backend": "qdrant", "store.path": ":memory:"})
    p = Pipeline(config, embedder=FakeEmbedder())
    p.index(write_vault(tmp_path / "vault"), "demo")
    yield p
    p.close()


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({}, "Cannot reach the LLM server"),  # down
        ({"api_key": "sk-wrong"}, "rejected the API key"),
        ({"model": "slow-model", "timeout": 0.5}, "did not reply within 0.5 seconds"),
        ({"model": "no-such-model"}, "'no-such-model' does not exist"),
    ],
)
def test_a_model_that_does_not_answer_gets_the_offline_answer_and_one_line(offline, llm_server, settings, reason):
    url = closed_port() if not settings else llm_server
    expected = offline.answer(QUESTION, "demo")
    stream = offline.with_settings(llm(url, **settings)).ask(QUESTION, "demo")
    assert stream.fell_back and stream.notices[0] == stream.fell_back  # said before anything streams
    assert reason in stream.fell_back and "Settings → Answers" in stream.fell_back and "\n" not in stream.fell_back
    text = "".join(stream)
    answer = stream.answer
    assert text == answer.text == expected.text and not answer.refused and "Trainket" not in text
    assert [c.chunk_id for c in answer.citations] == [c.chunk_id for c in expected.citations]
    assert answer.trace["fallback"] == stream.fell_back and answer.trace["generator"] == expected.trace["generator"]


def test_a_stream_that_breaks_off_midway_ends_as_the_offline_answer(offline, llm_server):
    expected = offline.answer(QUESTION, "demo")
    stream = offline.with_settings(llm(llm_server, model="breaks-off")).ask(QUESTION, "demo")
    assert stream.fell_back is None  # the model began to answer
    streamed = "".join(stream)
    assert stream.restarted and stream.fell_back and "broke off" in stream.fell_back
    assert streamed.startswith("Herris gives them ") and stream.answer.text == expected.text


def test_a_model_that_answers_answers_and_a_failed_one_is_not_waited_for_again(offline, llm_server, monkeypatch):
    answered = offline.with_settings(llm(llm_server)).answer(QUESTION, "demo")
    assert answered.text.startswith("Herris gives them") and "fallback" not in answered.trace
    slow = offline.with_settings(llm(llm_server, model="slow-model", timeout=0.6))
    monkeypatch.setattr(Handler, "slow_seconds", 3.0)
    started = time.perf_counter()
    assert slow.answer(QUESTION, "demo").trace["fallback"]
    first = time.perf_counter() - started
    started = time.perf_counter()
    again = slow.answer("Who smashed the duergar patrol?", "demo")
    assert again.trace["fallback"] and "did not reply within 0.6 seconds" in again.trace["fallback"]
    assert first >= 0.6 and time.perf_counter() - started < 0.6  # answer.recheck_seconds: not asked again


def test_the_search_page_searches_without_the_model_and_says_so(offline):
    result = offline.with_settings(llm(closed_port()) | {"retrieval.query_expansion": True}).search(QUESTION, "demo")
    assert result.hits and "did not answer" in result.notices[0] and "searched without its help" in result.notices[0]


def test_a_player_at_a_shared_table_is_told_the_model_did_not_answer_but_not_its_address(offline):
    """A player cannot open Settings, and the model's address is the game master's: the line says what happened
    and whom to ask; the game master (and the owner of an app nobody shares) reads what the model said."""
    url = closed_port()
    player = offline.with_settings(llm(url) | {"role": "player", "retrieval.query_expansion": True})
    stream = player.ask(QUESTION, "demo")
    "".join(stream)
    assert stream.fell_back.startswith("The language model did not answer, so this is the offline answer")
    assert url not in stream.fell_back and "answer.base_url" not in stream.fell_back
    assert "game master" in stream.fell_back and stream.answer.text
    searched = player.search(QUESTION, "demo").notices[0]
    assert "searched without its help" in searched and url not in searched
    gm = offline.with_settings(llm(url) | {"role": "gm"}).ask(QUESTION, "demo")
    assert "Cannot reach the LLM server" in gm.fell_back and "Settings → Answers" in gm.fell_back


# -- as a player sees it -------------------------------------------------------------------------------------------


def test_the_chat_answers_offline_with_the_notice_when_the_model_is_down(tmp_path, monkeypatch, app_env):
    for key, value in llm(closed_port()).items():
        monkeypatch.setenv("CHRONICLER_" + key.upper().replace(".", "__"), str(value))
    indexed(tmp_path)
    at = start("pages/chat.py")
    at.chat_input(key="chat_question").set_value(QUESTION).run()
    assert not at.exception and not at.error, texts(at.error)
    said = at.chat_message[1]
    assert "Trinket" in texts(said.markdown)  # the offline answer, from the notes
    assert [w.value for w in said.warning if "did not answer" in w.value] == [
        next(w.value for w in said.warning if "did not answer" in w.value)
    ]  # one line
    assert "Settings → Answers" in texts(said.warning)
    at.chat_input(key="chat_question").set_value("Who smashed the duergar patrol?").run()  # the earlier turn keeps it
    assert "did not answer" in texts(at.chat_message[1].warning) and not at.error


def test_the_cli_answers_offline_with_the_notice(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    vault = write_vault(tmp_path / "vault")
    assert main(["index", "--notes", str(vault), "--campaign", "demo"]) == 0
    capsys.readouterr()
    settings = [a for k, v in llm(closed_port()).items() for a in ("--set", f"{k}={v}")]
    assert main(["run", QUESTION, "--campaign", "demo", *settings]) == 0
    out, err = capsys.readouterr()
    assert "Trinket" in out and "Traceback" not in out + err
    notes = [line for line in (out + err).splitlines() if "did not answer" in line]
    assert len(notes) == 1 and "Settings → Answers" in notes[0]


# -- saving settings -----------------------------------------------------------------------------------------------


def test_saving_a_model_that_does_not_answer_asks_to_confirm(tmp_path, app_env, llm_server):
    at = start("pages/settings.py")
    at.radio(key="s_answer_backend").set_value("openai").run()
    at.text_input(key="s_answer_url").set_value(closed_port())
    at.text_input(key="s_answer_model").set_value("known-model")
    at.button(key="s_save_answer").click().run()
    assert not at.exception
    assert not (tmp_path / "local.yaml").exists()  # not saved yet
    asked = texts(at.warning)
    assert "did not answer" in asked and "offline answer" in asked
    at.button(key="s_keep_answer").click().run()  # keep the old settings
    assert not (tmp_path / "local.yaml").exists() and "did not answer" not in texts(at.warning)
    at.button(key="s_save_answer").click().run()
    at.button(key="s_save_answer_anyway").click().run()
    saved = yaml.safe_load((tmp_path / "local.yaml").read_text(encoding="utf-8"))
    assert saved["answer"]["backend"] == "openai" and "Saved" in texts(at.success)

    at.text_input(key="s_answer_url").set_value(llm_server)  # a model that answers: saved at once
    at.text_input(key="s_answer_key").set_value(KEY)
    at.button(key="s_save_answer").click().run()
    assert "Saved" in texts(at.success) and not at.warning
    assert yaml.safe_load((tmp_path / "local.yaml").read_text(encoding="utf-8"))["answer"]["base_url"] == llm_server


def _long_sessions(folder) -> object:
    """Five sessions of ~1,150 characters each about Vex's bear: five passages the "ctx-2048" model (llama-cpp-python's
    server at its default context) cannot read at once with room for a reply of 1,024 tokens."""
    line = "Vex tames a bear in the woods near the camp, and the bear follows her back to the duergar ruins at dusk. "
    # each evening its own words: passages that repeat one another's words take one place in the results
    return write_notes(folder, {f"Session {n}.md": f"# Session {n}\n\nOn day {n}. {line * 11}\n" for n in range(1, 6)})


def test_a_model_with_a_short_context_is_given_the_best_passages_that_fit(tmp_path, llm_server):
    config = load_config(overrides={"store.backend": "qdrant", "store.path": ":memory:"})
    p = Pipeline(config, embedder=FakeEmbedder())
    p.index(_long_sessions(tmp_path / "long"), "demo")
    Handler.requests.clear()
    reread = {"reranker.backend": "llm"}  # the same model re-reads the passages first
    stream = p.with_settings(llm(llm_server, model="ctx-2048", max_tokens=1024) | reread).ask(QUESTION, "demo")
    answer = stream.answer
    asked = [r["body"] for r in Handler.requests if r["body"].get("stream")]
    assert len(asked) == 2  # refused as too long, naming 2,048 tokens; asked again with what fits
    streamed = [bool(r["body"].get("stream")) for r in Handler.requests]
    assert not streamed[0] and streamed[-2:] == [True, True]  # passages re-read, then asked twice
    assert streamed.count(False) == streamed.index(True)  # asked again from the passages found: not re-read twice
    assert "fallback" not in answer.trace and answer.text.startswith("Herris gives them")  # the model's own answer
    given = answer.trace["prompt"][-1]["content"].count("Vex tames a bear") // 11
    assert 1 <= given < len(answer.hits) == 5
    assert asked[1]["messages"] == answer.trace["prompt"]  # the run record holds what was sent
    said = f"The language model was given the best {given} of the 5 passages below"
    assert any(n.startswith(said) for n in stream.notices)
    p.close()


def test_a_request_too_long_for_the_model_does_not_keep_the_next_question_from_it(tmp_path, llm_server, monkeypatch):
    config = load_config(overrides={"store.backend": "qdrant", "store.path": ":memory:"})
    p = Pipeline(config, embedder=FakeEmbedder())
    p.index(_long_sessions(tmp_path / "long"), "demo")
    monkeypatch.setattr(Handler, "names_its_context", False)  # llama.cpp's own server: no length in its refusal
    model = p.with_settings(llm(llm_server, model="ctx-2048", max_tokens=1024))
    refused = model.answer(QUESTION, "demo")
    assert "too long for the LLM" in refused.trace["fallback"]  # answered offline, and said why
    monkeypatch.setattr(Handler, "names_its_context", True)
    again = model.answer(QUESTION, "demo")
    assert "fallback" not in again.trace and again.text.startswith("Herris gives them")  # asked again at once
    p.close()
