"""Rebuild the held-out question set (vault-ryboure) from its locators and the vault, which is not in this repository.

Why held out: the defaults were tuned on vault-toa, CRD3 and FairytaleQA, and their numbers did not carry to real
vaults nobody had seen. This set checks that: no choice may look at it (docs/EVALUATION.md says which numbers
come from it). The vault is a public player vault without a licence, so neither it nor its text is here: the
questions (written in our own words, without looking at the product) are, with each evidence span given as its
place in a file of the vault at commit a0f906e.

    git clone https://github.com/zeal0u5/ryboureCampaign ../heldout/vault-ryboure
    git -C ../heldout/vault-ryboure checkout a0f906e
    python scripts/heldout_questions.py ../heldout/vault-ryboure > ../heldout/vault-ryboure-questions.jsonl
    python -m rag eval --notes ../heldout/vault-ryboure --questions ../heldout/vault-ryboure-questions.jsonl --answers

Stdlib only. Exits 1 with a message when a file is missing or an offset does not fit (another commit).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

LOCATORS = Path(__file__).resolve().parent.parent / "docs" / "eval" / "questions" / "vault-ryboure-locators.jsonl"


def rebuild(vault: Path, locators: Path = LOCATORS) -> list[dict]:
    """The question records with each evidence locator ({file, start, end}) replaced by the text it points at."""
    texts: dict[str, str] = {}
    out = []
    for number, line in enumerate(locators.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        evidence = []
        for place in record.get("evidence", []):
            name, start, end = place.get("file"), place.get("start"), place.get("end")
            if name not in texts:
                path = vault / name
                if not path.is_file():
                    raise SystemExit(f"line {number} ({record.get('id')}): {path} is missing: is this the vault?")
                texts[name] = path.read_text(encoding="utf-8")
            text = texts[name]
            if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(text)):
                raise SystemExit(
                    f"line {number} ({record.get('id')}): {name}[{start}:{end}] does not fit: commit a0f906e?"
                )
            evidence.append(text[start:end])
        record["evidence"] = evidence
        out.append(record)
    return out


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python scripts/heldout_questions.py VAULT_DIR > questions.jsonl", file=sys.stderr)
        return 1
    for record in rebuild(Path(sys.argv[1])):
        print(json.dumps(record, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
