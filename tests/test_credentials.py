"""Keys to real accounts in a shared vault are never read: a player's note on syncing the vault with git held a
GitHub token in plain text (vault-icbm), and nothing a GM shares may hand it out. The story's own passwords stay."""

from __future__ import annotations

import json

from rag.config import load_config
from rag.ingest.credentials import HIDDEN, hide_credentials
from rag.pipeline import Pipeline
from tests.helpers import write_notes

# Made up here, in the shapes the services give them: never real keys
GITHUB = "ghp_" + "Zq7Rk2Lm9Xw4Tb8Nc1Vd6Hs3Jf5Gp0Ya2EuK"
AWS = "AKIA" + "QW3ERTY7UIOP2ASD"
KEY_BODY = "MIIEpAIBAAKCAQEAx9Xo7h2QdMpq4TjL0cZyB1sw"
NOTES = {
    "Session 1.md": (
        "# Session 1\n- We meet Captain Reyes at the Salty Gull.\n- The password to the smugglers' den is "
        "'swordfish', and Reyes gives us the map.\n"
    ),
    "Notes on Git.md": (
        "Step 4: type git clone to copy the vault\nStep 11: Type git push.\n"
        f'\tIf you get prompted for a Password, input "{GITHUB}"\n'
        f"Backup bucket key {AWS} for the map scans\n"
        f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BODY}\n-----END RSA PRIVATE KEY-----\n"
        "Step 12: ask on Saturday if this does not work.\n"
    ),
}
LEAKS = (GITHUB, AWS, KEY_BODY, "ghp_", "PRIVATE KEY")


def test_a_key_is_hidden_where_it_stands_and_every_other_word_stays():
    text, found = hide_credentials(NOTES["Notes on Git.md"])
    assert found == ["GitHub Token", "AWS Access Key", "Private Key"]
    assert not any(leak in text for leak in LEAKS)
    assert text.count("\n") == NOTES["Notes on Git.md"].count("\n")  # every line where it was: citations hold
    assert f'input "{HIDDEN}"' in text and "Step 12: ask on Saturday" in text and "for the map scans" in text
    story = NOTES["Session 1.md"] + "Vex'ahlia and the Titanstone Knuckles, APEXdragons"
    assert hide_credentials(story) == (story, [])  # in-game passwords and the story's long names are no keys


def test_no_search_answer_or_list_of_the_app_holds_a_key(tmp_path):
    vault = write_notes(tmp_path / "vault", NOTES)
    pipeline = Pipeline(load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake"}))
    try:
        report = pipeline.index(vault, "table")
        said = {f.source: f.reason for f in report.per_file}
        assert said["Notes on Git.md"] == (
            "3 passwords or keys (GitHub Token, AWS Access Key, Private Key) hidden: keys to real accounts are "
            "never shown"
        )
        shown = [json.dumps([c.text, c.context, c.name]) for c in pipeline.chunks("table")]
        for question in ("What is the GitHub password?", "ghp_", "token", "What is the key to the backup bucket?"):
            answer = pipeline.answer(question, "table")
            hits = pipeline.search(question, "table").hits
            shown += [answer.text, json.dumps([h.chunk.text for h in hits])]
        shown.append(json.dumps([[e.name, *e.aliases] for e in pipeline.entities("table")]))
        assert not [leak for leak in LEAKS if any(leak in s for s in shown)]
        assert "swordfish" in " ".join(c.text for c in pipeline.chunks("table"))
    finally:
        pipeline.close()
