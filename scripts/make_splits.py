"""Split every dev question set into a *tune* part and a *test* part, once: ``docs/eval/splits.json``.

Why: the answerer's constants, the reranker and the expansion default were chosen on the same questions that gave
the headline numbers, and those numbers did not hold on vaults nobody had seen. From now on a choice looks at the
*tune* part only, and the *test* part reports. The rule is fixed and blind to any result: within each kind, the
questions in order of a hash of their id, alternately tune and test (FairytaleQA: whole stories, since a story is
its own small campaign). Run it again only when a question file gains questions; ids already split keep their part.

    python scripts/make_splits.py            # writes docs/eval/splits.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
OUT = ROOT / "docs" / "eval" / "splits.json"
SETS = {
    "vault-toa-questions": SHARED / "vault-toa-questions.jsonl",
    "vault-toa-unanswerable": ROOT / "docs/eval/questions/vault-toa-unanswerable.jsonl",
    "vault-strahd-questions": SHARED / "vault-strahd-questions.jsonl",
    "crd3-questions": SHARED / "crd3-questions.jsonl",
    "crd3-unanswerable": ROOT / "docs/eval/questions/crd3-unanswerable.jsonl",
    "fairytaleqa-val": SHARED / "fairytaleqa-val.jsonl",
    # a vault not in this repository: its questions' ids and kinds are in its locators (scripts/outside_questions.py)
    "vault-goblins-questions": ROOT / "docs/eval/questions/vault-goblins-locators.jsonl",
}


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def split(rows: list[dict]) -> dict[str, list[str]]:
    parts: dict[str, list[str]] = {"tune": [], "test": []}
    if all(r.get("story") for r in rows):  # FairytaleQA: whole stories
        stories = sorted({r["story"] for r in rows}, key=_hash)
        tune = set(stories[::2])
        for r in rows:
            parts["tune" if r["story"] in tune else "test"].append(r["id"])
    else:
        for kind in sorted({r["kind"] for r in rows}):
            ids = sorted((r["id"] for r in rows if r["kind"] == kind), key=_hash)
            parts["tune"] += ids[::2]
            parts["test"] += ids[1::2]
    return {part: sorted(ids) for part, ids in parts.items()}


def main() -> int:
    kept = json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() else {}
    out = {}
    for name, path in SETS.items():
        if not path.is_file():
            print(f"{name}: {path} is missing", file=sys.stderr)
            return 1
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        new = split(rows)
        old = kept.get(name, {})
        placed = {i: part for part, ids in old.items() for i in ids}
        for part in ("tune", "test"):  # a question already split keeps its part
            new[part] = sorted({i for i in new[part] if placed.get(i, part) == part} | set(old.get(part, [])))
        out[name] = new
        print(f"{name}: {len(new['tune'])} tune, {len(new['test'])} test", file=sys.stderr)
    lines = [
        f'  "{name}": {{"tune": {json.dumps(parts["tune"])}, "test": {json.dumps(parts["test"])}}}'
        for name, parts in out.items()
    ]
    OUT.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
