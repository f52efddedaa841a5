"""Who may act. In a shared app (a GM passphrase set) the player view asks, searches and browses, and nothing
else: adding notes, reading a folder, deleting a campaign, settings, model tests and measuring the search are
the GM view's, refused in player words by the pages and again by the library where the action runs. Without a
passphrase the app is one person's and everything stays open (the rest of the AppTest suite)."""

from __future__ import annotations

import io
import zipfile

import pytest

from rag.access import GM, OWNER, PLAYER
from rag.config import load_config
from rag.errors import GMOnlyError
from rag.ingest.campaign_files import save_campaign_uploads
from rag.ingest.uploads import known_campaigns, remember_source, uploads_dir
from rag.measure.evaluation import evaluate
from rag.measure.questions import parse_questions
from rag.pipeline import Pipeline
from tests.helpers import VAULT, start, texts, write_notes

PASSPHRASE = "owlbear-42"
SAID = "Only the game master can"


def pipeline_for(tmp_path, role) -> Pipeline:
    config = load_config(
        overrides={
            "data_dir": str(tmp_path / "data"),
            "notes.sync_roots": [str(tmp_path)],
            "embedding.backend": "fake",
            "role": role,
        }
    )
    return Pipeline(config)


def test_the_library_refuses_every_action_to_a_player(tmp_path):
    notes = write_notes(tmp_path / "vault", VAULT)
    gm = pipeline_for(tmp_path, GM)
    try:
        gm.index(notes, "tomb")
    finally:
        gm.close()
    player = pipeline_for(tmp_path, PLAYER)
    questions = parse_questions(b'{"id": "q", "question": "Who is Grog?", "sessions": [1]}\n', "q.jsonl")
    attempts = {
        "add notes to a campaign": lambda: save_campaign_uploads(player.config, "tomb", [("S.md", b"# x\n- y\n")]),
        "read notes into a campaign": lambda: player.index(notes, "mine"),
        "delete a campaign": lambda: player.drop("tomb", uploads=True),
        "measure how well search finds the answers": lambda: evaluate(player, "tomb", questions),
    }
    try:
        for what, attempt in attempts.items():
            with pytest.raises(GMOnlyError) as err:
                attempt()
            said = err.value.one_line()
            assert said.startswith(f"{SAID} {what} while Chronicler is shared with the table.")
            assert "open the GM view in the sidebar" in said
        assert player.campaign_names() == ["tomb"] and player.passage_count("tomb") > 0  # nothing changed
        assert not uploads_dir(player.config, "tomb").exists()
        assert player.search("Who smashed the duergar patrol?", "tomb").hits  # reading is open
    finally:
        player.close()


def test_deleting_a_campaign_removes_every_file_it_left(tmp_path):
    name = "Tomb of Annihilation"
    for role in (OWNER, GM):
        pipeline = pipeline_for(tmp_path / role, role)
        try:
            save_campaign_uploads(pipeline.config, name, [("Session 1.md", VAULT["Session 1.md"].encode())])
            pipeline.index(uploads_dir(pipeline.config, name), name)
            remember_source(pipeline.config, name, uploads_dir(pipeline.config, name))
            pipeline.with_settings({"view": "gm"}).aliases(name)  # the GM view's table too
            aliases = sorted(p.name for p in (pipeline.config.data_path / "aliases").iterdir())
            assert aliases == ["chronicler-tomb-of-annihilation.gm.json", "chronicler-tomb-of-annihilation.json"]
            pipeline.drop(name, uploads=True)
            left = sorted(str(p.relative_to(pipeline.config.data_path)) for p in pipeline.config.data_path.rglob("*"))
            assert [p for p in left if "tomb" in p.lower()] == [], left
            assert pipeline.campaign_names() == [] and known_campaigns(pipeline.config) == []
        finally:
            pipeline.close()


# -- the app ------------------------------------------------------------------------------------------------


@pytest.fixture
def shared(app_env, monkeypatch, tmp_path):
    """A shared app (passphrase set) whose campaign already holds notes."""
    monkeypatch.setenv("CHRONICLER_GM_PASSPHRASE", PASSPHRASE)
    monkeypatch.setenv("CHRONICLER_NOTES_DIR", str(write_notes(tmp_path / "demo-notes", VAULT)))
    return tmp_path


def unlock(at, attempt: str = PASSPHRASE):
    at.text_input(key="gm_attempt").set_value(attempt)
    next(b for b in at.sidebar.button if b.label == "Show GM notes").click().run()
    assert not at.exception, at.exception
    return at


def zipped(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return buf.getvalue()


def test_the_player_view_of_a_shared_app_can_ask_and_browse_but_not_act(shared):
    at = start("pages/ingest.py")
    said = texts(at.info)
    assert "Adding notes, reading folders on the server and deleting campaigns are for the game master" in said
    assert not at.get("file_uploader") and not at.main.text_input and not at.main.button  # nothing to act with
    assert not [e for e in at.main.expander if "Delete" in e.label]
    at.switch_page("pages/settings.py").run()
    assert "Settings (the language model, its address and key, where notes are stored) are for the game" in texts(
        at.info
    )
    assert not at.main.text_input and not at.main.button and not at.main.radio  # no model fields, no addresses
    at.switch_page("pages/home.py").run()
    assert "Your game master can measure here" in texts(at.caption)
    assert not at.get("file_uploader") and not [b for b in at.button if b.key == "eval_run"]
    assert {m.label: m.value for m in at.metric}["Sessions"] == "3"  # browsing is open
    at.switch_page("pages/chat.py").run()
    at.chat_input(key="chat_question").set_value("Which bear did Vex tame?").run()
    assert "Trinket" in texts(at.chat_message[1].markdown)  # asking too


def test_the_gm_view_of_a_shared_app_can_do_each(shared):
    at = unlock(start("pages/ingest.py"))
    # upload
    at.file_uploader[0].set_value([("more.zip", zipped({"Session 4.md": "# Session Start\n- Kima joins.\n"}), "x")])
    at.run()
    assert "replaces them" in texts(at.warning)  # the campaign was read from its folder
    at.checkbox(key="replace_source_upload").check().run()
    at.button(key="upload_go").click().run()
    assert not at.error and "Read 1 file into" in texts(at.success), texts(at.error)
    # sync a folder
    folder = write_notes(shared / "vaults" / "Salt Road", {"Session 1.md": "# Session Start\n- Salt and rope.\n"})
    key = next(t.key for t in at.text_input if t.key and t.key.startswith("sync_folder_"))
    at.text_input(key=key).set_value(str(folder)).run()
    at.checkbox(key="replace_source_folder").check().run()
    at.button(key="sync_go").click().run()
    assert not at.error and "Read 1 file into" in texts(at.success), texts(at.error)
    # measuring the search
    at.switch_page("pages/home.py").run()
    assert at.get("file_uploader") and "Your game master can measure" not in texts(at.caption)
    at.switch_page("pages/ingest.py").run()
    # delete
    at.button(key="delete_start").click().run()
    at.text_input(key="delete_confirm_name").set_value("demo").run()
    at.button(key="delete_go").click().run()
    assert not at.error and not list((shared / "data" / "aliases").glob("chronicler-demo*")), texts(at.error)
    # settings: an address, saved
    at.switch_page("pages/settings.py").run()
    at.radio(key="s_answer_backend").set_value("openai").run()
    at.text_input(key="s_answer_url").set_value("http://127.0.0.1:9/v1").run()
    at.text_input(key="s_answer_model").set_value("llama3.2").run()
    at.button(key="s_save_answer").click().run()
    at.button(key="s_save_answer_anyway").click().run()  # nothing listens there: saved once confirmed
    assert "Saved." in texts(at.success) and load_config().answer.base_url == "http://127.0.0.1:9/v1"
