"""`python tests/fake_cli.py …` runs `python -m rag …` with the fake embedder registered (``embedding.backend:
fake``), so a test can run the CLI in a subprocess (and kill it) without loading a model."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag import registry  # noqa: E402
from rag.cli import main  # noqa: E402
from tests.fakes import FakeEmbedder  # noqa: E402

if __name__ == "__main__":
    registry.register("embedders", "fake", FakeEmbedder)
    sys.exit(main(sys.argv[1:]))
