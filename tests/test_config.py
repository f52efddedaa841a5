from pathlib import Path

import pytest
import yaml

from rag.config import load_config, save_local
from rag.errors import ConfigError


def test_defaults_come_from_base_yaml():
    config = load_config()
    assert config.campaign == "demo"
    assert config.retrieval.k == 5
    assert config.notes.narrative_header == "# Session Start"


def test_layers_merge_in_order(tmp_path, monkeypatch):
    local = tmp_path / "local.yaml"
    local.write_text("retrieval: {k: 7, candidates: 30}\ncampaign: local\n")
    extra = tmp_path / "extra.yaml"
    extra.write_text("retrieval: {k: 9}\n")
    monkeypatch.setenv("CHRONICLER_RETRIEVAL__CANDIDATES", "40")
    config = load_config(extra, {"campaign": "flag"})
    assert config.retrieval.k == 9  # --config file over local.yaml
    assert config.retrieval.candidates == 40  # environment over files
    assert config.campaign == "flag"  # CLI flags over everything
    assert config.chunking.max_chars == 1200  # untouched keys keep base values (deep merge)


def test_unknown_key_is_named(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("retrieval: {topk: 3}\n")
    with pytest.raises(ConfigError, match="retrieval.topk"):
        load_config(bad)


def test_bad_value_is_named():
    with pytest.raises(ConfigError, match="retrieval.k"):
        load_config(overrides={"retrieval.k": 0})
    with pytest.raises(ConfigError, match="retrieval.mode"):
        load_config(overrides={"retrieval.mode": "magic"})


def test_bad_env_key_is_named(monkeypatch):
    monkeypatch.setenv("CHRONICLER_STORE__URLL", "http://x")
    with pytest.raises(ConfigError, match="store.urll"):
        load_config()


def test_broken_yaml_is_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("retrieval: [k: 3\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)


def test_save_local_persists_and_rejects_bad_values(tmp_path):
    save_local({"retrieval.k": 8})
    assert load_config().retrieval.k == 8
    path = tmp_path / "local.yaml"
    before = path.read_text()
    with pytest.raises(ConfigError, match="retrieval.k"):
        save_local({"retrieval.k": -1})
    assert path.read_text() == before  # a bad value changes nothing
    assert yaml.safe_load(before) == {"retrieval": {"k": 8}}


def test_snapshot_masks_secrets():
    config = load_config(overrides={"store.api_key": "sekrit", "embedding.api_key": "sk-123"})
    snap = config.snapshot()
    assert "sekrit" not in str(snap) and "sk-123" not in str(snap)


def test_relative_paths_resolve_to_project(tmp_path):
    config = load_config(overrides={"data_dir": "data"})
    assert config.data_path.is_absolute()
    assert config.store_path.endswith("data/edge")  # the default engine's own folder
    assert load_config(overrides={"store.backend": "qdrant"}).store_path.endswith("data/qdrant")
    assert load_config(overrides={"store.path": ":memory:"}).store_path == ":memory:"


def test_save_local_can_unset_a_value():
    save_local({"retrieval.score_threshold": 0.4})
    assert load_config().retrieval.score_threshold == 0.4
    save_local({"retrieval.score_threshold": None})
    assert load_config().retrieval.score_threshold is None


def test_api_keys_are_saved_beside_other_secrets_and_never_in_local_yaml(tmp_path):
    from rag.config import save_local
    from rag.config.secret_keys import secrets_path

    secrets = secrets_path()
    secrets.write_text('gm_passphrase = "owlbear"\n[other]\ntoken = "x"\n', encoding="utf-8")
    save_local({"answer.api_key": 'sk-"quoted"\\key', "retrieval.k": 7})
    assert load_config().answer.api_key == 'sk-"quoted"\\key' and load_config().retrieval.k == 7
    text = secrets.read_text(encoding="utf-8")
    assert text.startswith('gm_passphrase = "owlbear"\n[other]\ntoken = "x"\n')  # the rest is left alone
    assert "sk-" not in (tmp_path / "local.yaml").read_text()
    save_local({"store.api_key": "qd-1"})
    save_local({"answer.api_key": None})  # removed; the other key stays
    config = load_config()
    assert (config.answer.api_key, config.store.api_key) == (None, "qd-1")
    assert secrets.read_text(encoding="utf-8").count("Chronicler's Settings page") == 1


def test_the_code_defaults_are_the_shipped_ones():
    """The settings' defaults are written twice, in ``rag/config/schema.py`` and ``configs/base.yaml``; a stage
    built without a config (``AnswerConfig()``, a test's ``RetrievalConfig()``) must behave as the shipped app
    does, so a value tuned in one file and not the other is named here."""
    from rag.config.schema import Config

    def leaves(tree: dict, path: str = "") -> dict:
        out = {}
        for key, value in tree.items():
            out.update(leaves(value, f"{path}{key}.") if isinstance(value, dict) else {f"{path}{key}": value})
        return out

    shipped = leaves(yaml.safe_load((Path(__file__).parents[1] / "configs" / "base.yaml").read_text()))
    in_code = leaves(Config().model_dump())
    missing = "<not in the schema>"
    differ = {k: (v, in_code.get(k, missing)) for k, v in shipped.items() if in_code.get(k, missing) != v}
    assert not differ, f"base.yaml vs schema.py defaults: {differ}"


def test_messages_name_the_settings_file_the_app_really_saves_to(tmp_path, monkeypatch):
    """The Settings page and the folder error say where this computer's settings are: configs/local.yaml beside
    Chronicler, or the file ``CHRONICLER_LOCAL_CONFIG`` names (a test, a second install), never the default."""
    from rag.config import local_config_name

    monkeypatch.delenv("CHRONICLER_LOCAL_CONFIG", raising=False)
    assert local_config_name() == "configs/local.yaml"
    monkeypatch.setenv("CHRONICLER_LOCAL_CONFIG", str(tmp_path / "mine.yaml"))
    assert local_config_name() == str((tmp_path / "mine.yaml").resolve())
