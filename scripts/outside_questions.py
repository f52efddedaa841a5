"""Rebuild the question set of a vault that is not in this repository, from its locators and the vault.

These vaults are public players' and GMs' notes without a licence, so neither a vault nor its text is here: its
questions (written in our own words, by helpers who never saw the product) are, in
``docs/eval/questions/<vault folder>-locators.jsonl``, with each evidence span given as its place in a file of the
vault at one commit. Two are held out: the defaults were tuned on vault-toa, CRD3 and FairytaleQA, and their
numbers did not carry to real vaults nobody had seen, so no choice may look at these (docs/EVALUATION.md says which
numbers come from them). One is a dev vault, split into tune and test like the others (docs/eval/splits.json).
Eleven are training vaults: data for learned decisions and for measuring an idea before the tune parts see it; no
headline number comes from them (docs/eval/questions/README.md).

    held out  vault-ryboure         https://github.com/zeal0u5/ryboureCampaign        a0f906e
    held out  vault-lightingale     https://github.com/n1ckd/LightingaleNotes         f67e6ce91fac07adf313d9c11ef93111c6cf1aab
    dev       vault-goblins         https://github.com/thegavs/gavs-goblins           40807740b7203ddbd679edafa4c65c523b070978
    training  vault-thread-pullers  https://github.com/lukasparsons/thread-pullers-wiki a5afbf923ef93487032c8fe49b9e1510b9732da5
    training  vault-mink-pendleham  https://github.com/Solonarv/rpg-notes-mink-pendleham 7cf35036a087746d6f4de5155b8713088675221a
    training  vault-nova            https://github.com/peebsw/Nova-Sessions           b17b158aad6deec49ec615190f42df055c8ea502
    training  vault-l5r             https://github.com/gage1145/L5R                   f5e2990a72f41d682e48c37850531fd444f11ce3
    training  vault-cos-bahodge     https://github.com/bahodge/curse_of_strahd        b660db5c7d28b06da19ef8283fa8a131dbecb084
    training  vault-osaka           https://github.com/dexterbrye/shadowsofosaka      8637dc4a1bf961fb4544b0912e6f42fd19628653
    training  vault-tyranny         https://github.com/harry353/ToD-Notes             2f9f1d2377397751916da66659d345f2df4db442
    training  vault-icbm            https://github.com/QuadraticKing/ICBM_Notes       2d4eda36ac476241f377c401ac9349374e7861ef
    training  vault-krynn           https://github.com/iamalexalvizo1/Krynn           b60272e55adb20f82d50e7da7fe716a80d72476c
    training  vault-kingmaker       https://github.com/Solonarv/lud-kingmaker-notes   e4ed6c5a4d78996555e8159a61d8bebc97dd17ae
    training  vault-carminus        https://github.com/nERD8932/Obsidian              9ed06a0c000fb1e1b57074ddb06ad6db2affb51d

    git clone https://github.com/zeal0u5/ryboureCampaign ../heldout/vault-ryboure
    git -C ../heldout/vault-ryboure checkout a0f906e
    python scripts/outside_questions.py ../heldout/vault-ryboure > ../heldout/vault-ryboure-questions.jsonl
    python -m rag eval --notes ../heldout/vault-ryboure --questions ../heldout/vault-ryboure-questions.jsonl --answers

(``make eval-heldout`` runs the held-out vaults found in ../heldout, ``make eval-devvaults`` the dev vaults found
in ../devvaults; the training vaults go in ../trainvaults.) Stdlib only. Exits 1 with a message when a file is
missing or an offset does not fit (another commit).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

QUESTIONS = Path(__file__).resolve().parent.parent / "docs" / "eval" / "questions"


def rebuild(vault: Path, locators: Path | None = None) -> list[dict]:
    """The question records with each evidence locator ({file, start, end}) replaced by the text it points at."""
    locators = locators or QUESTIONS / f"{vault.resolve().name}-locators.jsonl"
    if not locators.is_file():
        raise SystemExit(f"{locators} is missing: no questions for a vault named {vault.resolve().name}")
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
                    f"line {number} ({record.get('id')}): {name}[{start}:{end}] does not fit: the commit this script names?"
                )
            evidence.append(text[start:end])
        record["evidence"] = evidence
        out.append(record)
    return out


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python scripts/outside_questions.py VAULT_DIR > questions.jsonl", file=sys.stderr)
        return 1
    for record in rebuild(Path(sys.argv[1])):
        print(json.dumps(record, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
