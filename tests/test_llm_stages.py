"""The stages that use the configured LLM: query expansion and the ``llm`` reranker, through the real
``openai`` client against the tiny OpenAI-compatible server in tests/llm_server.py, on both engines.
Without a configured LLM each stage says so, with the fix, instead of silently doing nothing."""

import json

import pytest

from rag.cli import main
from rag.config import load_config
from rag.errors import LanguageModelError, ModelUnavailableError
from rag.expanders import QueryExpander, clean_variants
from rag.pipeline import Pipeline
from rag.question import read_question
from rag.rerankers.llm import MIN_PASSAGE_CHARS, UNRATED, batches, parse_ratings
from tests.fakes import FakeEmbedder
from tests.helpers import SMALL_CAMPAIGN, write_notes
from tests.llm_server import KEY, Handler, _tokens


class ScriptedExpander(QueryExpander):
    """A fake registered like the real backend: returns the phrasings a test sets."""

    phrasings: list[str] = []

    def __init__(self, config=None):
        pass

    def expand(self, question, n, aliases=None, found=None):
        return ScriptedExpander.phrasings[:n]


@pytest.fixture(autouse=True)
def _scripted(register_backend):
    register_backend("expanders", "scripted", ScriptedExpander)


def make_pipeline(tmp_path, engine: str, **overrides) -> Pipeline:
    notes = write_notes(tmp_path / "notes", SMALL_CAMPAIGN)
    settings = {"store.backend": engine, "campaign": "t", "retrieval.candidates": 10, "reranker.enabled": False}
    settings["chunking.min_chars"] = 120  # a passage per bullet of the small campaign, as its questions expect
    config = load_config(overrides={**settings, **overrides})  # the LLM stages alone, no second look
    p = Pipeline(config, embedder=FakeEmbedder())
    p.index(notes)
    return p


def with_llm(url: str) -> dict:
    return {
        "answer.backend": "openai",
        "answer.base_url": url,
        "answer.api_key": KEY,
        "answer.model": "known-model",
        "answer.max_retries": 0,
        "answer.timeout": 10,
    }


@pytest.fixture(params=["qdrant", "edge"])
def engine(request):
    return request.param


@pytest.fixture(autouse=True)
def _default_reply():
    default = Handler.reply
    yield
    Handler.reply = default


def test_llm_phrasings_find_what_the_question_alone_misses(tmp_path, engine, llm_server):
    """The question shares no word with the notes; a phrasing from the LLM does, and the hit says so."""
    Handler.reply = staticmethod(lambda body: "1. sealed letter for her brother\n- Platinum Sanctuary priests\n")
    p = make_pipeline(tmp_path, engine, **with_llm(llm_server))
    try:
        alone = {"retrieval.mode": "keyword", "retrieval.query_expansion": False}
        plain = p.with_settings(alone).search("Who received correspondence?")
        assert plain.hits == [] and plain.queries == ["Who received correspondence?"]

        p.config.retrieval.query_expansion = True
        p.config.retrieval.expansion_variants = 2
        Handler.requests.clear()
        result = p.with_settings({"retrieval.mode": "keyword"}).search("Who received correspondence?")
    finally:
        p.close()
    assert result.queries == [
        "Who received correspondence?",
        "sealed letter for her brother",
        "Platinum Sanctuary priests",
    ]
    found_by = {h.chunk.source: h.variant for h in result.hits}
    assert found_by["Session 3.md"] == "sealed letter for her brother"
    assert found_by["Session 2.md"] == "Platinum Sanctuary priests"
    assert "expand" in result.timings
    sent = Handler.requests[-1]["body"]
    assert "Write 2 different short search queries" in sent["messages"][0]["content"]
    assert sent["messages"][1]["content"] == "Who received correspondence?"


def test_phrasings_add_to_each_passages_own_score(tmp_path, engine):
    """Hybrid: each phrasing is searched and fused; its score for a passage, times ``retrieval.expansion_weight``,
    adds to the question's own; a passage only the phrasing found is "found by" it and has no stage score."""
    p = make_pipeline(tmp_path, engine, **{"retrieval.expander": "scripted", "retrieval.query_expansion": False})
    try:
        question, other = "river road camping", "sealed letter Keeper"
        alone = {h.chunk.id: h.score for h in p.with_settings({"retrieval.k": 10}).search(other).candidates}
        first = {h.chunk.id: h.score for h in p.with_settings({"retrieval.k": 10}).search(question).candidates}
        p.config.retrieval.query_expansion = True
        ScriptedExpander.phrasings = [other]
        merged = p.with_settings({"retrieval.k": 10}).search(question)
    finally:
        p.close()
    weight = p.config.retrieval.expansion_weight
    assert weight == 0.2  # the default
    assert {h.chunk.id for h in merged.candidates} == set(first) | set(alone)
    for hit in merged.candidates:
        own, phrased = first.get(hit.chunk.id, 0.0), weight * alone.get(hit.chunk.id, 0.0)
        assert hit.score == pytest.approx(own + phrased)
        assert hit.scores.get("expansion", 0.0) == pytest.approx(phrased)
        assert ("fused" in hit.scores) == (hit.chunk.id in first)  # the question's own stage scores, or none
        if hit.chunk.id not in first:
            assert hit.variant == other
    assert [h.rank for h in merged.candidates] == list(range(1, len(merged.candidates) + 1))
    assert merged.hits[0].score >= merged.hits[-1].score


def test_llm_expansion_without_an_llm_says_so_with_the_fix(tmp_path, capsys):
    p = make_pipeline(tmp_path, "qdrant", **{"retrieval.query_expansion": True, "retrieval.expander": "llm"})
    try:
        with pytest.raises(ModelUnavailableError) as info:
            p.search("Who is the keeper?")
    finally:
        p.close()
    assert "Query expansion needs an LLM" in str(info.value) and "Settings page" in info.value.hint


def test_cli_expand_flag_with_the_llm_expander_and_no_llm_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Session 1.md").write_text(SMALL_CAMPAIGN["Session 3.md"])
    assert main(["index", "--notes", str(notes), "--campaign", "x"]) == 0
    capsys.readouterr()
    assert main(["search", "letter", "--campaign", "x", "--expand", "3", "--set", "retrieval.expander=llm"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "needs an LLM" in err and "answer.backend: openai" in err


def test_variant_lines_are_cleaned():
    reply = '1. "Who gave the map?"\n2) Herris map\n- herris MAP\n* \n• Foreman Herris mines\nWhat did Herris give?'
    assert clean_variants(reply, "What did Herris give?", 5) == [
        "Who gave the map?",
        "Herris map",
        "Foreman Herris mines",
    ]
    assert clean_variants(reply, "x", 1) == ["Who gave the map?"]


def test_llm_reranker_reorders_by_the_models_ratings(tmp_path, engine, llm_server):
    def rate(body):
        text = body["messages"][1]["content"]
        return "\n".join(
            f"P{i}: {9 if 'letter' in part else 1}" for i, part in enumerate(text.split("\n\nP")[1:], start=1)
        )

    Handler.reply = staticmethod(rate)
    p = make_pipeline(tmp_path, engine, **with_llm(llm_server), **{"reranker.enabled": True, "reranker.backend": "llm"})
    try:
        result = p.with_settings({"retrieval.mode": "keyword", "retrieval.k": 3}).search("Vasselheim Calamity")
    finally:
        p.close()
    top = result.hits[0]
    assert "sealed letter" in top.chunk.text and top.scores["rerank"] == 9 and top.ranks["rerank"] == 1
    assert all("rerank" in h.scores for h in result.hits)
    assert "rerank" in result.timings


def long_campaign(tmp_path):
    """Twenty sessions of one 800-character passage each, all naming Vasselheim; day 7's holds the sealed letter."""
    notes = {}
    for day in range(1, 21):
        told = "the Keeper hands Vex a sealed letter" if day == 7 else "the priests say nothing of the Calamity"
        text = f"On day {day} in Vasselheim {told}. " + "They walk the long roads of the city and talk. " * 20
        notes[f"Session {day}.md"] = f"# Session Start\n## Day {day}\n- {text[:800]}\n"
    return write_notes(tmp_path / "long", notes)


def rate_the_letter(body) -> str:
    """A model's ratings: 9 for the passage with the sealed letter, 1 for the others, numbered as it was sent."""
    passages = body["messages"][1]["content"].split("\n\nP")[1:]
    return "\n".join(f"P{i}: {9 if 'sealed letter' in p else 1}" for i, p in enumerate(passages, start=1))


def long_pipeline(tmp_path, llm_server, **settings) -> Pipeline:
    overrides = {
        **with_llm(llm_server),
        "answer.model": "ctx-2048",
        "store.backend": "qdrant",
        "reranker.enabled": True,
    }
    overrides |= {"reranker.backend": "llm", "reranker.candidates": 20, "retrieval.candidates": 20, **settings}
    p = Pipeline(load_config(overrides={**overrides, "retrieval.query_expansion": False}), embedder=FakeEmbedder())
    p.index(long_campaign(tmp_path), "long")
    return p


def test_llm_reranking_fits_a_small_context_in_requests_that_fit_it(tmp_path, llm_server, monkeypatch):
    """20 passages of 800 characters are ~3,400 tokens, more than a llama.cpp server's default 2,048: they go in
    requests that fit, and every passage is rated."""
    monkeypatch.setattr(Handler, "reply", staticmethod(rate_the_letter))
    Handler.requests.clear()
    p = long_pipeline(tmp_path, llm_server)
    try:
        result = p.search("What happened in Vasselheim?", "long")
    finally:
        p.close()
    sent = [r["body"] for r in Handler.requests if r["body"].get("model") == "ctx-2048"]
    assert len(sent) > 1 and all(_tokens(body) <= 2048 for body in sent)
    assert "sealed letter" in result.hits[0].chunk.text and result.hits[0].scores["rerank"] == 9
    assert all(h.scores["rerank"] in (1, 9) for h in result.candidates[:20])  # none left unrated
    assert not result.notices


def test_passages_too_long_for_the_context_are_trimmed_and_batches_keep_their_order():
    texts = [f"passage {i} " + "word " * 400 for i in range(5)]  # 2,000 characters each
    sent = batches(read_question("Who?"), texts, 512)  # 2,048 characters: one passage at most, trimmed
    assert [len(b) for b in sent] == [1] * 5 and all(len(b[0]) >= MIN_PASSAGE_CHARS for b in sent)
    assert [b[0].split()[1] for b in sent] == ["0", "1", "2", "3", "4"]
    assert [len(b) for b in batches(read_question("Who?"), texts, 8192)] == [5]  # at most 800 characters of each
    with pytest.raises(LanguageModelError) as info:
        batches(read_question("Who? " * 400), texts, 512)
    assert "Passages to re-read" in info.value.one_line()


def test_a_context_setting_larger_than_the_servers_is_fitted_to_the_length_the_server_names(
    tmp_path, llm_server, monkeypatch
):
    """The setting says 8,192 tokens, the server holds 2,048 and says so when it refuses: the passages are sent
    again in requests that fit what it said, and every one is rated."""
    monkeypatch.setattr(Handler, "reply", staticmethod(rate_the_letter))
    Handler.requests.clear()
    p = long_pipeline(tmp_path, llm_server, **{"reranker.llm_context_tokens": 8192})
    try:
        result = p.search("What happened in Vasselheim?", "long")
    finally:
        p.close()
    sent = [r["body"] for r in Handler.requests if r["body"].get("model") == "ctx-2048"]
    assert _tokens(sent[0]) > 2048 and len(sent) > 2 and all(_tokens(body) <= 2048 for body in sent[1:])
    assert "sealed letter" in result.hits[0].chunk.text
    assert all(h.scores["rerank"] in (1, 9) for h in result.candidates[:20]) and not result.notices


def test_llm_reranking_that_fails_leaves_the_first_order_and_says_so(tmp_path, llm_server, monkeypatch):
    """A context setting larger than the server's, and a server that does not say its own: the request is refused,
    and the question is still searched, in the order the search found, with a line naming the setting that helps
    (not the passages shown)."""
    monkeypatch.setattr(Handler, "reply", staticmethod(rate_the_letter))
    monkeypatch.setattr(Handler, "names_its_context", False)
    p = long_pipeline(tmp_path, llm_server, **{"reranker.llm_context_tokens": 8192})
    try:
        failed = p.search("What happened in Vasselheim?", "long")
        stream = p.ask("What happened in Vasselheim?", "long")
        answer = stream.answer
    finally:
        p.close()
    assert not any("rerank" in h.scores for h in failed.candidates)  # as the first stages ranked them
    assert [h.rank for h in failed.hits] == list(range(1, len(failed.hits) + 1))
    assert [h.score for h in failed.hits] == sorted((h.score for h in failed.hits), reverse=True)
    [said] = failed.notices
    assert "in the order the search found them" in said and "Passages to re-read" in said and "top-k" not in said
    assert answer.text.startswith("Herris gives them")  # the model still answered the question…
    assert said in stream.notices and not getattr(stream, "fell_back", None)  # …under the same line


def test_llm_reranker_without_an_llm_says_so(tmp_path):
    p = make_pipeline(tmp_path, "qdrant", **{"reranker.enabled": True, "reranker.backend": "llm"})
    try:
        with pytest.raises(ModelUnavailableError, match="Reranking with the LLM needs an LLM"):
            p.search("Vasselheim")
    finally:
        p.close()


def test_ratings_parse_leniently_and_unrated_passages_sink():
    assert parse_ratings("P1: 7\nP3 = 2.5\nnonsense\nP9: 4\nP2: 11", 3) == [7.0, UNRATED, 2.5]
    assert parse_ratings("", 2) == [UNRATED, UNRATED]


def test_offline_expansion_is_on_by_default_and_searches_the_best_passages_words(tmp_path, capsys, monkeypatch):
    """The default expander needs no LLM: the question plus the words its best passages share."""
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    notes = write_notes(tmp_path / "notes", SMALL_CAMPAIGN)
    assert main(["index", "--notes", str(notes), "--campaign", "x"]) == 0
    capsys.readouterr()
    question = "What did the Keeper reveal in Vasselheim?"
    assert main(["search", question, "--campaign", "x", "--json"]) == 0
    asked, feedback = json.loads(capsys.readouterr().out)["queries"]
    assert asked == question
    assert feedback.startswith(question + " ") and len(feedback.split()) > 7  # + its best passages' words
    assert main(["search", question, "--campaign", "x", "--no-expand", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["queries"] == [question]  # the switch decides
    # "Who is X?" with a page for X (named by an alias): the story's passage, then the page, placed on purpose; no
    # other wording pushes them down
    assert main(["search", "Who is the Keeper?", "--campaign", "x", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["queries"] == ["Who is the Keeper?"] and result["hits"][1]["source"] == "NPCs/Osiris.md"
    assert not result["hits"][0]["source"].startswith("NPCs/")
