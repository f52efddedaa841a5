"""The real packaged embedder, the real parser and an embedded on-disk store, end to end."""

import shutil
from pathlib import Path

from rag.config import load_config
from rag.pipeline import Pipeline

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo" / "notes"


def test_demo_notes_answer_a_search(tmp_path, real_embedder):
    notes = tmp_path / "notes"
    notes.mkdir()
    for n in (2, 3):
        shutil.copy(DEMO / f"C1 Session {n}.md", notes)
    config = load_config(overrides={"campaign": "demo-e2e"})
    pipeline = Pipeline(config, embedder=real_embedder)
    try:
        report = pipeline.index(notes)
        assert report.files == 2 and report.chunks > 20 and report.embedded == report.chunks
        # A paraphrase of one passage must bring that passage back first: vectors and texts line up.
        hits = (
            pipeline.with_settings({"retrieval.mode": "dense", "retrieval.k": 5})
            .search("Foreman Herris hands them a map of the mines")
            .hits
        )
        assert "map of the mines" in hits[0].chunk.text and hits[0].chunk.session == 2
        assert hits[0].chunk.name.startswith("C1 Session 2 · A Deal with Nostoc Greyspine") and hits[0].chunk.heading
        assert pipeline.index(notes).embedded == 0
    finally:
        pipeline.close()
    # the store persisted on disk and reopens (the lock was released by close)
    again = Pipeline(config, embedder=real_embedder)
    try:
        assert again.campaigns() == {"demo-e2e": report.chunks}
    finally:
        again.close()


def test_the_demo_ships_its_vectors_so_a_first_start_embeds_nothing(tmp_path, real_embedder):
    notes = tmp_path / "demo"
    shutil.copytree(DEMO, notes)
    config = load_config(overrides={"store.path": ":memory:"})
    pipeline = Pipeline(config, embedder=real_embedder)
    try:
        report = pipeline.index(notes, "demo")
        assert report.embedded == 0 and report.reused == report.chunks > 200
        hits = pipeline.with_settings({"retrieval.mode": "dense"}).search("Foreman Herris hands them a map").hits
        assert "map of the mines" in hits[0].chunk.text  # the shipped vectors are the passages' own
        # a changed note: only its changed passage is embedded; the rest still comes from the shipped file
        session = notes / "C1 Session 3.md"
        session.write_text(session.read_text() + "\n- A brand-new line about a wyvern.\n")
        again = Pipeline(config.model_copy(update={"campaign": "demo2"}), embedder=real_embedder, store=pipeline.store)
        report = again.index(notes, "demo2")
        assert 1 <= report.embedded <= 2 and report.embedded + report.reused == report.chunks
    finally:
        pipeline.close()


def test_a_campaign_given_its_notes_in_two_steps_answers_as_one_given_them_at_once(tmp_path, real_embedder):
    """A group adds sessions to a campaign as it plays: its answers must be those the same notes give indexed at
    once. Passages read in batches by the 8-bit model got vectors that depended on the passages beside them, and
    tied passages took the last places in the order they were written: a synced campaign answered otherwise."""
    notes = tmp_path / "notes"
    notes.mkdir()
    sessions = sorted(DEMO.glob("C1 Session *.md"))  # no shipped vectors: every passage is embedded
    for session in sessions[:5]:
        shutil.copy(session, notes)
    config = load_config(overrides={"store.path": ":memory:"})
    pipeline = Pipeline(config, embedder=real_embedder)
    try:
        pipeline.index(notes, "grown")
        for session in sessions[5:]:
            shutil.copy(session, notes)
        grown = pipeline.index(notes, "grown")
        whole = pipeline.index(notes, "whole")
        assert grown.embedded == grown.added < whole.embedded == whole.chunks
        for question in (
            "Who gave us the map?",
            "Where did we rescue Lady Kima?",
            "What happened in session 7?",
            "Who is Clarota?",
            "How did Grog get out of the warcamp?",
        ):
            one, other = (pipeline.answer(question, campaign) for campaign in ("grown", "whole"))
            assert (one.text, one.confidence, one.refused) == (other.text, other.confidence, other.refused), question
    finally:
        pipeline.close()
