"""GM marks that fail closed: a synced or zipped folder's own name counts, front matter that cannot be read but
names a GM key hides its note (and says so), and folder words are found inside joined names ("SessionPrep",
"DM_Notes", "gmnotes"). Each on the command line (the player view, and ``--gm`` still finding it) and through
an upload on the Ingest page. The rules for every other mark are in test_secrets.py."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
import streamlit as st

from app.tables import report_frame
from rag.cli import main
from rag.config import NotesConfig, SecretsConfig, load_config
from rag.ingest.notes import load_notes
from rag.pipeline import Pipeline
from tests.helpers import start, texts, write_notes

# canary → the note holding it, in a vault laid out the way each mark was found to fail open
PREP = {"Session 4.md": "# Session 4 prep\n- The party will meet Quorvath at the ford.\n", "Session 0.md": ""}
BROKEN = {
    # an Obsidian embed as a value is not YAML: the block cannot be read
    "Handouts/Letter.md": "---\npublic: false\ncover: ![[seal.png]]\n---\n# Letter\nSigned by Zelmarine.\n",
    "Handouts/Orders.md": "---\ngm-only: true\nfrom: the baron\n# the block is never closed\n\n# Orders\nBurn Peltwick.\n",
    "Lore/Idol.md": '---\ntags: [lore, secret\ntitle: "The idol\n---\n# Idol\nThe idol of Yssandre weeps.\n',
    "Lore/Open.md": "---\nauthor: ![[me.png]]\n---\n# Open\nThe Drowned Bell rings at dawn.\n",
}
JOINED = {
    "SessionPrep/Arc.md": "# Arc\nThe arc ends at Bramwyck.\n",
    "DM_Notes/Twist.md": "# Twist\nThe twist is Corvinne.\n",
    "GM-Notes/Plan.md": "# Plan\nThe plan needs Ostrava.\n",
    "Spoilers/End.md": "# End\nThe end is Veylantis.\n",
    "DMNotes/Foe.md": "# Foe\nThe foe is Mirrowen.\n",
    "gmnotes/Deal.md": "# Deal\nThe deal is with Tarquell.\n",
    "Preparations/Food.md": "# Food\nSnacks: Halfling pies.\n",
    "Admin/Rules.md": "# Rules\nHouse rules: Flanking counts.\n",
    "Secretary/Desk.md": "# Desk\nThe desk of Ambrose.\n",
    "Session 1.md": "# Session Start\n## Road\n- The party walks to the Greyford mill.\n",
}
HIDDEN = ["Quorvath", "Zelmarine", "Peltwick", "Yssandre", "Bramwyck", "Corvinne", "Ostrava", "Veylantis"]
HIDDEN += ["Mirrowen", "Tarquell"]
OPEN = ["Drowned Bell", "Halfling pies", "Flanking", "Ambrose", "Greyford"]


def hidden_in(text: str) -> list[str]:
    return [c for c in HIDDEN if c in text]


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


# -- the rules, one by one ----------------------------------------------------------------------------------


def test_a_folder_read_on_its_own_keeps_its_gm_name(tmp_path):
    prep = write_notes(tmp_path / "Session Prep", PREP)
    notes, skipped = load_notes(prep, NotesConfig())
    assert [(n.source, n.visibility, n.secret_by) for n in notes] == [("Session 4.md", "gm", "GM folder")]
    assert "the folder it was read from ('Session Prep') is named like a GM folder" in notes[0].warnings[-1]
    assert [(s.source, s.visibility) for s in skipped] == [("Session 0.md", "gm")]  # empty, and still a GM file
    plain = write_notes(tmp_path / "Campaign", PREP)
    assert {n.visibility for n in load_notes(plain, NotesConfig())[0]} == {"player"}
    assert {n.visibility for n in load_notes(prep, NotesConfig(), outer=())[0]} == {"player"}  # the app's uploads


def test_the_report_says_what_it_decided_for_a_gm_file_it_could_not_read(tmp_path):
    config = load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake"})
    pipeline = Pipeline(config)
    try:
        prep = write_notes(tmp_path / "Session Prep", PREP)
        (prep / "To do.md").write_text("- [ ]\n- [ ]\n")  # read, GM only by its folder, nothing to search
        report = pipeline.index(prep, "prep")
    finally:
        pipeline.close()
    gm = report_frame(report, "gm").set_index("file")
    assert gm.loc["Session 0.md", "status"] == "skipped, GM only" and gm.loc["Session 0.md", "note"] == "empty file"
    assert gm.loc["Session 4.md", "status"] == "indexed, GM only"
    assert gm.loc["To do.md", "status"] == "empty, GM only"  # nothing of it was indexed
    assert "named like a GM folder" in gm.loc["Session 4.md", "note"]
    assert report_frame(report, "player").empty  # neither file is named in the player view


def test_front_matter_that_cannot_be_read_but_names_a_gm_key_hides_its_note(tmp_path):
    vault = write_notes(tmp_path / "vault", BROKEN)
    notes = {n.source: n for n in load_notes(vault, NotesConfig())[0]}
    assert {s: (n.visibility, n.secret_by) for s, n in notes.items()} == {
        "Handouts/Letter.md": ("gm", "front matter"),
        "Handouts/Orders.md": ("gm", "front matter"),
        "Lore/Idol.md": ("gm", "#gm-only tag"),  # its block read key by key: "tags: [lore, secret" names the tag
        "Lore/Open.md": ("player", ""),
    }
    said = {s: n.warnings[-1] for s, n in notes.items()}  # what the Ingest report's note column shows
    assert said["Handouts/Letter.md"].startswith("front matter is not valid YAML")
    assert said["Handouts/Letter.md"].endswith("it names 'public', so the whole note is GM only")
    assert said["Handouts/Orders.md"].endswith("it names 'gm-only', so the whole note is GM only")
    assert said["Lore/Idol.md"].endswith("it names the tag 'secret', so the whole note is GM only")
    assert said["Lore/Open.md"].endswith("it names no GM mark, so players can read the note")
    off = SecretsConfig(front_matter=False, tags=[])  # the rules switched off: nothing read there hides a note
    assert {n.visibility for n in load_notes(vault, NotesConfig(), off)[0]} == {"player"}


def test_a_gm_key_with_a_value_it_does_not_know_hides_its_note(tmp_path):
    vault = write_notes(
        tmp_path / "vault",
        {
            "Maybe.md": "---\npublic: maybe later\n---\n# Maybe\nThe vault door code is 4417.\n",
            "Party.md": "---\nvisibility: party only after session 9\n---\n# Party\nThe heir is Ondrel.\n",
            "Open.md": "---\npublic: yes\nvisibility: players\nsecret: no\n---\n# Open\nThe inn is warm.\n",
            "Listed.md": "---\nsecret: [door, cellar]\n---\n# Listed\nThe cellar is damp.\n",
        },
    )
    notes = {n.source: n for n in load_notes(vault, NotesConfig())[0]}
    assert {s: n.visibility for s, n in notes.items()} == {
        "Listed.md": "player",  # a list says nothing (test_secrets.py: look-alikes stay open)
        "Maybe.md": "gm",
        "Open.md": "player",
        "Party.md": "gm",
    }
    assert (
        "its front matter says 'public: maybe later', which is not a value Chronicler knows"
        in (notes["Maybe.md"].warnings[-1])
    )


GM_FOLDERS = ["SessionPrep", "DM_Notes", "GM-Notes", "Spoilers", "DMNotes", "gmnotes", "sessionprep", "TopSecret"]
OPEN_FOLDERS = ["Preparations", "Admin", "Secretary", "Paradigms", "Dmitri", "Segments", "Handouts"]


def test_folder_words_are_found_inside_joined_names(tmp_path):
    names = [*GM_FOLDERS, "GM's Notes", *OPEN_FOLDERS]
    vault = write_notes(tmp_path / "vault", {f"{f}/Note.md": "# Note\nSome words here.\n" for f in names})
    seen = {n.source.split("/")[0]: n.visibility for n in load_notes(vault, NotesConfig())[0]}
    assert seen == {f: "gm" for f in [*GM_FOLDERS, "GM's Notes"]} | {f: "player" for f in OPEN_FOLDERS}


# -- on the command line ------------------------------------------------------------------------------------


def test_the_cli_shows_none_of_them_to_a_player_and_all_of_them_with_gm(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    prep = str(write_notes(tmp_path / "Session Prep", PREP))
    vault = str(write_notes(tmp_path / "vault", {**BROKEN, **JOINED}))
    code, out = run(capsys, "preprocess", "--notes", prep)
    assert code == 0 and "0 notes" in out and "Session 0.md" not in out and not hidden_in(out)
    assert "1 GM-only files not listed" in out
    code, out = run(capsys, "preprocess", "--notes", prep, "--gm")
    assert "1 notes" in out and "skipped: Session 0.md: empty file" in out
    assert "Quorvath" in run(capsys, "preprocess", "--notes", prep, "--gm", "--json")[1]
    code, out = run(capsys, "preprocess", "--notes", vault, "--json")
    assert code == 0 and not hidden_in(out) and all(words in out for words in OPEN)
    code, out = run(capsys, "preprocess", "--notes", vault, "--gm", "--json")
    assert sorted(hidden_in(out)) == sorted(c for c in HIDDEN if c != "Quorvath")
    for folder, campaign in ((prep, "prep"), (vault, "marks")):
        assert run(capsys, "index", "--notes", folder, "--campaign", campaign)[0] == 0
    for canary in HIDDEN:
        campaign = "prep" if canary == "Quorvath" else "marks"
        code, out = run(capsys, "search", canary, "--campaign", campaign, "--json")
        hits = json.loads(out[out.index("{") :])["hits"]
        assert code == 0 and not hidden_in(json.dumps([[h["text"], h["name"]] for h in hits])), canary
        code, out = run(capsys, "search", canary, "--campaign", campaign, "--gm", "--json")
        assert canary in json.dumps(json.loads(out[out.index("{") :])["hits"]), canary


# -- through an upload on the Ingest page -------------------------------------------------------------------


def zipped(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return buf.getvalue()


def upload(at, *files: tuple[str, bytes]):
    at.switch_page("pages/ingest.py").run()
    at.file_uploader[0].set_value([(name, data, "application/octet-stream") for name, data in files])
    at.run()
    at.button(key="upload_go").click().run()
    assert not at.exception and not at.error, texts(at.error)
    return at


@pytest.mark.usefixtures("app_env")
def test_an_upload_keeps_each_mark_and_the_gm_view_finds_them(tmp_path, capsys):
    prep = {f"Session Prep/{name}": text for name, text in PREP.items()}  # the zip's only top-level folder
    at = upload(
        start(),
        ("prep.zip", zipped(prep)),
        ("marks.zip", zipped({f"Vault/{name}": text for name, text in JOINED.items()})),
        *[(name.split("/")[-1], text.encode()) for name, text in BROKEN.items()],
    )
    table = next(d.value for d in at.dataframe if "status" in d.value.columns)
    shown = table.to_csv() + texts(at.info) + texts(at.success)
    assert not hidden_in(shown) and "Session 0.md" not in shown and "Session Prep" not in shown
    assert "Open.md" in set(table["file"]) and "Preparations/Food.md" in set(table["file"])
    assert "passages are GM only" in texts(at.info)
    st.cache_resource.clear()  # the app lets go of the store, so the command line can open it
    data = str(tmp_path / "data")
    for canary in HIDDEN:
        code, out = run(capsys, "search", canary, "--campaign", "demo", "--data", data, "--json")
        hits = json.loads(out[out.index("{") :])["hits"]
        assert code == 0 and not hidden_in(json.dumps([[h["text"], h["name"]] for h in hits])), canary
        code, out = run(capsys, "search", canary, "--campaign", "demo", "--data", data, "--gm", "--json")
        assert canary in json.dumps(json.loads(out[out.index("{") :])["hits"]), canary


def test_a_gm_callout_with_its_look_after_the_bar_is_still_gm_only(tmp_path):
    """Obsidian's callout metadata ("[!secret | wide]") changes how the box looks; the box is still the GM's. The
    passages leave the look out of any callout, so the GM rule reads the same line the same way."""
    from rag.ingest.indexing import prepare_chunks

    vault = write_notes(
        tmp_path / "v",
        {"Session 1.md": "## Road\nWe reach the keep at dusk.\n\n> [!secret | wide]\n> The duke is a vampire.\n"},
    )
    chunks, _, _ = prepare_chunks(load_config(), vault, "c")
    open_text = " ".join(c.text for c in chunks if c.visibility == "player")
    assert "keep at dusk" in open_text and "vampire" not in open_text
    assert any("vampire" in c.text and c.visibility == "gm" for c in chunks)
