"""Run a sentence-transformers model with onnxruntime: the same vectors, a third of the query time.

Why: embedding one question with PyTorch takes ~23 ms on these 2 cores, mostly per-layer overhead on
tiny matrices; onnxruntime does the same forward pass in ~7 ms (docs/BENCHMARKS.md), which is what a
hybrid query's latency budget needs. Throughput on big indexing batches is the same for both.

The model is exported once with ``torch.onnx`` (whole sentence-transformers chain: transformer, pooling,
normalisation) into a cache folder, checked against the PyTorch model on probe texts, and reused by
every later process, which then needs neither ``torch`` nor ``sentence_transformers`` (~10 s of imports).
Anything that goes wrong raises ``OnnxUnavailable`` and the caller falls back to PyTorch.

``precision="int8"`` runs a copy of the export whose matrix weights are 8-bit integers, one scale per output
channel (onnxruntime's dynamic quantizer, made once beside the export): passages are embedded ~2x as fast on
these cores (docs/BENCHMARKS.md), finding the same passages within a question or two on the dev sets
(docs/EVALUATION.md, "Embedding precision"). Its vectors are close to, not the same as, full precision's (cosine
~.99), so the embedder names it in every passage's hash.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import tempfile
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

EXPORT_VERSION = 2  # bump when the export changes: old cache folders are then ignored
PROBES = [
    "Who gave the party a map of the mines?",
    "Grog wins the bare-knuckle fight in Vasselheim, and Pike decides to stay behind to restore the "
    "temple of Sarenrae while the others travel on towards the Slayer's Take.",
    "x",
]
TOLERANCE = 1e-4  # largest allowed difference from PyTorch's vector, per component
INT8_FLOOR = 0.95  # a quantized copy whose probe vectors fall below this cosine to full precision is not used
MODEL_FILES = {"full": "model.onnx", "int8": "model-int8.onnx"}


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

    def __init__(self, folder: Path, precision: str = "full", model_file: Path | None = None):
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
        self.precision = precision
        model = str(model_file or folder / MODEL_FILES[precision])
        self.session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Like ``SentenceTransformer.encode``: stripped texts, batched longest first to pad little.

        The 8-bit copy reads one text per call, whatever ``batch_size`` says: it scales its activations over
        everything in a call, so a passage read beside others got another vector (cosine down to .978 to the same
        passage read alone, 320 real passages), and which others depended on what else that run read. A campaign
        synced in two steps then searched otherwise than the same notes indexed at once (vault-ryboure: first
        passage .371 against .343, top 5 .743 against .800). Read alone, a passage's vector depends on its words
        only, and on these 2 cores reading one at a time is faster besides (196 passages/s against 146 at 32,
        no padding), as close to full precision (mean cosine .992 either way)."""
        texts = [str(t).strip().lower() if self.lower else str(t).strip() for t in texts]
        if self.precision == "int8":
            batch_size = 1
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


def load_cached(model_ref: str, cache_dir: str | None = None, precision: str = "full") -> OnnxEncoder | None:
    """The cached export of ``model_ref``, or None when there is none yet (or it is damaged: removed, so the
    next export makes it again). An int8 copy missing beside a full export is made now (~3 s)."""
    folder = cache_root(cache_dir) / cache_key(model_ref)
    if not (folder / "meta.json").exists():
        return None
    try:
        if precision == "int8":
            quantize(folder)
        return OnnxEncoder(folder, precision)
    except OnnxUnavailable:
        raise
    except Exception:  # noqa: BLE001 - a damaged cache folder (cut-off copy, disk trouble): export again
        shutil.rmtree(folder, ignore_errors=True)
        return None


def quantize(folder: Path) -> None:
    """``model-int8.onnx`` beside ``model.onnx``: every weight matrix of a MatMul as int8 with a scale per output
    channel (one scale per tensor loses too much: cosine ~.93 to full precision, measured), activations
    quantized on the fly. Checked on the probe texts against the full export; written under a temporary name and
    renamed, as the export is."""
    target = folder / MODEL_FILES["int8"]
    if target.exists():
        return
    try:
        from onnx import TensorProto
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as err:
        raise OnnxUnavailable(f"cannot quantize: {err}") from None
    tmp = folder / f".{target.name}.{os.getpid()}"
    try:
        # The quantizer's advice to pre-process the graph first would reach the player's log: left out, and
        # only the quantizer's records (a filter on the root logger, which it logs to)
        root, advice = logging.getLogger(), _FromFile("onnxruntime")
        root.addFilter(advice)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                quantize_dynamic(
                    folder / MODEL_FILES["full"],
                    tmp,
                    per_channel=True,
                    weight_type=QuantType.QInt8,
                    # a fused graph's operators' outputs have no inferred type: float
                    extra_options={"DefaultTensorType": TensorProto.FLOAT},
                )
        finally:
            root.removeFilter(advice)
        full = _unit(OnnxEncoder(folder).encode(PROBES))
        quantized = _unit(OnnxEncoder(folder, "int8", model_file=tmp).encode(PROBES))
        worst = float((full * quantized).sum(axis=1).min())
        if worst < INT8_FLOOR:
            raise OnnxUnavailable(f"the int8 copy is too far from full precision (cosine {worst:.3f})")
        with contextlib.suppress(OSError):  # another process finished first: its copy is as good
            tmp.rename(target)
    except OnnxUnavailable:
        raise
    except Exception as err:  # noqa: BLE001 - any failure means "use full precision"
        why = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise OnnxUnavailable(f"int8 copy failed: {why}") from None
    finally:
        tmp.unlink(missing_ok=True)


class _FromFile(logging.Filter):
    """Drops the log records written from files whose path contains ``part``."""

    def __init__(self, part: str):
        super().__init__()
        self.part = part

    def filter(self, record: logging.LogRecord) -> bool:
        return self.part not in record.pathname


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def onnx_usable() -> bool:
    """Whether onnxruntime can be imported at all (else there is no point exporting)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def load_or_export(model_ref: str, cache_dir: str | None = None, precision: str = "full") -> OnnxEncoder:
    """The cached export of ``model_ref``, made (and checked) when there is none."""
    cached = load_cached(model_ref, cache_dir, precision)
    if cached is not None:
        return cached
    folder = cache_root(cache_dir) / cache_key(model_ref)
    export(model_ref, folder)
    if precision == "int8":
        quantize(folder)
    return OnnxEncoder(folder, precision)


def _fuse(traced: Path, target: Path, model) -> None:
    """onnxruntime's transformer optimizer over the traced graph: attention, GELU and layer norms each become one
    operator (~15% faster at full precision, ~10% at int8, measured on these cores). A model it cannot read is
    kept as traced; either way the result is checked against PyTorch after."""
    config = getattr(getattr(model[0], "auto_model", None), "config", None)
    heads, hidden = getattr(config, "num_attention_heads", 0), getattr(config, "hidden_size", 0)
    if getattr(config, "model_type", "") == "bert" and heads and hidden:
        try:
            from onnxruntime.transformers import optimizer

            optimizer.optimize_model(str(traced), "bert", heads, hidden).save_model_to_file(str(target))
            return
        except Exception as why:  # noqa: BLE001 - the optimizer is best effort
            log.info("The exported model is not fused: %s", why)
    shutil.copyfile(traced, target)


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
    try:  # attention written out step by step, so onnxruntime can fuse it into one operator (_fuse)
        model = SentenceTransformer(model_ref, device="cpu", model_kwargs={"attn_implementation": "eager"}).eval()
    except Exception:  # noqa: BLE001 - a model that knows no eager attention: exported as it comes
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
                str(tmp / "traced.onnx"),
                input_names=inputs,
                output_names=["embedding"],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
        _fuse(tmp / "traced.onnx", tmp / "model.onnx", model)
        (tmp / "traced.onnx").unlink()
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
