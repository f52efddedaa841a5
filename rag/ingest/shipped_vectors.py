"""Vectors shipped with a notes folder, so a first index need not embed what was embedded before.

``<notes>/.chronicler/vectors.npz`` maps a passage's words and the model's name to its vector (the folder is
hidden, so it is never read as notes). The demo campaign ships one: a newcomer's very first start would
otherwise spend ~22 s of its ~40 s embedding the demo notes on 2 cores (docs/BENCHMARKS.md). A passage whose
words or model differ from what was shipped finds no vector here and is embedded as usual, so a stale file
costs time, never correctness. ``scripts/ship_demo_vectors.py`` writes it.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)
FILE = Path(".chronicler") / "vectors.npz"


def vector_id(text: str, model: str) -> str:
    return hashlib.sha256(f"{model}\x1f{text}".encode()).hexdigest()[:24]


def load(notes_dir: str | Path, model: str, dim: int) -> dict[str, np.ndarray]:
    """The shipped vectors made by ``model`` (with ``dim`` components), by ``vector_id``; {} when there are
    none, or the file cannot be used (said in the log)."""
    path = Path(notes_dir) / FILE
    if not path.is_file():
        return {}
    try:
        with np.load(path, allow_pickle=False) as data:
            ids, vectors, made_by = data["ids"], data["vectors"], str(data["model"])
    except (OSError, ValueError, KeyError) as err:
        log.warning("Ignoring the shipped vectors in %s: %s", path, err)
        return {}
    if made_by != model or vectors.ndim != 2 or vectors.shape != (len(ids), dim):
        return {}
    return {str(i): v for i, v in zip(ids, vectors.astype(np.float32), strict=True)}


def write(notes_dir: str | Path, texts: Sequence[str], vectors: np.ndarray, model: str) -> Path:
    path = Path(notes_dir) / FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    ids = np.array([vector_id(t, model) for t in texts])
    np.savez_compressed(path, ids=ids, vectors=np.asarray(vectors, dtype=np.float32), model=np.array(model))
    return path
