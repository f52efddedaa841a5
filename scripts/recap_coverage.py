"""Recap coverage on the shared vaults, for docs/EVALUATION.md: `.venv/bin/python scripts/recap_coverage.py`.

For every numbered session of each vault: the recap's lines (rag.campaign.recap), the share of the session's
scenes (headings with passages) that have a line, and whether every line cites a passage of that session.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.campaign.entities import session_key  # noqa: E402
from rag.campaign.recap import coverage, recap_session  # noqa: E402
from rag.campaign.timeline import timeline  # noqa: E402
from rag.config import load_config  # noqa: E402
from rag.ingest.indexing import prepare_chunks  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
print(
    "| vault | sessions | lines per recap (min / mean / max) | scene coverage (mean) | sessions fully covered | citation precision |"
)
print("|---|---|---|---|---|---|")
for name in ("vault-toa", "crd3-notes"):
    chunks, _, _ = prepare_chunks(load_config(), SHARED / name, name)
    by_id = {c.id: c for c in chunks}
    entries = timeline(chunks)
    lines = [recap_session(chunks, e.key) for e in entries]
    covered = [coverage(chunks, e.key, x) for e, x in zip(entries, lines, strict=True)]
    cited = [session_key(by_id[line.chunk_id]) == e.key for e, x in zip(entries, lines, strict=True) for line in x]
    counts = [len(x) for x in lines]
    print(
        f"| {name} | {len(entries)} | {min(counts)} / {sum(counts) / len(counts):.1f} / {max(counts)} | "
        f"{sum(covered) / len(covered):.3f} | {sum(c == 1.0 for c in covered) / len(covered):.3f} | "
        f"{sum(cited) / len(cited):.3f} |"
    )
