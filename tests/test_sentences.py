"""Where a line of notes splits into sentences (``rag.names.sentences``): what the answerer quotes, the recap shows and
other names are read in. Cases are lines the way players type them."""

from __future__ import annotations

from pathlib import Path

import pytest
import sentencex

from rag.names import sentences

DEMO_NOTES = Path(__file__).resolve().parent.parent / "data" / "demo" / "notes"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "We learn the baby is the child of Mr. Durst and the mistress. Mrs. Durst hated him.",
            ["We learn the baby is the child of Mr. Durst and the mistress.", "Mrs. Durst hated him."],
        ),
        (
            "Dr. Rudolph van Richten and J. R. Hawkins wait at St. Andral's church. They travel to Mt. Celestia.",
            ["Dr. Rudolph van Richten and J. R. Hawkins wait at St. Andral's church.", "They travel to Mt. Celestia."],
        ),
        (
            "We buy gear, e.g. rope. It costs 3.5 gold. Strahd vs. the party.",
            ["We buy gear, e.g. rope.", "It costs 3.5 gold.", "Strahd vs. the party."],
        ),
        ("Session 3: we went to the inn. Then...", ["Session 3: we went to the inn.", "Then..."]),
        ("Mask is arcane, can talk to animals", ["Mask is arcane, can talk to animals"]),
        ('"Go!" he cried. Then he left.', ['"Go!" he cried.', "Then he left."]),
        ('He said "Stop." The end.', ['He said "Stop."', "The end."]),  # the closing mark is the sentence's own
        ("We waited… the door opened.", ["We waited… the door opened."]),
    ],
)
def test_a_line_splits_where_a_reader_would_stop(line, expected):
    assert sentences(line) == expected


def test_a_quoted_speech_is_read_sentence_by_sentence():
    """A recap typed as one quoted paragraph is not one sentence of a thousand characters, quoted whole."""
    recap = '"The party left Emon. They were ambushed by goliaths. Grog talked them down." [1]'
    assert sentences(recap) == [
        '"The party left Emon.',
        "They were ambushed by goliaths.",
        'Grog talked them down." [1]',
    ]


def test_who_said_it_stays_with_the_quote():
    assert sentences('"Then move the carpet!" - Morgan') == ['"Then move the carpet!" - Morgan']


def test_every_sentence_is_the_notes_own_characters():
    """The answerer quotes sentences verbatim: each is found in its line, in order, and together they hold every
    character of it but the spaces between them."""
    lines = [line for note in DEMO_NOTES.glob("*.md") for line in note.read_text(encoding="utf-8").splitlines()]
    assert len(lines) > 500
    for line in lines:
        at = 0
        for sentence in sentences(line):
            found = line.find(sentence, at)
            assert found >= 0 and not line[at:found].strip(), (line, sentence)
            at = found + len(sentence)
        assert not line[at:].strip(), line


def test_a_segmenter_that_trimmed_its_pieces_would_still_cut_the_notes_text(monkeypatch):
    segment = sentencex.segment
    monkeypatch.setattr(sentencex, "segment", lambda language, text: [p.strip() for p in segment(language, text)])
    assert sentences("Mr. Durst hid.  The  party  left. ") == ["Mr. Durst hid.", "The  party  left."]
