"""Progress that moves: an index counts passages as they are read, a step (the embedder's batch) at a time,
names the note being read and the time left; a run stopped from its progress callback keeps what it counted,
and the next run reads only the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.config import load_config
from rag.ingest.campaign_files import alias_path
from rag.pipeline import IndexProgress, Pipeline
from rag.stores import get_store
from tests.fakes import FakeEmbedder

SCENES = ["Docks", "Market", "Temple", "Sewers", "Tower", "Crypt", "Bridge"]


def vault(folder: Path, sessions: int = 7, bullets: int = 10) -> Path:
    """``sessions`` notes of ``bullets`` passages each (long enough not to be merged)."""
    folder.mkdir(parents=True, exist_ok=True)
    for s in range(1, sessions + 1):
        lines = ["# Session Start", f"## {SCENES[s % len(SCENES)]}"]
        lines += [
            f"- In session {s} the party meets stranger number {b}, who tells a long tale of the lost city of "
            f"Omu, its nine trickster gods and the death curse that withers every soul raised since. "
            + "The tale goes on. "
            * (25 + b)
            for b in range(bullets)
        ]
        (folder / f"Session {s}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def pipeline(tmp_path):
    def make(**settings) -> Pipeline:
        config = load_config(
            overrides={"store.path": ":memory:", "campaign": "t", "data_dir": str(tmp_path / "data"), **settings}
        )
        return Pipeline(config, embedder=FakeEmbedder(), store=store)

    config = load_config(overrides={"store.path": ":memory:"})
    store = get_store(config)
    yield make
    store.close()


class StopAfter:
    """A progress callback that records every step and raises after ``steps`` of them (the app's Stop button:
    Streamlit raises at the next element update): it returns ``steps`` times, then raises."""

    def __init__(self, steps: int | None = None):
        self.seen: list[IndexProgress] = []
        self.steps = steps

    def __call__(self, step: IndexProgress) -> None:
        self.seen.append(step)
        if self.steps is not None and len(self.seen) > self.steps:
            raise KeyboardInterrupt


def test_passages_are_counted_a_batch_at_a_time_with_the_note_and_the_time_left(tmp_path, pipeline):
    notes = vault(tmp_path / "notes")
    p = pipeline()  # embedding.batch_size 32: the 70 passages in steps of 32, 32, 6
    seen = StopAfter()
    report = p.index(notes, "t", seen)
    assert report.chunks == report.embedded == 70
    assert [s.done for s in seen.seen] == [0, 32, 64, 70] and {s.total for s in seen.seen} == {70}
    # while reading, the note being read is named by its file name; at the end there is none
    assert all(s.note.startswith("Session ") and s.note.endswith(".md") for s in seen.seen[:-1])
    assert seen.seen[-1].note == ""
    # the time left comes once embedding.estimate_after (2) steps are timed, never at the end
    assert [s.seconds_left is not None for s in seen.seen[:-1]] == [False, False, True]
    assert seen.seen[2].time_left().startswith("about ") and seen.seen[-1].time_left() == ""


def test_steps_follow_the_embedders_batch_size_and_the_estimate_setting(tmp_path, pipeline):
    notes = vault(tmp_path / "notes", sessions=2, bullets=5)
    seen = StopAfter()
    pipeline(**{"embedding.batch_size": 4, "embedding.estimate_after": 1}).index(notes, "t", seen)
    assert [s.done for s in seen.seen] == [0, 4, 8, 10]
    assert [s.seconds_left is None for s in seen.seen] == [True, False, False, False]


def test_a_stopped_index_keeps_what_it_counted_and_the_next_reads_only_the_rest(tmp_path, pipeline):
    notes = vault(tmp_path / "notes")
    p = pipeline()
    stop = StopAfter(steps=1)  # raises on the step after the start: 32 passages read, then the Stop button
    with pytest.raises(KeyboardInterrupt):
        p.index(notes, "t", stop)
    kept = stop.seen[-1]
    assert (kept.done, kept.total) == (32, 70)
    assert p.store.count(p.config.collection("t")) == kept.done  # a passage counted is a passage stored

    again = StopAfter()
    report = p.index(notes, "t", again)
    assert p.embedder.texts_embedded == 70  # 32 before the stop, 38 now: nothing read twice
    assert (report.embedded, report.unchanged, report.added) == (38, 32, 38)
    assert again.seen[0] == IndexProgress(0, 38, again.seen[0].note, None, 32)  # "(32 already read)"
    assert p.store.count(p.config.collection("t")) == report.chunks == 70
    assert p.index(notes, "t").embedded == 0


def test_a_gm_only_note_is_not_named_in_the_player_view(tmp_path, pipeline):
    notes = vault(tmp_path / "notes", sessions=1, bullets=3)
    vault(tmp_path / "notes" / "GM", sessions=1, bullets=3)  # GM/Session 1.md: GM-only by its folder
    (notes / "GM" / "Session 1.md").rename(notes / "GM" / "Plot twist.md")
    for view, named in (("player", {"Session 1.md"}), ("gm", {"Session 1.md", "Plot twist.md"})):
        seen = StopAfter()
        pipeline(**{"embedding.batch_size": 1, "view": view, "campaign": view}).index(notes, view, seen)
        assert {s.note for s in seen.seen} - {""} == named, view


@pytest.mark.parametrize(
    ("seconds", "said"), [(None, ""), (0.2, "about 1 s left"), (42.4, "about 42 s left"), (200, "about 3 min left")]
)
def test_the_time_left_in_words(seconds, said):
    assert IndexProgress(10, 94, "Session 12.md", seconds).time_left() == said
    assert IndexProgress(94, 94, "", seconds).time_left() == ""


def test_a_stopped_index_leaves_no_out_of_date_table_of_names(tmp_path, pipeline):
    notes = vault(tmp_path / "notes", sessions=1)
    p = pipeline()
    p.index(notes, "t")
    saved = alias_path(p.config, "t", "player")
    assert saved.is_file()
    vault(notes, sessions=7)  # six more sessions, stopped part way: the names table is made again when next asked
    with pytest.raises(KeyboardInterrupt):
        p.index(notes, "t", StopAfter(steps=1))
    assert not saved.exists()
