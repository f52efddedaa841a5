"""Incremental sync: add / edit / delete a file → exactly the expected chunk changes."""

from pathlib import Path

import numpy as np
import pytest

from rag.config import load_config
from rag.ingest.indexing import sync_campaign
from rag.stores import get_store
from tests.fakes import FakeEmbedder

S1 = """# Session Start
## Arrival
- The party reaches [[Kraghammer]] and meets [[Nostoc Greyspine|Lord Nostoc]] in his office, where he offers them a reward for clearing the mines.
- [[Foreman Herris]] gives them a map of the mines before they leave the quarry, and warns them about the stitched goblins.
## Descent
- They follow the drag marks down into the dark for four hours until the tunnel widens into a cavern with a river.
"""
S2 = """# Session Start
- A wyvern attacks the caravan on the road to Westruun, and Grog wrestles it to the ground while Vex shoots it twice.
"""


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


@pytest.fixture
def env(tmp_path):
    notes = tmp_path / "notes"
    write(notes, "Session 1.md", S1)
    write(notes, "Session 2.md", S2)
    write(
        notes,
        "NPCs/Osiris.md",
        "# Osiris\nA sphinx who guards the library of [[Vasselheim]] and speaks in riddles about the old gods and the Calamity.\n",
    )
    config = load_config(overrides={"store.path": ":memory:", "campaign": "t"})
    store = get_store(config)
    yield config, notes, store, FakeEmbedder()
    store.close()


def test_first_index_then_nothing_to_do(env):
    config, notes, store, emb = env
    first = sync_campaign(config, notes, emb, store)
    assert first.files == 3 and first.added == first.chunks == store.count(config.collection()) > 0
    assert {f.status for f in first.per_file} == {"added"}
    before = emb.texts_embedded
    second = sync_campaign(config, notes, emb, store)
    assert second.embedded == 0 and emb.texts_embedded == before
    assert second.unchanged == first.chunks and second.added == second.updated == second.deleted == 0


def test_edit_add_delete_are_exact(env):
    config, notes, store, emb = env
    first = sync_campaign(config, notes, emb, store)
    write(notes, "Session 1.md", S1.replace("four hours", "six hours"))
    edited = sync_campaign(config, notes, emb, store)
    # the edited passage, and its neighbour, whose "nearby words" (Chunk.context) hold the edit too
    assert (edited.added, edited.updated, edited.deleted, edited.embedded) == (0, 2, 0, 2)
    assert [f.status for f in edited.per_file if f.source == "Session 1.md"] == ["updated"]
    nearby = [c for c, _ in store.keyword_search(config.collection(), "six hours", 10, context=True)]
    assert len(nearby) == 2 and sum("six hours" in c.text for c in nearby) == 1  # the neighbour's context too

    write(notes, "Session 3.md", S2.replace("wyvern", "manticore"))
    added = sync_campaign(config, notes, emb, store)
    assert (added.added, added.updated, added.deleted) == (1, 0, 0)

    (notes / "Session 2.md").unlink()
    deleted = sync_campaign(config, notes, emb, store)
    assert (deleted.added, deleted.updated, deleted.deleted) == (0, 0, 1)
    assert any(f.source == "Session 2.md" and f.status == "deleted" for f in deleted.per_file)
    assert store.count(config.collection()) == first.chunks  # +1 file, -1 file of one chunk each
    assert all(c.source != "Session 2.md" for c in store.chunks(config.collection()))


def test_without_context_an_edit_rewrites_only_its_passage(env):
    config, notes, store, emb = env
    config.chunking.context_window = 0
    sync_campaign(config, notes, emb, store)
    write(notes, "Session 1.md", S1.replace("four hours", "six hours"))
    edited = sync_campaign(config, notes, emb, store)
    assert (edited.updated, edited.embedded) == (1, 1)


def test_shortened_file_loses_its_tail(env):
    config, notes, store, emb = env
    first = sync_campaign(config, notes, emb, store)
    write(notes, "Session 1.md", S1.split("## Descent")[0])
    short = sync_campaign(config, notes, emb, store)
    assert short.deleted == 1 and store.count(config.collection()) == first.chunks - 1


class CrashingEmbedder(FakeEmbedder):
    """Dies on its second batch, like a process killed mid-index."""

    def embed_batch(self, texts):
        if self.calls >= 1:
            raise KeyboardInterrupt
        return super().embed_batch(texts)


def test_crash_mid_index_is_completed_by_next_run(env):
    config, notes, store, _ = env
    with pytest.raises(KeyboardInterrupt):
        sync_campaign(config, notes, CrashingEmbedder(), store, write_batch=2)
    assert 0 < store.count(config.collection()) < 5
    emb = FakeEmbedder()
    done = sync_campaign(config, notes, emb, store, write_batch=2)
    assert done.embedded == done.chunks - 2  # the first batch survived the crash
    again = sync_campaign(config, notes, emb, store)
    assert again.embedded == 0 and store.count(config.collection()) == done.chunks


def test_new_model_reembeds_everything(env):
    config, notes, store, emb = env
    first = sync_campaign(config, notes, emb, store)
    other = FakeEmbedder()
    other.name = "another-model"
    assert sync_campaign(config, notes, other, store).embedded == first.chunks


def test_skipped_files_are_reported_and_batch_goes_on(env):
    config, notes, store, emb = env
    (notes / "blank.md").write_text("   \n")
    (notes / "image.md").write_bytes(b"\x89PNG\x00\x00binary")
    report = sync_campaign(config, notes, emb, store)
    skipped = {f.source: f.reason for f in report.per_file if f.status == "skipped"}
    assert set(skipped) == {"blank.md", "image.md"} and all(skipped.values())
    assert report.files == 3


def test_one_junk_file_is_cut_to_the_passage_cap_with_a_warning(tmp_path):
    from rag.config import load_config
    from rag.ingest.indexing import prepare_chunks

    (tmp_path / "Session 1.md").write_text("## Road\n- The party travels north.\n")
    (tmp_path / "junk.md").write_text("word " * 60_000)  # one 300 KB line: ~250 passages
    config = load_config(overrides={"chunking.max_passages_per_file": 50})
    chunks, _, notes = prepare_chunks(config, tmp_path, "c")
    assert sum(c.source == "junk.md" for c in chunks) == 50 and sum(c.source == "Session 1.md" for c in chunks) == 1
    junk = next(n for n in notes if n.source == "junk.md")
    assert any("cut to its first 50 of" in w and "chunking.max_passages_per_file" in w for w in junk.warnings)


def test_contradicting_passage_sizes_are_refused_naming_both_keys():
    import pytest

    from rag.config import load_config
    from rag.errors import ConfigError

    with pytest.raises(ConfigError, match=r"chunking.min_chars \(5000\) must not be above chunking.max_chars \(1200\)"):
        load_config(overrides={"chunking.min_chars": 5000})


def test_an_index_made_at_another_precision_is_read_again_whole_and_says_why(tmp_path, real_embedder):
    """Full-precision vectors and int8 ones are close but not the same: an index never mixes them. Changing
    ``embedding.precision`` re-reads every passage, and the report says it was the model, not the notes."""
    from rag.config import EmbeddingConfig
    from rag.embedders import get_embedder

    notes = tmp_path / "notes"
    write(notes, "Session 1.md", S1)
    write(notes, "Session 2.md", S2)
    config = load_config(overrides={"store.path": ":memory:", "campaign": "t"})
    store = get_store(config)
    try:
        full = sync_campaign(config, notes, get_embedder(EmbeddingConfig(precision="full")), store)
        again = sync_campaign(config, notes, real_embedder, store)
        assert again.remodelled == again.updated == again.embedded == full.chunks and again.unchanged == 0
        assert f"{full.chunks} read again for the model's new setting" in again.summary()
        third = sync_campaign(config, notes, real_embedder, store)
        assert third.unchanged == full.chunks and third.remodelled == third.embedded == 0
        assert "read again" not in third.summary()
    finally:
        store.close()


def test_notes_synced_in_two_steps_search_as_the_same_notes_indexed_at_once(tmp_path, real_embedder):
    """A group adds a session's notes to a campaign: every passage keeps the vector it would have had in one
    index of all the notes, so nothing a player asked before the new notes changes for it but by what they add."""
    notes = tmp_path / "notes"
    write(notes, "Session 1.md", S1)
    config = load_config(overrides={"store.path": ":memory:", "campaign": "t"})
    collection = config.collection("t")
    synced, whole = get_store(config), get_store(config)
    try:
        sync_campaign(config, notes, real_embedder, synced)
        write(notes, "Session 2.md", S2)
        write(
            notes, "NPCs/Osiris.md", "# Osiris\nA sphinx who guards the library of Vasselheim and speaks in riddles.\n"
        )
        assert sync_campaign(config, notes, real_embedder, synced).added == 2
        everything = sync_campaign(config, notes, real_embedder, whole)
        assert everything.added == everything.chunks > 2
        ids = sorted(synced.stored_hashes(collection))
        assert ids == sorted(whole.stored_hashes(collection))
        one, other = synced.vectors(collection, ids), whole.vectors(collection, ids)
        assert all(np.allclose(one[i], other[i], atol=1e-6) for i in ids)
        question = real_embedder.embed_query("Who gave us the map of the mines?")
        found = [
            [(c.id, round(s, 5)) for c, s in store.dense_search(collection, question, 5, None)]
            for store in (synced, whole)
        ]
        assert found[0] == found[1]
    finally:
        synced.close()
        whole.close()


def test_a_very_first_start_says_why_reading_has_not_begun(tmp_path, capsys, real_embedder):
    """On a very first start the 8-bit model is still being made (~20 s) when a player's notes arrive, and their
    passages wait for it: the bar says so, in the app and in the terminal, rather than standing at "0 of 2"."""
    from app.state import progress_line
    from rag.commands import progress_bar
    from rag.config import EmbeddingConfig
    from rag.embedders import get_embedder

    notes = tmp_path / "notes"
    write(notes, "Session 1.md", S1)
    first = get_embedder(EmbeddingConfig(cache_dir=str(tmp_path / "onnx")))  # no export yet: made in the background
    assert first.preparing
    config = load_config(overrides={"store.path": ":memory:", "campaign": "t"})
    store = get_store(config)
    steps, bar = [], progress_bar("Reading")

    def progress(step):
        steps.append(step)
        bar(step)

    try:
        sync_campaign(config, notes, first, store, progress=progress)
    finally:
        store.close()
    line = progress_line("Reading your notes…", steps[0])
    assert line == "Reading your notes… 0 of 2 passages · getting ready (only the very first time, up to half a minute)"
    assert "0/2 · getting ready (only the very first time" in capsys.readouterr().err
    assert not first.preparing and not any(s.preparing for s in steps[1:])
    assert steps[-1].done == 2 and "getting ready" not in progress_line("Reading your notes…", steps[-1])
    assert not real_embedder.preparing  # a later start: the export is cached, nothing to wait for
