"""The ``learned`` reranker: the shipped model loads and moves the passage that holds the question's words up,
reference pages and first mentions keep their first-stage place, the numpy tree evaluation is exact, and a
missing or broken model file says how to fix it."""

import json

import numpy as np
import pytest

from rag.config import RerankConfig, load_config
from rag.errors import ModelUnavailableError
from rag.models import Chunk, Hit
from rag.pipeline import Pipeline
from rag.question import read_question
from rag.rerankers import get_reranker
from rag.rerankers.learned import FEATURES, MODEL_PATH, LearnedReranker, Model, features, load_model, place
from tests.fakes import FakeEmbedder
from tests.helpers import SMALL_CAMPAIGN, write_notes

QUESTION = read_question("Who made the new pistols for Percy?")
PASSAGES = [  # first-stage order: the passage that answers is second
    ("Session 1.md", "The party rested at the inn for a long while and talked about Percy and the weather."),
    ("Session 2.md", "The old blacksmith made a new pair of pistols for Percy and asked for gold in return."),
    ("Session 3.md", "Vex bought arrows at the market while the others slept."),
    ("Session 4.md", "The council argued about taxes and the city walls until dawn."),
]


def hits(passages=PASSAGES, session=True) -> list[Hit]:
    """Candidates as the retriever hands them over: first-stage order, every stage's score and rank."""
    out = []
    for rank, (source, text) in enumerate(passages, start=1):
        chunk = Chunk("t", source, 0, text, source, session=rank if session else None, title=source[:-3])
        scores = {"dense": 0.5 - 0.01 * rank, "keyword": 3.0 - 0.1 * rank, "fused": 0.3 - 0.01 * rank}
        ranks = {"dense": rank, "keyword": rank, "first_stage": rank}
        out.append(Hit(chunk, scores["fused"], rank, scores, ranks))
    return out


def test_the_shipped_model_moves_the_passage_with_the_question_words_up():
    reranker = get_reranker(RerankConfig(enabled=True, backend="learned"))
    assert isinstance(reranker, LearnedReranker) and reranker.name.startswith("learned:")
    candidates = hits()
    scores = reranker.rerank(QUESTION, candidates)
    assert len(scores) == len(candidates) and all(isinstance(s, float) for s in scores)
    best = max(range(len(scores)), key=scores.__getitem__)
    assert candidates[best].chunk.source == "Session 2.md"  # was second in the first stage
    assert [h.ranks["first_stage"] for h in candidates] == [1, 2, 3, 4]  # the hits are left as they were


def test_reference_pages_keep_their_first_stage_place():
    """FairytaleQA has no reference pages, so the model never learned them: the page rules of the first stage
    (pages count half for "what happened", "Who is X?" gets X's page first) decide where a page goes."""
    candidates = hits()
    page = candidates[0].chunk
    candidates[0].chunk = Chunk("t", "NPCs/Innkeeper.md", 0, page.text, "Innkeeper", title="Innkeeper")
    scores = LearnedReranker().rerank(QUESTION, candidates)
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    assert order[0] == 0  # the page is still first
    assert order[1] == 1  # the answer is next, above the other session passages


def test_end_to_end_on_a_small_vault(tmp_path):
    notes = write_notes(tmp_path / "notes", SMALL_CAMPAIGN)
    overrides = {"campaign": "t", "retrieval.candidates": 10, "reranker.enabled": True, "reranker.backend": "learned"}
    pipeline = Pipeline(load_config(overrides=overrides), embedder=FakeEmbedder())
    pipeline.index(notes)
    result = pipeline.search("Who handed Vex the sealed letter about the Calamity?")
    top = result.hits[0]
    assert "sealed letter" in top.chunk.text
    assert all("rerank" in h.scores and "fused" in h.scores for h in result.hits)
    reranked = [h for h in result.candidates if "rerank" in h.ranks]
    assert [h.ranks["rerank"] for h in reranked] == list(range(1, len(reranked) + 1))
    assert [h.scores["rerank"] for h in reranked] == sorted((h.scores["rerank"] for h in reranked), reverse=True)
    assert result.timings["rerank"] < 1.0
    pipeline.close()


def test_features_one_row_per_hit_and_the_same_every_time():
    x = features(QUESTION, hits())
    assert x.shape == (4, len(FEATURES)) and np.isfinite(x).all()
    col = FEATURES.index
    assert x[1, col("cov")] > x[0, col("cov")]  # blacksmith/made/new/pistols/percy vs percy alone
    assert x[:, col("first_log")].tolist() == pytest.approx(np.log([1, 2, 3, 4]).tolist())
    assert np.array_equal(x, features(QUESTION, hits()))
    assert features(QUESTION, []).shape == (0, len(FEATURES))


def test_trees_are_evaluated_exactly():
    """Two depth-2 trees over two features, as complete trees: node j's children are 2j+1 and 2j+2."""
    big = 1e300
    spec = {
        "kind": "trees",
        "features": ["cov", "dense_rel"],
        "depth": 2,
        # tree 1: cov <= 0.5 ? (dense_rel <= 0.3 ? 0 : 1) : (leaf 5, padded) ; tree 2: a single leaf 0.25
        "feature": [0, 1, 0, 0, 0, 0],
        "threshold": [0.5, 0.3, big, big, big, big],
        "leaf": [0.0, 1.0, 5.0, 5.0, 0.25, 0.25, 0.25, 0.25],
        "prior": {"first_log": -1.0},
    }
    model = Model(spec)
    x = np.zeros((3, len(FEATURES)))
    x[:, FEATURES.index("cov")] = [0.2, 0.2, 0.9]
    x[:, FEATURES.index("dense_rel")] = [0.1, 0.8, 0.0]
    x[:, FEATURES.index("first_log")] = np.log([1, 2, 3])
    assert model.predict(x).tolist() == pytest.approx([0.25, 1.25 - np.log(2), 5.25 - np.log(3)])


def test_place_holds_the_fixed_hits_and_sorts_the_rest():
    scores = np.array([0.1, 0.9, 0.5, 0.3, 0.7])
    fixed = np.array([True, False, False, True, False])
    out = place(scores, fixed)
    assert list(np.argsort(-out, kind="stable")) == [0, 1, 4, 3, 2]
    assert out[1] == 0.9 and out[4] == 0.7  # free hits keep the model's score
    tied = place(np.array([0.5, 0.5, 0.5]), np.array([False, True, False]))
    assert list(np.argsort(-tied, kind="stable")) == [0, 1, 2]


def test_shipped_model_file_is_small_and_names_known_features():
    spec = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    assert MODEL_PATH.stat().st_size < 500_000
    assert set(spec["model"]["features"]) <= set(FEATURES)
    assert load_model().kind in ("linear", "trees")


@pytest.mark.parametrize(
    "content",
    [None, "{not json", json.dumps({"model": {"kind": "trees", "features": ["no-such-feature"]}})],
    ids=["missing", "corrupt", "unknown-feature"],
)
def test_missing_or_broken_model_file_says_how_to_fix(tmp_path, content):
    path = tmp_path / "learned_model.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ModelUnavailableError) as info:
        LearnedReranker(path=path)
    text = info.value.one_line()
    assert str(path) in text and "scripts/train_ranker.py" in text and "reranker.enabled: false" in text
    assert "\n" not in text
