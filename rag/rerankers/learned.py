"""Offline learning-to-rank reranker: a small model over cheap features of each (question, candidate).

Why: no cross-encoder ships on PyPI and none can be downloaded, but the first stages already say a lot that
RRF throws away (how far ahead the best cosine is, whether BM25 and the context window agree, whether a
passage's note holds other candidates), and the passage's words say more (does it hold every content word of
the question, the names the question asks about, in one place?). A model trained on FairytaleQA *train*
(``scripts/train_ranker.py``) weighs those signals; features and model take 2-6 ms per question (LTR.md).

Every feature is computed from the hits of one question alone: their stage scores and ranks (``Hit.scores``,
``Hit.ranks``) and their passages. Term statistics (IDF) come from the candidates themselves, so nothing is
built at index time. The model is a JSON file shipped beside this one (``learned_model.json``): a linear
model on standardised features or gradient-boosted trees, naming the features it uses, plus two things the
training data cannot teach, chosen on vault-toa and CRD3:

- a prior: the model's score plus a weight times ``log(first-stage rank)``, so the first stage's order (tuned on
  campaign vaults) is only overturned when the passages' words and scores clearly disagree;
- held places: FairytaleQA has no reference pages and no first-mention questions, so a page's passage and a
  first-mention passage stay where the first stage's rules put them; the model orders the others around them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from rag.config import RerankConfig
from rag.errors import ModelUnavailableError
from rag.models import Hit
from rag.question import Question
from rag.rerankers import Reranker
from rag.rerankers._ltr_features import COLUMN, FEATURES, features

__all__ = ["FEATURES", "MODEL_PATH", "LearnedReranker", "Model", "features", "load_model", "place"]

MODEL_PATH = Path(__file__).with_name("learned_model.json")


# ------------------------------------------------------------------------------------------------ models
class Model:
    """A linear model or a sum of trees, over the named columns of ``features``."""

    def __init__(self, spec: dict):
        self.spec = spec
        self.kind = spec["kind"]
        self.columns = np.array([COLUMN[name] for name in spec["features"]], dtype=np.int64)
        if self.kind == "linear":
            self.weights = np.asarray(spec["weights"], dtype=np.float64)
            self.mean = np.asarray(spec["mean"], dtype=np.float64)
            self.scale = np.asarray(spec["scale"], dtype=np.float64)
            self.bias = float(spec["bias"])
            if not (len(self.weights) == len(self.mean) == len(self.scale) == len(self.columns)):
                raise ValueError("weights, mean and scale must have one entry per feature")
        elif self.kind == "trees":
            # every tree as a complete binary tree of ``depth`` levels: node j's children are 2j+1 and 2j+2
            self.depth = int(spec["depth"])
            size = 2**self.depth - 1
            self.feature = np.asarray(spec["feature"], dtype=np.int64).reshape(-1, size)
            self.threshold = np.asarray(spec["threshold"], dtype=np.float64).reshape(-1, size)
            self.leaf = np.asarray(spec["leaf"], dtype=np.float64).reshape(-1, 2**self.depth)
            self.bias = float(spec.get("bias", 0.0))
            if not (len(self.feature) == len(self.threshold) == len(self.leaf)):
                raise ValueError("feature, threshold and leaf must have one entry per tree")
            if self.feature.size and (self.feature.min() < 0 or self.feature.max() >= len(self.columns)):
                raise ValueError("a tree splits on a feature the model does not list")
        else:
            raise ValueError(f"unknown model kind {self.kind!r}")
        # The first-stage order as a prior: its weight per (unstandardised) feature, added to the model's score
        prior = spec.get("prior") or {}
        self.prior_columns = np.array([COLUMN[name] for name in prior], dtype=np.int64)
        self.prior_weights = np.array(list(prior.values()), dtype=np.float64)
        # Hits the first stage placed by a rule the training data cannot show keep their place (see ``place``)
        self.keep_columns = np.array([COLUMN[name] for name in spec.get("keep") or ()], dtype=np.int64)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Final scores: the model's plus the prior, with the kept hits' places held (see ``place``)."""
        scores = self.raw(x) + x[:, self.prior_columns] @ self.prior_weights
        if not len(self.keep_columns):
            return scores
        return place(scores, (x[:, self.keep_columns] > 0).any(axis=1))

    def raw(self, x: np.ndarray) -> np.ndarray:
        """The model's own score, without the prior."""
        x = x[:, self.columns]
        if self.kind == "linear":
            return ((x - self.mean) / self.scale) @ self.weights + self.bias
        n, trees = len(x), len(self.feature)
        node = np.zeros((n, trees), dtype=np.int64)
        tree_index = np.arange(trees)[None, :]
        rows = np.arange(n)[:, None]
        for _ in range(self.depth):
            f = self.feature[tree_index, node]
            go_right = x[rows, f] > self.threshold[tree_index, node]
            node = 2 * node + 1 + go_right
        leaves = node - (2**self.depth - 1)
        return self.leaf[tree_index, leaves].sum(axis=1) + self.bias


def place(scores: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """Scores that sort the hits like this: a fixed hit stays at its first-stage place (rows are in first-stage
    order), the others fill the remaining places best score first (ties: first-stage order). A free hit keeps
    its score; a fixed one gets a score between its new neighbours' (or positions, if the scores tie)."""
    n = len(scores)
    free = [i for i in np.argsort(-scores, kind="stable") if not fixed[i]]
    order, it = [], iter(free)
    for i in range(n):
        order.append(i if fixed[i] else next(it))
    out = scores.astype(np.float64).copy()
    ranked = [out[i] if not fixed[i] else None for i in order]
    for p, value in enumerate(ranked):
        if value is not None:
            continue
        before = next((ranked[q] for q in range(p - 1, -1, -1) if ranked[q] is not None), None)
        after = next((ranked[q] for q in range(p + 1, n) if ranked[q] is not None), None)
        if before is None and after is None:
            ranked[p] = 0.0
        elif before is None:
            ranked[p] = after + 1.0
        elif after is None:
            ranked[p] = before - 1.0
        else:
            ranked[p] = (before + after) / 2
    for p, i in enumerate(order):
        out[i] = ranked[p]
    if list(np.argsort(-out, kind="stable")) != order:  # ties among neighbours: fall back to positions
        out[order] = np.arange(n, 0, -1, dtype=np.float64)
    return out


def load_model(path: Path = MODEL_PATH) -> Model:
    fix = (
        "Reinstall Chronicler (the file ships with it), or retrain it with `python scripts/train_ranker.py`, "
        "or set `reranker.backend: late-interaction` or `reranker.enabled: false`."
    )
    try:
        spec = json.loads(Path(path).read_text(encoding="utf-8"))
        return Model(spec["model"])
    except FileNotFoundError:
        raise ModelUnavailableError(f"The learned reranker's model file {path} is missing.", hint=fix) from None
    except (OSError, ValueError, KeyError, TypeError, IndexError) as err:
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise ModelUnavailableError(
            f"The learned reranker's model file {path} cannot be read: {first}", hint=fix
        ) from None


class LearnedReranker(Reranker):
    name = "learned"
    # The model's scores mean the same on every campaign (its features are relative to the question's best
    # candidate), so they can say how sure the search is. Top scores at or above SURE / FAIR: the answers held
    # the evidence 100 / 83 / 48 % of the time on vault-toa, 75 / 58 / 29 % on CRD3, 48 / 28 / 13 % on
    # FairytaleQA val, together with the answerer's own signals (rag.answering.confidence; docs/experiments/history.md).
    # A retrained model has a scale of its own: measure these again (by_confidence in `rag eval --answers`).
    SURE, FAIR = 2.0, 1.0

    def __init__(self, model: Model | None = None, path: Path = MODEL_PATH):
        self.model = model or load_model(path)
        self.name = f"learned:{self.model.spec.get('name', self.model.kind)}"

    def rerank(self, question: Question, hits: list[Hit]) -> list[float]:
        if not hits:
            return []
        return [float(s) for s in self.model.predict(features(question, hits))]

    def verdict(self, score: float) -> str | None:
        return "high" if score >= self.SURE else "medium" if score >= self.FAIR else "low"

    @staticmethod
    def certainty(score: float) -> float:
        """The logistic of the score (its scores stay within about ±5; clamped so no score can overflow)."""
        return 1.0 / (1.0 + math.exp(-min(max(score, -50.0), 50.0)))


def create(config: RerankConfig, embedder=None, answer=None) -> LearnedReranker:
    return LearnedReranker()
