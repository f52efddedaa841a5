"""A Qdrant server that goes down mid-session and comes back (tests/qdrant_server.py: Qdrant's REST API over
real HTTP, from qdrant-client's in-process engine). The chat shows one readable message, the other pages keep
working, the conversation is kept, and the same question gets the same answer once the server is back. The
CLI's index stops with one line when the server dies mid-run, and the next run completes the collection."""

from __future__ import annotations

import pytest

from rag.cli import main
from rag.config import load_config
from tests.helpers import indexed, start, stored, texts, write_notes
from tests.qdrant_server import QdrantServer

QUESTION = "Which bear did Vex tame in the Underdark?"
PAGES = ("pages/search.py", "pages/home.py", "pages/people.py", "pages/story.py", "pages/ingest.py")


@pytest.fixture
def server(monkeypatch):
    qdrant = QdrantServer()
    monkeypatch.setenv("CHRONICLER_STORE__BACKEND", "qdrant")
    monkeypatch.setenv("CHRONICLER_STORE__URL", qdrant.url)
    yield qdrant
    qdrant.stop()


def shown(message) -> str:
    """A chat message's text as a player reads it (the streamed and the redrawn answer differ in blank lines)."""
    return " ".join(texts(message.markdown).split())


def ask(at, question: str):
    at.chat_input(key="chat_question").set_value(question).run()
    assert not at.exception, at.exception
    return at


@pytest.mark.usefixtures("app_env")
def test_the_app_when_its_qdrant_server_goes_down_mid_session_and_comes_back(tmp_path, server):
    indexed(tmp_path)
    at = ask(start("pages/chat.py"), QUESTION)
    answer = shown(at.chat_message[1])
    assert "Trinket" in answer

    server.stop()
    ask(at, QUESTION)
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("Cannot reach the Qdrant server at"), errors
    assert shown(at.chat_message[1]) == answer  # the conversation so far is kept
    for page in PAGES:  # every page still opens and says what is wrong, no traceback
        at.switch_page(page)
        at.run()
        assert not at.exception, (page, at.exception)

    server.start()
    at.switch_page("pages/chat.py")
    at.run()
    ask(at, QUESTION)
    assert not at.error, texts(at.error)
    assert shown(at.chat_message[-1]) == answer  # the same answer as before it went down


def many_notes(folder):
    """100 sessions of 6 scenes (600 passages): the index writes them in batches (one per embedding batch)."""
    notes = {
        f"Session {n}.md": "".join(
            f"## Scene {n}.{i}\n- On day {n} the party counts {n * i} crates of salt at stop {i}.\n" for i in range(6)
        )
        for n in range(1, 101)
    }
    return write_notes(folder, notes)


def test_the_cli_index_when_the_server_dies_mid_run_then_the_next_run_completes(tmp_path, server, capsys):
    args = ["index", "--notes", str(many_notes(tmp_path / "notes")), "--campaign", "salt"]
    args += ["--data", str(tmp_path / "data"), "--set", "embedding.backend=fake"]
    config = load_config(overrides={"data_dir": str(tmp_path / "data"), "embedding.backend": "fake"})
    before = server.requests
    assert main(args) == 0  # a clean index, to compare with
    clean, routes = stored(tmp_path / "data", "salt"), server.answered[before:]
    writes = [i for i, route in enumerate(routes) if route == "upsert"]
    assert len(writes) >= 4
    server.engine.db.delete_collection(config.collection("salt"))
    capsys.readouterr()

    server.dies_after = server.requests + writes[2]  # two batches written, then the server stops answering
    assert main(args) == 1
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(said) == 1 and said[0].startswith("error: Cannot reach the Qdrant server at"), err
    assert "Traceback" not in err and not said[0].endswith("..")
    written = server.engine.db.count(config.collection("salt"), exact=True).count
    assert 0 < written < clean[0]  # it died with part of the campaign written

    server.dies_after = None
    assert main(args) == 0
    assert stored(tmp_path / "data", "salt") == clean  # the same ids and hashes as a clean index: none lost, none twice
