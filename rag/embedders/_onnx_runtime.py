"""Run a sentence-transformers model with onnxruntime: the same vectors, a third of the query time.

Why: embedding one question with PyTorch takes ~23 ms on these 2 cores, mostly per-layer overhead on
tiny matrices; onnxruntime does the same forward pass in ~7 ms (docs/BENCHMARKS.md), which is what a
hybrid query's latency budget needs. Throughput on big indexing batches is the same for both.

The model is exported once with ``torch.onnx`` (whole sentence-transformers chain: transformer, pooling,
normalisation) into a cache folder, checked against the PyTorch model on probe texts, and reused by
every later process, which then needs neither ``torch`` nor ``sentence_transformers`` (~10 s of imports).
Anything that goes wrong raises ``OnnxUnavailable`` and the caller falls back to PyTorch.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

EXPORT_VERSION = 1  # bump when the export changes: old cache folders are then ignored
PROBES = [
    "Who gave the party a map of the mines?",
    "Grog wins the bare-knuckle fight in Vasselheim, and Pike decides to stay behind to restore the "
    "temple of Sarenrae while the others travel on towards the Slayer's Take.",
    "x",
]
TOLERANCE = 1e-4  # largest allowed difference from PyTorch's vector, per component


class OnnxUnavailable(Exception):
    """The ONNX path cannot be used here; the message says why (for the log, not the player)."""


def cache_root(cache_dir: str | None = None) -> Path:
    """``embedding.cache_dir``, else ``~/.cache/chronicler/onnx`` (``$XDG_CACHE_HOME`` respected)."""
    if cache_dir:
        return Path(cache_dir).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "chronicler" / "onnx"


def cache_key(model_ref: str) -> str:
    """A folder's name, its files and their sizes: a changed model gets a new export."""
    h = hashlib.sha256(f"{EXPORT_VERSION}|{model_ref}".encode())
    folder = Path(model_ref)
    if folder.is_dir():
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                h.update(f"|{path.relative_to(folder)}:{path.stat().st_size}".encode())
    slug = "".join(ch if ch.isalnum() else "-" for ch in folder.name or model_ref)[:40]
    return f"{slug}-{h.hexdigest()[:16]}"


class OnnxEncoder:
    """Tokenizer (the ``tokenizers`` library) plus an onnxruntime session; vectors as PyTorch gives them."""

    def __init__(self, folder: Path):
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as err:
            raise OnnxUnavailable(f"onnxruntime is not installed ({err})") from None
        meta = json.loads((folder / "meta.json").read_text())
        self.dim = int(meta["dim"])
        self.inputs: list[str] = meta["inputs"]
        self.lower = bool(meta.get("do_lower_case"))
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=int(meta["max_seq_length"]))
        self.tokenizer.enable_padding(pad_id=int(meta["pad_id"]), pad_token=meta["pad_token"])
        options = ort.SessionOptions()
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Like ``SentenceTransformer.encode``: stripped texts, batched longest first to pad little."""
        texts = [str(t).strip().lower() if self.lower else str(t).strip() for t in texts]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = np.argsort([-len(t) for t in texts], kind="stable")
        for start in range(0, len(texts), batch_size):
            part = order[start : start + batch_size]
            encodings = self.tokenizer.encode_batch([texts[i] for i in part])
            fields = {
                "input_ids": [e.ids for e in encodings],
                "attention_mask": [e.attention_mask for e in encodings],
                "token_type_ids": [e.type_ids for e in encodings],
            }
            feed = {name: np.asarray(fields[name], dtype=np.int64) for name in self.inputs}
            out[part] = self.session.run(None, feed)[0]
        return out


def load_cached(model_ref: str, cache_dir: str | None = None) -> OnnxEncoder | None:
    """The cached export of ``model_ref``, or None when there is none yet (or it is damaged: removed, so the
    next export makes it again)."""
    folder = cache_root(cache_dir) / cache_key(model_ref)
    if not (folder / "meta.json").exists():
        return None
    try:
        return OnnxEncoder(folder)
    except OnnxUnavailable:
        raise
    except Exception:  # noqa: BLE001 - a damaged cache folder (cut-off copy, disk trouble): export again
        shutil.rmtree(folder, ignore_errors=True)
        return None


def onnx_usable() -> bool:
    """Whether onnxruntime can be imported at all (else there is no point exporting)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def load_or_export(model_ref: str, cache_dir: str | None = None) -> OnnxEncoder:
    """The cached export of ``model_ref``, made (and checked) when there is none."""
    cached = load_cached(model_ref, cache_dir)
    if cached is not None:
        return cached
    folder = cache_root(cache_dir) / cache_key(model_ref)
    export(model_ref, folder)
    return OnnxEncoder(folder)


def _dimension(model):
    return getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension


def export(model_ref: str, folder: Path) -> None:
    """Export into a temporary folder, check it, then rename it into place (two processes may race)."""
    try:
        import onnxruntime  # noqa: F401 - fail before the slow export when it cannot be used
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as err:
        raise OnnxUnavailable(f"cannot export: {err}") from None
    model = SentenceTransformer(model_ref, device="cpu").eval()
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None or not hasattr(tokenizer, "backend_tokenizer"):
        raise OnnxUnavailable("the model has no fast tokenizer")
    probe = model.preprocess(["probe"])
    inputs = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in probe]
    if inputs[:2] != ["input_ids", "attention_mask"]:
        raise OnnxUnavailable(f"unexpected model inputs {sorted(probe)}")

    class Chain(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *tensors):
            return self.model(dict(zip(inputs, tensors, strict=True)))["sentence_embedding"]

    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".export-", dir=folder.parent))
    except OSError as err:
        raise OnnxUnavailable(f"cannot write the export to {folder.parent}: {err.strerror}") from None
    try:
        sample = tuple(probe[n] for n in inputs)
        axes = {n: {0: "batch", 1: "tokens"} for n in inputs}
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on Python branches it fixes for these inputs
            torch.onnx.export(
                Chain().eval(),
                sample,
                str(tmp / "model.onnx"),
                input_names=inputs,
                output_names=["embedding"],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
        tokenizer.backend_tokenizer.save(str(tmp / "tokenizer.json"))
        transformer = model[0]
        (tmp / "meta.json").write_text(
            json.dumps(
                {
                    "model": model_ref,
                    "dim": int(_dimension(model)()),
                    "inputs": inputs,
                    "max_seq_length": int(model.max_seq_length),
                    "do_lower_case": bool(getattr(transformer, "do_lower_case", False)),
                    "pad_id": int(tokenizer.pad_token_id or 0),
                    "pad_token": str(tokenizer.pad_token or "[PAD]"),
                }
            )
        )
        expected = model.encode(PROBES, convert_to_numpy=True, show_progress_bar=False)
        got = OnnxEncoder(tmp).encode(PROBES)
        if not np.allclose(got, expected, atol=TOLERANCE):
            raise OnnxUnavailable(f"the export differs from PyTorch by {float(np.abs(got - expected).max()):.2g}")
        with contextlib.suppress(OSError):  # another process finished first: its export is as good
            tmp.rename(folder)
    except OnnxUnavailable:
        raise
    except Exception as err:  # noqa: BLE001 - export failures of any kind mean "use PyTorch"
        raise OnnxUnavailable(
            f"export failed: {str(err).splitlines()[0] if str(err) else type(err).__name__}"
        ) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
