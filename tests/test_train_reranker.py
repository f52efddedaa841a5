"""The cross-encoder training script (scripts/train_reranker.py): it never trains on a set a number is measured
on, and each question's negatives are what its flags say."""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.fixture(scope="module")
def script():
    sys.path.insert(0, str(SCRIPTS))  # the script imports its neighbour ``_training`` as a run file would
    try:
        spec = importlib.util.spec_from_file_location("train_reranker", SCRIPTS / "train_reranker.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(SCRIPTS))


@pytest.mark.parametrize(
    "path",
    ["../shared/data/vault-toa", "../shared/data/vault-strahd-questions.jsonl", "../heldout/vault-ryboure", "x/val"],
)
def test_a_measured_set_is_refused(script, path):
    with pytest.raises(SystemExit, match="Refusing to train on"):
        script.refuse_dev_sets("../shared/data/fairytaleqa/train", path)


def test_training_data_is_accepted(script):
    script.refuse_dev_sets(
        "../shared/data/fairytaleqa/train", "../trainvaults/vault-nova", "../trainvaults/vault-nova-questions.jsonl"
    )


def test_each_question_gets_its_positive_hard_negatives_and_an_off_topic_passage(script):
    rows = [
        {
            "question": f"Who is person {i}?",
            "cands": [{"text": f"q{i} answer", "pos": True}]
            + [{"text": f"q{i} other {j}", "pos": False} for j in range(5)],
        }
        for i in range(4)
    ]
    args = argparse.Namespace(candidates=20, use_missed=True, negatives=2, easy_negatives=1)
    examples = script.build_examples(rows, args, random.Random(0))
    assert len(examples) == 4
    drawn = 0
    for e in examples:
        i = e["question"].split()[-1].rstrip("?")
        assert e["positive"] == f"q{i} answer"
        hard = [t for t in e["negatives"] if t.startswith(f"q{i} ")]
        off_topic = [t for t in e["negatives"] if not t.startswith(f"q{i} ")]
        assert len(hard) == 2 and all("other" in t for t in hard)
        assert len(off_topic) <= 1  # a draw of its own passage is dropped, never kept as a negative
        assert e["positive"] not in e["negatives"]
        drawn += len(off_topic)
    assert drawn >= 2
