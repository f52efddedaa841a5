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
    assert np.allclose(real_embedder.embed_query("A wyvern attacks."), vectors[1], atol=1e-5)
