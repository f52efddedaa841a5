"""Fitting the answerer's learned decisions (``rag/generators/_decisions.py`` reads what this writes): a logistic
model over standardised numbers, its strength chosen by grouped cross-validation, written as plain numbers so the
product needs no scikit-learn. Used by the training scripts (``scripts/train_answerer.py``,
``scripts/train_session_lead.py``) only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

STRENGTHS = (0.01, 0.03, 0.1, 0.3, 1.0)  # inverse regularisation strengths tried


def fit_logistic(x: np.ndarray, y: np.ndarray, groups: np.ndarray, log: Callable[[str], None]) -> dict:
    """The model as ``Decisions`` reads it (weights, bias, the features' mean and scale, the strength chosen and
    the rows it saw). ``groups``: rows of one group (a story's questions) stay on one side of every fold, so the
    strength is chosen on stories the model did not see."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_score

    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - mean) / scale
    best = None
    for c in STRENGTHS:
        model = LogisticRegression(C=c, max_iter=2000)
        score = cross_val_score(model, z, y, groups=groups, cv=GroupKFold(5), scoring="neg_log_loss").mean()
        log(f"  C={c}: cross-validated log-loss {-score:.4f}")
        if best is None or score > best[0]:
            best = (score, c)
    model = LogisticRegression(C=best[1], max_iter=2000).fit(z, y)
    return {
        "weights": [round(float(w), 6) for w in model.coef_[0]],
        "bias": round(float(model.intercept_[0]), 6),
        "mean": [round(float(m), 6) for m in mean],
        "scale": [max(round(float(s), 6), 1e-6) for s in scale],
        "C": best[1],
        "rows": len(y),
    }
