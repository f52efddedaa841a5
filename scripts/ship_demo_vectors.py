"""Write the demo campaign's shipped vectors (data/demo/notes/.chronicler/vectors.npz).

Run after changing the demo notes, the chunking defaults or the default embedding model:
`.venv/bin/python scripts/ship_demo_vectors.py`. A newcomer's first start then indexes the demo without
embedding it (rag/ingest/shipped_vectors.py); passages that changed since are embedded as usual.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.config import load_config  # noqa: E402
from rag.embedders import get_embedder  # noqa: E402
from rag.ingest import shipped_vectors  # noqa: E402
from rag.ingest.indexing import prepare_chunks  # noqa: E402

config = load_config()
notes = config.resolve(config.notes_dir)
chunks, _, _ = prepare_chunks(config, notes, config.campaign)
embedder = get_embedder(config.embedding)
texts = sorted({c.text for c in chunks})
path = shipped_vectors.write(notes, texts, embedder.embed_batch(texts), embedder.name)
print(f"wrote {len(texts)} vectors to {path} ({path.stat().st_size // 1024} KB)")
