"""The Streamlit pages driven by AppTest, with the fake embedder and an embedded Qdrant in a tmp folder.

What a player does on each page, checked through what the page shows: the empty state, an upload that
ends in a per-file table, a search whose table and charts carry the hits' own numbers, settings that
reject a bad value without touching local.yaml.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from app import state as app_state
from app.tables import STAGE_LABELS
from rag.config import load_config
from rag.ingest.uploads import remember_source
from tests.docfiles import MAIL_FROM, recap_eml
from tests.helpers import APP, TIMEOUT, VAULT, indexed, plotly, start, texts, write_notes, write_vault
from tests.llm_server import KEY, Handler

pytestmark = pytest.mark.usefixtures("app_env")


# -- home -------------------------------------------------------------------------------------------------


def test_home_empty_state_tells_what_to_do():
    at = start("pages/home.py")
    assert "Add your notes on the Ingest page" in texts(at.info)
    assert not at.error


def test_home_overview_counts(tmp_path):
    indexed(tmp_path)
    at = start("pages/home.py")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Sessions"] == "3"
    assert metrics["Files"] == "4"
    assert int(metrics["Passages"]) >= 4
    assert int(metrics["People, places & things"]) >= 4  # Grog, Kraghammer, Nostoc, Vex, Trinket
    assert "As of session" not in texts(at.caption)
    # "As of session" keeps back who is met later, and says that the notes' own counts are of every session
    at.selectbox(key="session_cap").set_value(1)
    at.run()
    capped = {m.label: m.value for m in at.metric}
    assert capped["Sessions"] == "3" and int(capped["People, places & things"]) < int(
        metrics["People, places & things"]
    )
    assert "stop at Session 1" in texts(at.caption) and "count all your notes" in texts(at.caption)


def test_first_start_indexes_the_configured_campaign(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_NOTES_DIR", str(write_vault(tmp_path / "demo-notes")))
    at = start("pages/home.py")
    assert "Add your notes" not in texts(at.info)
    assert {m.label: m.value for m in at.metric}["Sessions"] == "3"


# -- ingest -----------------------------------------------------------------------------------------------


def test_upload_then_index_shows_per_file_counts(tmp_path):
    at = start("pages/ingest.py")
    at.file_uploader[0].set_value([(Path(n).name, t.encode(), "text/markdown") for n, t in VAULT.items()])
    at.run()
    at.button(key="upload_go").click()
    at.run()
    assert not at.exception and not at.error, texts(at.error)
    table = next(d.value for d in at.dataframe if "status" in d.value.columns)
    assert set(table["file"]) == {"Session 1.md", "Session 2.md", "Session 3.md", "Grog.md"}
    assert (table["status"] == "added").all()
    assert (table["added"] == table["passages"]).all() and (table["passages"] > 0).all()
    assert (tmp_path / "data" / "uploads" / "demo" / "Session 1.md").is_file()
    # The same upload again: nothing to re-embed.
    at.file_uploader[0].set_value([("Session 1.md", VAULT["Session 1.md"].encode(), "text/markdown")])
    at.run()
    at.button(key="upload_go").click()
    at.run()
    table = next(d.value for d in at.dataframe if "status" in d.value.columns)
    assert (table["status"] == "unchanged").all() and table["added"].sum() == 0


def test_reading_other_notes_into_a_campaign_asks_before_it_replaces_them(tmp_path, monkeypatch):
    """An upload into the demo campaign (read from its folder) used to delete the demo's passages unasked."""
    demo = write_vault(tmp_path / "demo-notes")
    monkeypatch.setenv("CHRONICLER_NOTES_DIR", str(demo))
    start("pages/home.py")  # the first start reads the demo folder
    before = app_state.passage_count(load_config(), "demo")
    at = start("pages/ingest.py")
    at.file_uploader[0].set_value(("My session.md", b"# Session 9\nWe met Osiris at the docks.\n", "text/markdown"))
    at.run()
    warned = texts(at.warning)
    assert f"holds {before} passages read from the folder" in warned and "start a new campaign" in warned
    assert at.button(key="upload_go").disabled  # nothing is replaced before the GM says so
    assert app_state.passage_count(load_config(), "demo") == before
    at.checkbox(key="replace_source_upload").check().run()
    at.button(key="upload_go").click().run()
    assert not at.error, texts(at.error)
    table = next(d.value for d in at.dataframe if "status" in d.value.columns)
    assert set(table[table["status"] == "deleted"]["file"]) == set(VAULT)  # said in the table, as asked
    # Now the campaign holds the upload: syncing the demo folder again would replace that, and says so.
    field = next(t for t in at.text_input if t.key and t.key.startswith("sync_folder_"))
    at.text_input(key=field.key).set_value(str(demo)).run()
    assert "read from the notes uploaded to it" in texts(at.warning)
    assert at.button(key="sync_go").disabled


def test_a_new_campaign_takes_uploads_without_asking(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_NOTES_DIR", str(write_vault(tmp_path / "demo-notes")))
    start("pages/home.py")
    at = start("pages/ingest.py")
    at.text_input(key="new_campaign_name").set_value("Mine").run()
    at.button(key="create_campaign").click().run()
    at.file_uploader[0].set_value(("Session 1.md", VAULT["Session 1.md"].encode(), "text/markdown"))
    at.run()
    assert not at.warning and not at.button(key="upload_go").disabled


def test_zip_vault_keeps_folders_and_preview_shows_chunks(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in VAULT.items():
            zf.writestr(f"MyVault/{name}", text)
        zf.writestr("MyVault/.obsidian/app.json", "{}")
        zf.writestr("MyVault/party.csv", "name,class\nGrog,barbarian\n")
    at = start("pages/ingest.py")
    at.file_uploader[0].set_value(("vault.zip", buf.getvalue(), "application/zip"))
    at.run()
    at.button(key="upload_go").click()
    at.run()
    assert not at.error, texts(at.error)
    # a file that is no note is said after the notes are read, not in a line the reading's rerun wipes out
    assert "vault.zip: MyVault/party.csv" in texts(at.caption) and "not notes" in texts(at.caption)
    assert ".obsidian" not in texts(at.caption)  # what a vault holds beside its notes is counted, not listed
    assert (tmp_path / "data" / "uploads" / "demo" / "People" / "Grog.md").is_file()
    assert not (tmp_path / "data" / "uploads" / "demo" / ".obsidian").exists()
    at.selectbox(key="preview_source").set_value("People/Grog.md")
    at.run()
    preview = next(d.value for d in at.dataframe if "lines" in d.value.columns)
    assert "Goliath barbarian" in " ".join(preview["text"])


@pytest.mark.parametrize("name", ["../evil.md", "/etc/evil.md", "notes/../../evil.md"])
def test_zip_with_unsafe_path_is_refused(tmp_path, name):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("Session 1.md", VAULT["Session 1.md"])
        zf.writestr(name, "gotcha")
    at = start("pages/ingest.py")
    at.file_uploader[0].set_value(("vault.zip", buf.getvalue(), "application/zip"))
    at.run()
    at.button(key="upload_go").click()
    at.run()
    assert "Nothing was saved" in texts(at.error)
    assert not (tmp_path / "data" / "uploads").exists() or not any((tmp_path / "data" / "uploads").rglob("*.md"))
    assert not (tmp_path / "evil.md").exists()


def test_delete_campaign_needs_confirmation(tmp_path):
    indexed(tmp_path)
    at = start("pages/ingest.py")
    at.button(key="delete_start").click()
    at.run()
    assert at.button(key="delete_go").disabled
    at.text_input(key="delete_confirm_name").set_value("demo")
    at.run()
    at.button(key="delete_go").click()
    at.run()
    assert not at.exception
    assert app_state.pipeline(load_config()).campaigns() == {}


def test_new_campaign_gets_its_own_uploads_folder(tmp_path):
    at = start("pages/ingest.py")
    at.text_input(key="new_campaign_name").set_value("Curse of Strahd")
    at.button(key="create_campaign").click()
    at.run()
    assert at.selectbox(key="campaign").value == "Curse of Strahd"
    at.file_uploader[0].set_value(("Session 1.md", VAULT["Session 1.md"].encode(), "text/markdown"))
    at.run()
    at.button(key="upload_go").click()
    at.run()
    assert not at.error, texts(at.error)
    assert (tmp_path / "data" / "uploads" / "Curse of Strahd" / "Session 1.md").is_file()
    assert set(app_state.pipeline(load_config()).campaigns()) == {"curse-of-strahd"}  # the store keeps slugs
    at.run()
    assert at.selectbox(key="campaign").options == ["Curse of Strahd", "demo"]  # as typed, once each
    assert at.sidebar.caption[0].value == "1 passage"  # one note of one passage, no engine-room name beside it
    assert "`curse-of-strahd`" in at.selectbox(key="campaign").help  # the command line's name, where it is asked for


def test_a_campaign_created_by_mistake_can_be_deleted(tmp_path):
    at = start("pages/ingest.py")
    at.text_input(key="new_campaign_name").set_value("Typo Campaing")
    at.button(key="create_campaign").click().run()
    assert at.selectbox(key="campaign").options == ["demo", "Typo Campaing"]
    at.button(key="delete_start").click().run()
    at.text_input(key="delete_confirm_name").set_value("Typo Campaing").run()
    at.button(key="delete_go").click().run()
    assert not at.exception and at.selectbox(key="campaign").options == ["demo"]
    assert at.selectbox(key="campaign").value == "demo"


def test_a_campaign_started_before_its_notes_is_still_there_after_a_reload(tmp_path):
    """A real vault's walk: a campaign created and not yet filled was gone after a reload, and the box kept its
    name. Started, it is kept (its uploads folder is its place) and the box is emptied; a bad name says why."""
    at = start("pages/ingest.py")
    at.text_input(key="new_campaign_name").set_value("Kingmaker")
    at.button(key="create_campaign").click().run()
    assert at.selectbox(key="campaign").value == "Kingmaker" and at.text_input(key="new_campaign_name").value == ""
    assert at.toast[0].value.startswith("Started **Kingmaker**")
    assert at.query_params["campaign"] == "Kingmaker"  # in the address: a reload stays in it
    again = start("pages/ingest.py")  # another browser tab, its address naming no campaign
    assert again.selectbox(key="campaign").options == ["demo", "Kingmaker"]
    assert again.selectbox(key="campaign").value == "Kingmaker"  # the one just started, not the demo again
    reloaded = AppTest.from_file(APP, default_timeout=TIMEOUT)
    reloaded.query_params["campaign"] = "Kingmaker"
    reloaded.run()
    assert reloaded.selectbox(key="campaign").value == "Kingmaker"
    linked = AppTest.from_file(APP, default_timeout=TIMEOUT)
    linked.query_params["campaign"] = "kingmaker"  # as the command line names it (the selector's help says so)
    linked.run()
    assert linked.selectbox(key="campaign").value == "Kingmaker"
    assert again.sidebar.caption[0].value == "No notes yet"
    again.text_input(key="new_campaign_name").set_value("GM/secrets")
    again.button(key="create_campaign").click().run()
    assert "must not be empty or contain slashes" in texts(again.error)
    assert again.selectbox(key="campaign").options == ["demo", "Kingmaker"]
    again.text_input(key="new_campaign_name").set_value("Kingmaker")  # typed again (a walk): said, not "Started"
    again.button(key="create_campaign").click().run()
    assert again.toast[0].value == "**Kingmaker** is already a campaign: its notes are kept. Add more below."
    assert again.selectbox(key="campaign").options == ["demo", "Kingmaker"]


def test_a_new_tab_opens_the_campaign_last_read_not_the_demo(tmp_path):
    """A walk's player read their vault into a new campaign, opened a new tab, and found the demo again. A page
    whose address names no campaign opens the one last read; one whose address names the demo opens the demo;
    once the campaign is deleted, the demo again."""
    indexed(tmp_path)  # the demo's notes, read first
    at = start("pages/ingest.py")
    at.text_input(key="new_campaign_name").set_value("Ravenloft")
    at.button(key="create_campaign").click().run()
    at.file_uploader[0].set_value(("Session 1.md", VAULT["Session 1.md"].encode(), "text/markdown"))
    at.run()
    at.button(key="upload_go").click().run()
    assert not at.error, texts(at.error)
    tab = start("pages/home.py")
    assert tab.selectbox(key="campaign").value == "Ravenloft" and tab.sidebar.caption[0].value == "1 passage"
    linked = AppTest.from_file(APP, default_timeout=TIMEOUT)
    linked.query_params["campaign"] = "demo"
    linked.run()
    assert linked.selectbox(key="campaign").value == "demo"
    at.button(key="delete_start").click().run()
    at.text_input(key="delete_confirm_name").set_value("Ravenloft").run()
    at.button(key="delete_go").click().run()
    assert not at.exception and start("pages/home.py").selectbox(key="campaign").value == "demo"


def test_unreachable_store_shows_a_message_not_a_traceback(monkeypatch):
    monkeypatch.setenv("CHRONICLER_STORE__URL", "http://127.0.0.1:9")
    at = start()
    assert "Cannot reach the Qdrant server" in texts(at.error)
    for page in ("pages/search.py", "pages/ingest.py", "pages/settings.py"):
        at.switch_page(page)
        at.run()
        assert not at.exception, (page, at.exception)


# -- search -----------------------------------------------------------------------------------------------


def test_search_table_and_charts_match_the_hits(tmp_path):
    indexed(tmp_path)
    at = start("pages/search.py")
    at.radio(key="mode").set_value("dense")
    at.text_input(key="question").set_value("Grog greataxe duergar")
    at.run()
    assert not at.exception and not at.error, texts(at.error)

    config = load_config()
    expected = (
        app_state.pipeline(config)
        .with_settings({"retrieval.mode": "dense", "retrieval.k": config.retrieval.k})
        .search("Grog greataxe duergar", "demo")
    )
    table = at.dataframe[0].value
    for column in ("rank", "session", "name", "dense", "keyword", "fused", "rerank", "score", "status"):
        assert column in table.columns
    assert len(table) == len(expected.candidates)
    assert table["keyword"].isna().all() and table["fused"].isna().all()  # dense mode: stages that did not run
    assert at.dataframe[0].proto.placeholder == "–"  # ...shown as a dash, not "None"
    assert "None" not in texts(at.caption)
    shown = table[table["status"] == "shown"]
    assert list(shown["name"]) == [h.chunk.name for h in expected.hits]
    assert list(shown["dense"]) == pytest.approx([h.scores["dense"] for h in expected.hits])

    why = plotly(at, 0)  # the player's chart: one bar per passage, the best one 100
    assert [t["name"] for t in why["data"]] == ["matched meaning"]
    top = max(h.scores["dense"] for h in expected.hits)
    assert why["data"][0]["x"] == pytest.approx([100 * max(h.scores["dense"], 0) / top for h in expected.hits])
    stages = plotly(at, 1)
    assert stages["data"][0]["y"] == pytest.approx([h.scores["dense"] for h in expected.hits])
    assert len(stages["data"][0]["x"]) == len(expected.hits)
    distribution = plotly(at, 2)
    plotted = sorted(x for trace in distribution["data"] for x in trace["x"])
    assert plotted == pytest.approx(sorted(h.searched for h in expected.candidates))  # what the threshold cuts
    assert distribution["data"][0]["name"] == "shown"
    assert sorted(distribution["data"][0]["x"]) == pytest.approx(sorted(h.searched for h in expected.hits))


def test_hybrid_mode_and_threshold_change_the_table(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_RERANKER__ENABLED", "false")  # the threshold on the fused scores themselves
    indexed(tmp_path)
    at = start("pages/search.py")
    at.text_input(key="question").set_value("mind flayer Underdark")
    at.radio(key="mode").set_value("hybrid")
    at.run()
    table = at.dataframe[0].value
    assert table["fused"].notna().all() and table["dense"].notna().any() and table["keyword"].notna().any()
    assert table["context"].notna().any()  # the keyword stage over each passage with its neighbours
    stage_rows = [trace["name"] for trace in plotly(at, 1)["data"]]
    assert len(at.get("plotly_chart")) == 4
    # the Grog page is among the best matches, so the session passages that link [[Grog]] get a "links" score
    linked = [STAGE_LABELS["links"]] if table["links"].notna().any() else []
    assert table["expansion"].notna().any()  # "Expand the question" is on by default: what its wording added
    assert stage_rows == [
        "Meaning (dense)",
        "Exact words (keyword)",
        STAGE_LABELS["context"],
        *linked,
        "Combined (fused)",
        STAGE_LABELS["expansion"],
    ]

    at.radio(key="mode").set_value("dense")
    at.run()
    scores = sorted(at.dataframe[0].value["score"])
    cut = round(scores[-1] / 2, 2)  # between the best match and the rest
    at.slider(key="threshold_dense").set_value(cut)
    at.slider(key="top_k").set_value(2)
    at.run()
    table = at.dataframe[0].value
    assert set(table.loc[table["score"] < cut, "status"]) <= {"below threshold"}
    assert (table["status"] == "shown").sum() <= 2
    shapes = plotly(at, 2)["layout"].get("shapes", [])
    assert cut > 0, scores
    assert any(s.get("type") == "line" for s in shapes), plotly(at, 2)["layout"]


def test_session_cap_keeps_later_sessions_out(tmp_path):
    indexed(tmp_path)
    at = start("pages/search.py")
    at.text_input(key="question").set_value("Grog party")
    at.run()
    assert set(at.dataframe[0].value["session"]) > {"1"}
    at.selectbox(key="session_cap").set_value(1)
    at.run()
    assert set(at.dataframe[0].value["session"]) == {"1"}
    assert "as of Session 1" in texts(at.caption)
    assert at.query_params["as_of"] == "1"  # in the address: a reload keeps the spoilers out (vault-nova walk)
    reloaded = AppTest.from_file(APP, default_timeout=TIMEOUT)
    reloaded.query_params["as_of"] = "1"
    reloaded.run()
    assert reloaded.selectbox(key="session_cap").value == 1
    reloaded.selectbox(key="session_cap").set_value("all").run()
    assert "as_of" not in reloaded.query_params


def test_a_search_no_passage_shares_a_word_with_says_so(tmp_path):
    """A search always finds the nearest passages: for words the notes never use, the page says they may be
    unrelated instead of listing them as matches."""
    indexed(tmp_path)
    at = start("pages/search.py")
    at.text_input(key="question").set_value("xyzzy plugh").run()
    assert "None of these passages has a word of your question" in texts(at.info) and not at.exception
    at.text_input(key="question").set_value("Grog party").run()
    assert "None of these passages" not in texts(at.info)


def test_sessions_named_by_date_are_offered_with_the_day_they_were_played(tmp_path):
    notes = {"Sessions/2023-04-08.md": "- Grog meets the queen.", "Sessions/2023-03-25 - The Heist.md": "- Grog robs."}
    app_state.pipeline(load_config()).index(write_notes(tmp_path / "dated", notes), "demo")
    app_state.changed()
    at = start("pages/search.py")
    assert at.selectbox(key="session_cap").options == [
        "All sessions",
        "Session 1 (2023-03-25)",
        "Session 2 (2023-04-08)",
    ]


def test_keyword_search_shows_the_other_names_it_looked_for(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_RETRIEVAL__ALIAS_EXPANSION", "true")
    indexed(tmp_path)
    at = start("pages/search.py")
    at.radio(key="mode").set_value("keyword")
    at.text_input(key="question").set_value("Who tamed the bear, Vex?")
    at.run()
    assert "Vex'ahlia" in texts(at.caption)
    assert at.dataframe[0].value["dense"].isna().all() and at.dataframe[0].value["keyword"].notna().all()


def test_search_before_indexing_explains(tmp_path):
    at = start("pages/search.py")
    at.text_input(key="question").set_value("anything")
    at.run()
    assert not at.exception
    assert "no notes indexed yet" in texts(at.error)


# -- settings ---------------------------------------------------------------------------------------------


def test_settings_refuse_an_embedding_model_that_does_not_load(tmp_path):
    """Found as a new user: /no/such/model was "Saved." and then every question showed a traceback."""
    local = tmp_path / "local.yaml"
    at = start("pages/settings.py")
    at.selectbox(key="s_backend").set_value("local")
    at.text_input(key="s_model").set_value("/no/such/model")
    at.button(key="s_save_embedding").click().run()
    assert not at.exception
    assert "Cannot load the embedding model '/no/such/model'" in texts(at.error)
    assert not local.exists() or "/no/such/model" not in local.read_text()


def test_settings_bad_value_is_rejected_and_changes_nothing(tmp_path):
    local = tmp_path / "local.yaml"
    local.write_text("retrieval:\n  k: 7\n", encoding="utf-8")
    before = local.read_bytes()
    at = start("pages/settings.py")
    at.number_input(key="s_candidates").set_value(5000)
    at.button(key="s_save_retrieval").click()
    at.run()
    assert "retrieval.candidates" in texts(at.error)
    assert local.read_bytes() == before


def test_settings_good_value_is_persisted(tmp_path):
    at = start("pages/settings.py")
    at.number_input(key="s_k").set_value(8)
    at.selectbox(key="s_mode").set_value("hybrid")
    at.button(key="s_save_retrieval").click()
    at.run()
    assert "Saved." in texts(at.success)
    saved = yaml.safe_load((tmp_path / "local.yaml").read_text(encoding="utf-8"))
    assert saved["retrieval"]["k"] == 8 and saved["retrieval"]["mode"] == "hybrid"
    assert load_config().retrieval.k == 8


def test_settings_api_key_is_saved_but_never_shown(tmp_path):
    at = start("pages/settings.py")
    at.radio(key="s_where").set_value("server")
    at.run()
    at.text_input(key="s_url").set_value("https://127.0.0.1:9")
    at.text_input(key="s_api_key").set_value("s3cret-key")
    at.button(key="s_save_store").click()
    at.run()
    assert not at.exception
    assert "s3cret-key" not in (tmp_path / "local.yaml").read_text()  # configs/ never holds a key
    assert load_config().store.api_key == "s3cret-key"  # it is in the secrets file (tmp_path/secrets.toml)
    assert (tmp_path / "secrets.toml").stat().st_mode & 0o077 == 0  # readable by its owner only
    assert at.text_input(key="s_api_key").value == ""
    assert "s3cret-key" not in str(at)


def test_settings_chunking_change_offers_reindex(tmp_path):
    indexed(tmp_path)
    remember_source(load_config(), "demo", tmp_path / "vault")
    at = start("pages/settings.py")
    at.number_input(key="s_max_chars").set_value(800)  # above min_chars (500)
    at.button(key="s_save_chunking").click()
    at.run()
    assert "Saved." in texts(at.success)
    at.button(key="s_reindex").click()
    at.run()
    assert not at.exception and not at.error, texts(at.error)
    said = texts(at.success)  # the small vault's passages are the same at 800 characters: said so
    assert "Done. Nothing changed since these notes were last read: 4 files, 4 passages." in said, said


def test_store_test_connection_lists_campaigns(tmp_path):
    indexed(tmp_path)
    at = start("pages/settings.py")
    at.button(key="s_test_store").click()
    at.run()
    assert "Campaigns found: demo" in texts(at.success)


def test_rerank_toggle_without_a_model_says_so_and_still_searches(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_RERANKER__BACKEND", "cross-encoder")  # a model that has to be downloaded
    monkeypatch.setenv("CHRONICLER_RERANKER__MODEL", str(tmp_path / "no-such-model"))
    indexed(tmp_path)
    at = start("pages/search.py")
    at.toggle(key="rerank").set_value(True)
    at.text_input(key="question").set_value("Grog greataxe duergar")
    at.run()
    assert not at.exception and not at.error
    warning = texts(at.warning)
    assert "Reranking is off" in warning and "reranker.model" in warning  # the fix is named
    table = at.dataframe[0].value
    assert len(table) and table["rerank"].isna().all()  # no pretend rerank scores


def test_expand_is_on_by_default_and_searches_the_best_passages_words_without_an_llm(tmp_path):
    indexed(tmp_path)
    at = start("pages/search.py")
    assert at.toggle(key="expand").value  # on out of the box: neutral on notes, kept (docs/experiments/README.md)
    assert "your question with the words its best passages share" in texts(at.sidebar.caption)
    assert "phrasings" not in [s.key for s in at.sidebar.slider]  # offline there is one wording: nothing to choose
    at.text_input(key="question").set_value("Grog greataxe duergar")
    at.run()
    assert not at.exception and not at.error and not at.warning
    assert "Also searched these wordings: **Grog greataxe duergar " in texts(at.caption)
    at.toggle(key="expand").set_value(False)
    at.run()
    assert "Also searched these wordings" not in texts(at.caption)  # the switch decides


def test_expand_with_an_llm_searches_its_phrasings_and_charts_reranking(tmp_path, monkeypatch, llm_server):
    for key, value in {
        "ANSWER__BACKEND": "openai",
        "ANSWER__BASE_URL": llm_server,
        "ANSWER__API_KEY": KEY,
        "ANSWER__MODEL": "known-model",
        "ANSWER__MAX_RETRIES": "0",
        "RERANKER__BACKEND": "llm",
    }.items():
        monkeypatch.setenv(f"CHRONICLER_{key}", value)
    monkeypatch.setattr(
        Handler,
        "reply",
        staticmethod(
            lambda body: (
                "tames a bear"
                if "search queries" in body["messages"][0]["content"]
                else "\n".join(f"P{i}: {10 - i}" for i in range(1, 9))
            )
        ),
    )
    indexed(tmp_path)
    at = start("pages/search.py")
    at.toggle(key="expand").set_value(True)
    at.run()
    at.slider(key="phrasings").set_value(1)
    at.toggle(key="rerank").set_value(True)
    at.radio(key="mode").set_value("keyword")
    at.text_input(key="question").set_value("Who has a pet?")
    at.run()
    assert not at.exception and not at.error and not at.warning
    assert "tames a bear" in texts(at.caption)
    table = at.dataframe[0].value
    assert "tames a bear" in set(table["found by"]) and table["rerank"].notna().any()
    movement = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert any("reranking moved" in (c["layout"].get("title", {}).get("text") or "") for c in movement)


def test_search_filters_mailed_notes_by_sender(tmp_path):
    vault = write_vault(tmp_path / "vault")
    recap_eml(vault / "mail" / "recap.eml")
    recap_eml(vault / "mail" / "other.eml", subject="Session 13 recap", sender="Bram <bram@example.com>")
    app_state.pipeline(load_config()).index(vault, "demo")
    app_state.changed()
    at = start("pages/search.py")
    at.radio(key="mode").set_value("keyword")
    at.text_input(key="question").set_value("jade frog Xandala")
    at.run()
    assert len(set(at.dataframe[0].value["source"]) & {"mail/recap.eml", "mail/other.eml"}) == 2
    at.multiselect(key="f_senders").set_value([MAIL_FROM]).run()
    assert not at.exception and set(at.dataframe[0].value["source"]) == {"mail/recap.eml"}


def test_hybrid_weight_slider_changes_the_fusion(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_RETRIEVAL__LINK_WEIGHT", "0")  # the fused score of the stages alone
    indexed(tmp_path)
    at = start("pages/search.py")
    at.text_input(key="question").set_value("Grog greataxe duergar")
    at.run()
    before = at.dataframe[0].value["fused"].max()
    at.slider(key="keyword_weight").set_value(0.0).run()
    assert not at.exception
    fused = at.dataframe[0].value["fused"]
    assert fused.max() == pytest.approx(1 / 11) and fused.max() < before  # dense ranks alone: 1 / (rrf_k + 1)


def test_rerank_toggle_works_out_of_the_box(tmp_path):
    """The default reranker ships with the product: the switch reorders with no setup and no warning."""
    indexed(tmp_path)
    at = start("pages/search.py")
    at.toggle(key="rerank").set_value(True)
    at.text_input(key="question").set_value("Grog greataxe duergar")
    at.run()
    assert not at.exception and not at.error and not at.warning
    assert at.dataframe[0].value["rerank"].notna().any()
    assert len(at.get("plotly_chart")) == 5  # the rank-movement chart appears


def test_an_upload_over_the_configured_bound_is_refused_and_saves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_LIMITS__UPLOAD_FILES", "2")
    at = start("pages/ingest.py")
    at.file_uploader[0].set_value([(Path(n).name, t.encode(), "text/markdown") for n, t in VAULT.items()])
    at.run()
    at.button(key="upload_go").click().run()
    assert "more than 2 notes in one upload (limits.upload_files)" in texts(at.error)
    assert not (tmp_path / "data" / "uploads" / "demo").exists()


def test_an_upload_of_only_broken_files_is_not_reported_as_a_success(tmp_path):
    at = start("pages/ingest.py")
    at.file_uploader[0].set_value([("a.md", b"\x00\x01binary", "text/markdown"), ("b.md", b"   \n", "text/markdown")])
    at.run()
    at.button(key="upload_go").click().run()
    assert not at.exception and not at.success
    assert "Nothing was added: no file could be read. **2 files were not read:**" in texts(at.warning)
    table = next(d.value for d in at.dataframe if "status" in d.value.columns)
    assert set(table["status"]) == {"skipped"} and set(table["note"]) == {"binary file", "empty file"}


def test_settings_refuse_a_shortest_passage_longer_than_the_longest(tmp_path):
    at = start("pages/settings.py")
    at.number_input(key="s_min_chars").set_value(5000)
    at.button(key="s_save_chunking").click().run()
    assert "chunking.min_chars (5000) must not be above chunking.max_chars (1200)" in texts(at.error)
    assert not (tmp_path / "local.yaml").exists() or "5000" not in (tmp_path / "local.yaml").read_text()
