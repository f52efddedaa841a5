"""Cross-encoder reranking (sentence-transformers ``CrossEncoder``), offline only.

No cross-encoder ships on PyPI and the machines have no hub access, so the configured model is usually
absent. We check for it *before* loading (a folder, or a snapshot in the local Hugging Face cache) and
raise ``ModelUnavailableError`` with the exact config line and download command that fix it: the caller
decides whether to show that or to retrieve without reranking. Nothing is downloaded at run time.
"""

from __future__ import annotations

import threading
from pathlib import Path

from rag.config import PROJECT_ROOT, RerankConfig
from rag.embedders.local import offline_env
from rag.errors import ModelUnavailableError
from rag.models import Hit
from rag.question import Question
from rag.rerankers import Reranker

DEFAULT_MODEL = "cross-encoder/ms-marco-MiniLM-L6-v2"
# Loaded models by resolved reference: every Pipeline (one per Streamlit rerun) shares one copy.
_MODELS: dict[str, object] = {}
_LOCK = threading.Lock()


def _local_folder(model: str) -> Path | None:
    """A config path is relative to the project folder (like every path in the config), or absolute."""
    p = Path(model).expanduser()
    for candidate in (p, PROJECT_ROOT / p) if not p.is_absolute() else (p,):
        if candidate.is_dir():
            return candidate
    return None


def _in_hf_cache(model: str) -> bool:
    """True when ``org/name`` has a snapshot with a config.json in the local Hugging Face cache."""
    if model.count("/") != 1 or model.startswith((".", "/", "~")):
        return False
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(model, "config.json")
    except Exception:  # noqa: BLE001 - a malformed repo id is simply "not cached"
        return False
    return isinstance(found, str)


def missing_model_error(model: str) -> ModelUnavailableError:
    is_hub_name = model.count("/") == 1 and not Path(model).expanduser().is_absolute()
    hub = model if is_hub_name else DEFAULT_MODEL
    folder = f"models/{Path(hub).name}"
    return ModelUnavailableError(
        f"The reranking model '{model}' is not on this computer (it is neither a folder nor in the local "
        "Hugging Face cache), and Chronicler never downloads models while it runs.",
        hint=(
            f"Fix: on a machine with network run `hf download {hub} --local-dir {folder}` "
            "(the `hf` command comes with `pip install huggingface_hub`), copy that folder into the project, "
            f"and set the config line `reranker.model: {folder}` (or `reranker.model: /path/to/folder`). "
            "Or use `reranker.backend: late-interaction` (offline, the packaged model) or `reranker.enabled: false`."
        ),
    )


def resolve_model(model: str) -> str:
    """The folder or cached hub name to load, or ModelUnavailableError saying how to get it."""
    model = (model or DEFAULT_MODEL).strip()
    folder = _local_folder(model)
    if folder is not None:
        return str(folder)
    if _in_hf_cache(model):
        return model
    raise missing_model_error(model)


class CrossEncoderReranker(Reranker):
    """Scores (question, passage) pairs jointly: slower than a bi-encoder, usually sharper."""

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 32):
        offline_env()
        self.model_ref = resolve_model(model)  # fails fast, before any slow import
        self.name = f"cross-encoder:{model or DEFAULT_MODEL}"
        self.batch_size = batch_size
        self._model = None

    @property
    def model(self):
        """Loaded on first use, once per process (loading takes seconds; the check above is instant)."""
        if self._model is None:
            with _LOCK:
                if self.model_ref not in _MODELS:
                    _MODELS[self.model_ref] = self._load()
            self._model = _MODELS[self.model_ref]
        return self._model

    def _load(self):
        try:
            from sentence_transformers import CrossEncoder

            return CrossEncoder(self.model_ref, device="cpu", local_files_only=True)
        except Exception as err:  # noqa: BLE001 - a broken folder is the same story for the user
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise ModelUnavailableError(
                f"Cannot load the reranking model '{self.model_ref}': {first}",
                hint=missing_model_error(self.model_ref).hint,
            ) from None

    def rerank(self, question: Question, hits: list[Hit]) -> list[float]:
        if not hits:
            return []
        chunks = [h.chunk for h in hits]
        scores = self.model.predict(
            [(question.text, c.text) for c in chunks],
            batch_size=self.batch_size,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return [float(s) for s in scores.reshape(len(hits), -1)[:, -1]]


def create(config: RerankConfig, embedder=None, answer=None) -> CrossEncoderReranker:
    return CrossEncoderReranker(config.model, config.batch_size)
