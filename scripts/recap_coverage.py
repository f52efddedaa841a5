"""Recap coverage on the shared vaults, for docs/experiments/history.md: `.venv/bin/python scripts/recap_coverage.py`.

For every numbered session of each vault (and the demo): the recap's lines (rag.campaign.recap), the share of the
session's story scenes (headings with passages that are not table talk) that have a line, whether every line cites
a passage of that session, and how many lines are table talk (rag.campaign.table_talk: announcements, the break, a
"previously on…"; only sessions with nothing else keep them).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rag.campaign.entities import entity_index, session_key  # noqa: E402
from rag.campaign.recap import coverage, recap_session  # noqa: E402
from rag.campaign.table_talk import TableTalk  # noqa: E402
from rag.campaign.timeline import timeline  # noqa: E402
from rag.config import load_config  # noqa: E402
from rag.ingest.indexing import prepare_chunks  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
VAULTS = {
    "demo": ROOT / "data" / "demo" / "notes",
    "vault-toa": SHARED / "vault-toa",
    "crd3-notes": SHARED / "crd3-notes",
}
print(
    "| vault | sessions | lines per recap (min / mean / max) | story-scene coverage (mean) | sessions fully covered "
    "| citation precision | table-talk lines (sessions with nothing else) |"
)
print("|---|---|---|---|---|---|---|")
for name, folder in VAULTS.items():
    if not folder.is_dir():
        continue
    config = load_config()
    chunks, _, _ = prepare_chunks(config, folder, name)
    by_id = {c.id: c for c in chunks}
    talk = TableTalk(chunks, entity_index(chunks), config.table_talk)
    entries = timeline(chunks)
    lines = [recap_session(chunks, e.key, talk) for e in entries]
    covered = [coverage(chunks, e.key, x, talk) for e, x in zip(entries, lines, strict=True)]
    cited = [session_key(by_id[line.chunk_id]) == e.key for e, x in zip(entries, lines, strict=True) for line in x]
    counts = [len(x) for x in lines]
    told = [sum(talk.line(by_id[line.chunk_id], line.text) for line in x) for x in lines]
    only_talk = sum(1 for e in entries if all(talk.passage(c) for c in chunks if session_key(c) == e.key))
    print(
        f"| {name} | {len(entries)} | {min(counts)} / {sum(counts) / len(counts):.1f} / {max(counts)} | "
        f"{sum(covered) / len(covered):.3f} | {sum(c == 1.0 for c in covered) / len(covered):.3f} | "
        f"{sum(cited) / len(cited):.3f} | {sum(told)} of {sum(counts)} ({only_talk}) |"
    )
