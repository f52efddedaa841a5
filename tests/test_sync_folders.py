"""Which folders on the server the app may read as a campaign's notes: only inside ``notes.sync_roots`` (and
``notes_dir``), never Chronicler's data folder, and never a campaign's uploads, where a GM's prep folder sits
below the name that marks it. Through ``Pipeline.sync`` and through the Ingest page's "Folder on the server"."""

from __future__ import annotations

import pytest

from rag.config import load_config
from rag.errors import FolderNotAllowedError, NotesError
from rag.ingest.folders import allowed_folder
from tests.helpers import VAULT, start, texts, write_notes
from tests.secret_vault import write_secret_vault


def config_for(tmp_path, *roots: str):
    return load_config(
        overrides={
            "data_dir": str(tmp_path / "data"),
            "notes_dir": str(tmp_path / "data" / "demo" / "notes"),
            "notes.sync_roots": [str(r) for r in roots],
            "store.path": ":memory:",
            "embedding.backend": "fake",
        }
    )


def refused(config, folder) -> str:
    with pytest.raises(FolderNotAllowedError) as err:
        allowed_folder(config, folder)
    return err.value.one_line()


def test_only_folders_inside_the_allowed_ones_are_read(tmp_path):
    vaults = tmp_path / "vaults"
    mine = write_notes(vaults / "Campaign", VAULT)
    elsewhere = write_notes(tmp_path / "elsewhere", VAULT)
    demo = write_notes(tmp_path / "data" / "demo" / "notes", VAULT)
    (tmp_path / "data" / "edge").mkdir()
    config = config_for(tmp_path, vaults)
    assert allowed_folder(config, mine) == mine.resolve()
    assert allowed_folder(config, demo) == demo.resolve()  # the configured notes_dir, even inside data/
    said = refused(config, elsewhere)
    assert f"{elsewhere} is outside the folders notes may be read from" in said and "notes.sync_roots" in said
    assert "holds Chronicler's own data folder" in refused(config_for(tmp_path, tmp_path), tmp_path)
    assert "holds Chronicler's own data folder" in refused(config_for(tmp_path, tmp_path), tmp_path / "data")
    assert "outside the folders" in refused(config_for(tmp_path, tmp_path), tmp_path / "data" / "edge")
    with pytest.raises(NotesError, match="There is no folder at"):
        allowed_folder(config, vaults / "missing")


def test_a_campaigns_uploads_are_never_read_as_a_folder_even_through_a_link(tmp_path):
    config = config_for(tmp_path, tmp_path)
    prep = write_notes(tmp_path / "data" / "uploads" / "Tomb" / "Session Prep", {"Session 3.md": "# Prep\n- x\n"})
    assert "holds notes uploaded to a campaign" in refused(config, prep)
    assert "holds notes uploaded to a campaign" in refused(config, prep.parent)
    link = tmp_path / "vaults" / "innocent"
    link.parent.mkdir()
    link.symlink_to(prep, target_is_directory=True)
    assert "holds notes uploaded to a campaign" in refused(config, link)


@pytest.mark.usefixtures("app_env")
def test_the_ingest_page_never_offers_nor_reads_a_campaigns_uploads(tmp_path):
    at = start("pages/ingest.py")
    at.file_uploader[0].set_value([("vault.zip", _zip_of_the_secret_vault(tmp_path), "application/zip")])
    at.run()
    at.button(key="upload_go").click().run()
    assert not at.error, texts(at.error)
    assert "What happened" in texts(at.subheader)
    field = next(t for t in at.text_input if t.key and t.key.startswith("sync_folder_"))
    assert field.value == ""  # the campaign's uploads folder is not offered as a folder to sync
    prep = tmp_path / "data" / "uploads" / "demo" / "Session Prep"
    assert prep.is_dir()
    at.text_input(key=field.key).set_value(str(prep)).run()
    at.button(key="sync_go").click().run()
    assert "holds notes uploaded to a campaign" in texts(at.error)
    assert "What happened" not in texts(at.subheader)  # the upload's report is not shown as if this read did it
    at.text_input(key=field.key).set_value("/etc").run()
    at.button(key="sync_go").click().run()
    assert "outside the folders notes may be read from" in texts(at.error) and "notes.sync_roots" in texts(at.error)


def _zip_of_the_secret_vault(tmp_path) -> bytes:
    import io
    import zipfile

    vault = write_secret_vault(tmp_path / "vault")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path in vault.rglob("*.md"):
            z.write(path, "Vault/" + path.relative_to(vault).as_posix())
    return buf.getvalue()
