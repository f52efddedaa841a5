"""Property-based fuzzing of the note parser and the chunker (hypothesis): any text in gives no exception, no
empty passage and the same ids and hashes twice; and in notes made of headings, bullets and paragraphs, every
word of every bullet and paragraph is in some passage (nothing a player wrote is lost)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag.config import ChunkingConfig, NotesConfig
from rag.ingest.chunking import chunk_note
from rag.ingest.parse import parse_note

CHUNKING = ChunkingConfig(max_chars=300, min_chars=40)
WORDS = ["wyvern", "tavern", "Grog", "map", "river", "Kraghammer", "duergar", "gold", "bell", "oracle", "x"]
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def passages(text: str, source: str = "Session 3.md"):
    note = parse_note(text, source, NotesConfig())
    return chunk_note(note, "fuzz", CHUNKING)


@FUZZ
@given(st.text(max_size=2000), st.sampled_from(["Session 3.md", "NPCs/Bram.md", "notes.txt"]))
def test_any_text_gives_no_error_no_empty_passage_and_stable_ids(text, source):
    first = passages(text, source)
    assert all(c.text.strip() for c in first)
    again = passages(text, source)
    assert [(c.id, c.content_hash) for c in first] == [(c.id, c.content_hash) for c in again]
    assert [c.position for c in first] == list(range(len(first)))


line = st.one_of(
    st.builds(
        lambda n, w: "#" * n + " " + " ".join(w),
        st.integers(1, 3),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
    ),
    st.builds(
        lambda i, w: "  " * i + "- " + " ".join(w),
        st.integers(0, 3),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=30),
    ),
    st.builds(lambda w: " ".join(w) + ".", st.lists(st.sampled_from(WORDS), min_size=1, max_size=60)),
    st.just(""),
)


@FUZZ
@given(st.lists(line, min_size=1, max_size=40))
def test_every_word_of_every_bullet_and_paragraph_is_in_a_passage(lines):
    text = "\n".join(lines)
    found = " ".join(c.text for c in passages(text))
    said = {w for ln in lines if not ln.startswith("#") for w in re.findall(r"\w+", ln)}
    assert {w for w in said if not re.search(rf"(?<!\w){re.escape(w)}(?!\w)", found)} == set()
