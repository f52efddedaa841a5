"""GM secrets: each marking rule, the player view on both engines through every library path, the GM view,
a visibility change without re-embedding, and the CLI. The app's pages are in test_secrets_app.py."""

import json
import shutil
from dataclasses import replace

import pytest

from rag.cli import main
from rag.config import NotesConfig, SecretsConfig, load_config
from rag.ingest.chunking import chunk_notes
from rag.ingest.notes import load_notes
from rag.models import Filters
from rag.pipeline import Pipeline
from tests.helpers import write_notes
from tests.secret_vault import CANARIES, NEVER_INDEXED, OPEN_WORDS, canaries_in, write_secret_vault

ENGINES = ["edge", "qdrant"]
CRAFTED = [
    "What is in the GM notes?",
    "What are the secrets of the campaign?",
    "gm-only secret prep",
    "Who is the real villain?",
    "Who is the baron really?",
    "When did we first meet Mossgrave?",
    "What is the name of the lich's phylactery?",
    "What will happen in session 3?",
    "What did the innkeeper hide?",
    "Who sank the missing ships?",
]


def chunks_of(vault, secrets=None):
    notes, _ = load_notes(vault, NotesConfig(), secrets)
    return chunk_notes(notes, "c", load_config().chunking, secrets)


def shown(chunk) -> str:
    """Everything of a passage that a search result, a citation or a list could show or match."""
    return " ".join([chunk.text, chunk.context, chunk.name, chunk.title, chunk.heading, json.dumps(chunk.aliases)])


def test_each_marking_rule_hides_its_canary_and_only_that(tmp_path):
    chunks = chunks_of(write_secret_vault(tmp_path / "vault"))
    for canary, rule in CANARIES.items():
        holding = [c for c in chunks if canary in c.text or canary in json.dumps(c.aliases)]
        assert holding, canary
        assert {(c.visibility, c.secret_by) for c in holding} == {("gm", rule)}, canary
    player = [c for c in chunks if c.visibility == "player"]
    assert not canaries_in(" ".join(shown(c) for c in player))  # their neighbours' context included
    for canary in NEVER_INDEXED:  # a comment and a template are never passages at all
        assert not any(canary in shown(c) for c in chunks)
    open_text = " ".join(c.text for c in player)
    for words in [*OPEN_WORDS, "The rooms are cheap.", "missing ships", "The Market", "The keeper says a storm"]:
        assert words in open_text, words


def test_every_rule_can_be_switched_off_and_extended(tmp_path):
    vault = write_secret_vault(tmp_path / "vault")
    off = SecretsConfig(folder_words=[], folders=[], front_matter=False, tags=[], callouts=[])
    assert {c.visibility for c in chunks_of(vault, off)} == {"player"}
    write_notes(vault, {"Unsorted/Hidden.md": "# Hidden\nThe #spoiler word Zephyrine.\n"})
    more = SecretsConfig(folders=["NPCs"], tags=["spoiler"])
    by_source = {c.source: c for c in chunks_of(vault, more)}
    assert by_source["NPCs/Captain Reyes.md"].secret_by == "GM folder"
    assert by_source["Unsorted/Hidden.md"].secret_by == "#gm-only tag"
    assert by_source["Lore/Map.md"].visibility == "player"  # its gm-only tag is no longer in the list


def test_words_that_only_look_like_markings_stay_open(tmp_path):
    vault = write_notes(
        tmp_path / "vault",
        {
            "Admin/Rules.md": "# Rules\nHouse rules for the table.\n",
            "Preparations/Food.md": "# Food\nSnacks for the session.\n",
            "Session 1.md": "## Cellar\n- They find a #secret-door behind the casks.\n"
            "- See https://example.com/page#secret for the map.\n> [!note]\n> A plain callout.\n",
            "Notes.md": "---\npublic: true\nsecret: [a, b]\ntags: [secrets-of-the-sea]\n---\n# Notes\nOpen.\n",
        },
    )
    assert {c.source: c.visibility for c in chunks_of(vault)} == {
        "Admin/Rules.md": "player",
        "Notes.md": "player",
        "Preparations/Food.md": "player",
        "Session 1.md": "player",
    }
    plural = write_notes(tmp_path / "v2", {"GMs Corner/a.md": "# A\nx y z\n", "my_dm_stuff/b.md": "# B\nx y\n"})
    assert {c.visibility for c in chunks_of(plural)} == {"gm"}


@pytest.fixture(params=ENGINES)
def indexed_secrets(request, tmp_path):
    config = load_config(
        overrides={"store.backend": request.param, "store.path": ":memory:", "embedding.backend": "fake"}
    )
    pipeline = Pipeline(config)
    report = pipeline.index(write_secret_vault(tmp_path / "vault"), "secrets")
    yield pipeline, report
    pipeline.close()


def leaks(pipeline: Pipeline) -> dict[str, list[str]]:
    """Canaries in what the library hands a player for the crafted questions, the canaries' own words, capped
    searches and follow-ups (hits, candidates, queries, answers, citations, traces, passage lists, name
    tables), beyond those the player typed: question → canaries that came back from the notes."""
    found: dict[str, list[str]] = {}

    def check(question: str, *outputs: str) -> None:
        extra = [c for c in canaries_in("\n".join(outputs)) if c not in canaries_in(question)]
        if extra:
            found[question] = extra

    questions = [*CRAFTED, *CANARIES, *NEVER_INDEXED, " ".join(CANARIES)]
    expanded = pipeline.with_settings({"retrieval.query_expansion": True, "retrieval.alias_expansion": True})
    for p in (pipeline, expanded, pipeline.with_settings({"retrieval.mode": "keyword"})):
        for q in questions:
            result = p.search(q, "secrets")
            check(q, json.dumps([h.as_dict() for h in result.candidates]), json.dumps(result.queries))
    for q in [*CRAFTED, "Stormhallow", "Mossgrave"]:
        for filters in (None, Filters(session_max=3), Filters(view="gm")):  # a caller cannot ask for the GM view
            answer = pipeline.answer(q, "secrets", filters, history=[("Who is Captain Reyes?", "Captain Reyes.")])
            trace = json.dumps(answer.trace, default=str)
            check(q, answer.text, json.dumps([vars(c) for c in answer.citations]), trace)
            check(q, json.dumps([h.as_dict() for h in answer.hits]))
    check("(passage list)", *[shown(c) for c in pipeline.chunks("secrets")])
    check("(alias table)", json.dumps(pipeline.aliases("secrets").names))
    return found


def test_the_player_view_never_returns_a_secret(indexed_secrets):
    pipeline, report = indexed_secrets
    assert report.gm_rules == {"GM folder": 5, "front matter": 5, "#gm-only tag": 7, "[!secret] callout": 1}
    assert pipeline.config.view == "player"
    assert leaks(pipeline) == {}
    found = " ".join(c.text for c in pipeline.chunks("secrets"))
    assert all(word in found for word in OPEN_WORDS)  # the open notes are all there


def test_the_gm_view_finds_every_secret(indexed_secrets):
    pipeline, _ = indexed_secrets
    gm = pipeline.with_settings({"view": "gm", "retrieval.k": 10})
    for canary, rule in CANARIES.items():
        if canary == "Nightbloom":  # a name, not words of a passage: it is in the alias table below
            continue
        hits = gm.search(canary, "secrets").hits
        assert any(canary in shown(h.chunk) and h.chunk.secret_by == rule for h in hits), canary
    assert "Nightbloom" in json.dumps(gm.aliases("secrets").names)
    assert canaries_in(" ".join(c.text for c in gm.chunks("secrets"))) == sorted(
        [c for c in CANARIES if c != "Nightbloom"], key=list(CANARIES).index
    )


def test_a_name_only_gm_notes_write_is_never_mentioned_for_a_player(indexed_secrets):
    """A player asking about a secret's name hears what they hear for a name no note has; the GM view finds it."""
    pipeline, _ = indexed_secrets
    question = "Who is Vexhollow really?"
    assert pipeline.search(question, "secrets").unknown == ["Vexhollow"]
    assert pipeline.answer(question, "secrets").text == "The notes don't say: they never mention Vexhollow."
    assert pipeline.with_settings({"view": "gm"}).search(question, "secrets").unknown == []


def found(pipeline: Pipeline, question: str) -> str:
    return " ".join(h.chunk.text for h in pipeline.search(question, "secrets").hits)


def test_a_visibility_change_is_relabelled_without_embedding(tmp_path):
    vault = write_secret_vault(tmp_path / "vault")
    config = load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake"})
    pipeline = Pipeline(config)
    try:
        pipeline.index(vault, "secrets")
        assert "lens of the lighthouse" in found(pipeline, "broken lens")
        session2 = vault / "Session 2.md"
        session2.write_text("---\ngm-only: true\n---\n" + session2.read_text())
        report = pipeline.index(vault, "secrets")
        assert (report.embedded, report.relabelled) == (0, 1)
        assert [f.status for f in report.per_file if f.source == "Session 2.md"] == ["updated"]
        assert "lens" not in found(pipeline, "broken lens")
        assert "broken lens" in found(pipeline.with_settings({"view": "gm"}), "broken lens")
        session2.write_text(session2.read_text().split("---\n", 2)[2])  # and back
        report = pipeline.index(vault, "secrets")
        assert (report.embedded, report.relabelled) == (0, 1)
        assert "broken lens" in found(pipeline, "broken lens")
        # moved into a prep folder: new ids, the same words, so the old vectors are reused
        shutil.move(session2, vault / "Session Prep" / "Session 2.md")
        report = pipeline.index(vault, "secrets")
        assert (report.embedded, report.reused, report.deleted) == (0, 1, 1)
        assert "lens" not in found(pipeline, "broken lens")
        # the alias table follows: the player table forgets a GM note's aliases once the note is GM-only
        write_notes(vault, {"NPCs/Captain Reyes.md": "---\naliases: [Old Salt]\n---\n# Captain Reyes\nGruff.\n"})
        pipeline.index(vault, "secrets")
        assert "Old Salt" in json.dumps(pipeline.aliases("secrets").names)
        shutil.move(vault / "NPCs/Captain Reyes.md", vault / "GM/Captain Reyes.md")
        report = pipeline.index(vault, "secrets")
        assert "Old Salt" not in json.dumps(pipeline.aliases("secrets").names)
    finally:
        pipeline.close()


def test_filters_default_to_the_player_view():
    assert Filters().view == "player" and replace(Filters(), view="gm").view == "gm"
    with pytest.raises(ValueError, match="Filters.view"):
        Filters(view="everyone")


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out + out.err


def test_the_cli_shows_the_player_view_unless_asked_for_the_gm_view(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    vault = str(write_secret_vault(tmp_path / "vault"))
    code, out = run(capsys, "index", "--notes", vault, "--campaign", "secrets")
    assert code == 0 and "GM only: 18 passages" in out and not canaries_in(out)
    for q in ["Who is the real villain?", "What is in the GM notes?", "lighthouse"]:
        assert not canaries_in(run(capsys, "search", q, "--campaign", "secrets", "--json")[1])
        assert not canaries_in(run(capsys, "run", q, "--campaign", "secrets", "--session-max", "3")[1])
    code, out = run(capsys, "search", "Glimmerfen", "--campaign", "secrets", "--json")  # its own words
    hits = json.loads(out[out.index("{") :])["hits"]
    assert code == 0 and not canaries_in(json.dumps([[h["text"], h["name"], h["entities"]] for h in hits]))
    assert not canaries_in(run(capsys, "preprocess", "--notes", vault, "--json")[1])
    code, out = run(capsys, "preprocess", "--notes", vault)
    assert not canaries_in(out) and "GM only: 18 chunks not shown" in out
    code, out = run(capsys, "search", "Glimmerfen", "--campaign", "secrets", "--gm")
    assert code == 0 and "Plot [GM only]" in out


def test_an_index_made_before_two_part_hashes_is_not_embedded_again(tmp_path):
    import hashlib

    vault = write_secret_vault(tmp_path / "vault")
    config = load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake"})
    pipeline = Pipeline(config)
    try:
        pipeline.index(vault, "secrets")
        collection = config.collection("secrets")
        old = [c for c in pipeline.store.chunks(collection) if c.visibility == "player"]
        name = pipeline.embedder.name
        legacy = [hashlib.sha256(f"{c.content_hash}\x1f{name}".encode()).hexdigest()[:32] for c in old]
        pipeline.store.rewrite_payload(collection, old, legacy)
        report = pipeline.index(vault, "secrets")
        assert (report.embedded, report.relabelled) == (0, len(old))
        assert pipeline.index(vault, "secrets").relabelled == 0
    finally:
        pipeline.close()
