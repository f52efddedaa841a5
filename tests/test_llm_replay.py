"""A real small model's answers on the demo campaign, replayed: Qwen2.5-Coder 1.5B Instruct (Q4_K_M) on a llama.cpp
server, recorded by ``scripts/record_llm.py`` (docs/LLM.md) in ``tests/fixtures/llm_replies/``. The fake server
answers each request as the model did, so these tests read what a real model writes: an answer that cites nothing,
a footnote mark "[2]" where a citation should be, a label copied from the note's title and heading, an answer
invented for a question the notes cannot answer.

What a player must see, whatever the model wrote: a sentence cited where a passage holds it, an invented answer
marked and never more than "Not sure", a question that stands alone answered as if asked first, and passages the
model rated in its own sloppy format still found.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.config import load_config
from rag.models import Filters
from rag.pipeline import Pipeline
from tests.llm_server import KEY, Handler

DEMO = Path(__file__).resolve().parent.parent / "data" / "demo" / "notes"
MODEL = "replay:qwen2.5-coder-1.5b"


def replaying(url: str, data: Path, embedder, **settings) -> Pipeline:
    overrides = {
        "data_dir": str(data),
        "answer.backend": "openai",
        "answer.base_url": url,
        "answer.model": MODEL,
        "answer.api_key": KEY,
        **settings,
    }
    return Pipeline(load_config(overrides=overrides), embedder=embedder)


@pytest.fixture(scope="module")
def data(tmp_path_factory, real_embedder) -> Path:
    folder = tmp_path_factory.mktemp("replay")
    pipeline = Pipeline(load_config(overrides={"data_dir": str(folder)}), embedder=real_embedder)
    pipeline.index(DEMO, "demo")
    pipeline.close()
    return folder


@pytest.fixture(scope="module")
def pipeline(data, llm_server, real_embedder):
    shared = replaying(llm_server, data, real_embedder)
    yield shared
    shared.close()


def test_a_right_answer_the_model_left_uncited_is_cited_and_found(pipeline):
    """The model wrote "The Pig Pits." and nothing more."""
    answer = pipeline.answer("Where did Thompson send us to sleep?", "demo")
    assert answer.text == "The Pig Pits. [C1 Session 1 · First Night]"
    # found in the passage it now cites; how sure it is follows the reranker's certainty of that passage (~.6)
    assert answer.trace["attributed"] and answer.confidence == "medium"


def test_a_label_copied_from_the_notes_title_and_heading_resolves_and_its_invented_claim_is_marked(pipeline):
    """Asked what the notes never say, the model invented an answer under a passage's title and heading. The
    passages a question the notes cannot answer finds are near ties of nothing; the search keeps to session 2, so the
    passage the model named ("A Deal with Nostoc Greyspine") is among those it was shown, as it was when recorded."""
    answer = pipeline.answer("What colour is the cook's favourite hat?", "demo", Filters(session_min=2, session_max=2))
    assert answer.text.startswith("The cook's favourite hat is brown. [C1E002 Into the Greyspine Mines · A Deal")
    assert [c.chunk_id is not None for c in answer.citations] == [True]  # the label resolves…
    assert answer.text.endswith("⚠ The notes cited don't say this; check the passages below.")  # …its claim does not
    assert answer.confidence == "low"


def test_an_invented_answer_citing_nothing_says_so(pipeline):
    answer = pipeline.answer("What is the name of Percy's horse?", "demo")
    assert answer.text == "Percy's horse is named Pike.\n\n⚠ This answer cites no passage; check the passages below."
    assert answer.confidence == "low"


def test_a_footnote_mark_is_not_a_citation(pipeline):
    """ "Clarota gave us the map. [2]": the notes' footnote mark, copied; the sentence is cited where it is held."""
    answer = pipeline.answer("Who gave us the map?", "demo")
    assert answer.text.startswith("Clarota gave us the map. [2] [C1 Session 9")
    assert all(c.chunk_id for c in answer.citations) and "⚠" not in answer.text


def test_no_answer_is_found_it_while_a_warning_stands_under_it(pipeline):
    questions = [
        "Who gave us the map?",
        "Where did Thompson send us to sleep?",
        "Where did we rescue Lady Kima?",
        "Who hired the party to find Lady Kima?",
        "Who did Vex'ahlia tame?",
        "What did Tiberius name his pet?",
        "Who plays Grog?",
        "Who is Clarota?",
        "What is the name of Percy's horse?",
        "What colour is the cook's favourite hat?",
    ]
    for question in questions:
        answer = pipeline.answer(question, "demo")
        assert "Session 5 · The Sunken Tavern" not in answer.text  # the old prompt's example label
        if "⚠" in answer.text or answer.refused:
            assert answer.confidence == "low", question
        assert all(c.chunk_id for c in answer.citations) or "is not a passage this answer was given" in answer.text


def test_a_question_that_stands_alone_is_answered_the_same_after_an_earlier_one(pipeline):
    alone = pipeline.answer("What is the name of Percy's horse?", "demo")
    earlier = ("Where did we rescue Lady Kima?", pipeline.answer("Where did we rescue Lady Kima?", "demo").text)
    Handler.requests.clear()
    after = pipeline.answer("What is the name of Percy's horse?", "demo", Filters(), [earlier])
    assert after.borrowed is None and after.text == alone.text
    sent = [r["body"]["messages"] for r in Handler.requests if r["body"].get("model") == MODEL]
    assert not any(m["role"] == "assistant" for messages in sent for m in messages)  # the earlier turn stayed home


def test_a_follow_up_is_read_with_the_earlier_question_by_the_model(pipeline):
    earlier = ("Where did we rescue Lady Kima?", pipeline.answer("Where did we rescue Lady Kima?", "demo").text)
    after = pipeline.answer("What did she do next?", "demo", Filters(), [earlier])
    assert after.borrowed == {"standalone": "What did Lady Kima do next?", "method": "llm", "carried": []}
    assert [m["role"] for m in after.trace["prompt"]][:3] == ["system", "user", "assistant"]  # it carries the turn


def test_passages_the_model_rated_are_read_from_its_reply(tmp_path, llm_server, real_embedder):
    data = tmp_path / "rated"  # its own store: the module's pipeline holds the shared one
    rated = replaying(
        llm_server, data, real_embedder, **{"reranker.backend": "llm", "reranker.llm_context_tokens": 4096}
    )
    try:
        rated.index(DEMO, "demo")
        result = rated.search("Who plays Grog?", "demo")
    finally:
        rated.close()
    assert not result.notices  # the ratings were read, nothing failed
    assert sum(h.scores.get("rerank", -1) >= 0 for h in result.candidates) >= 10  # most passages got a rating
