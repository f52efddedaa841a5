"""The CLI on a tmp folder, run in-process as a user would run `python -m rag …`."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rag.cli import main
from rag.config import load_config
from rag.stores import get_store
from tests.fakes import FakeEmbedder

ROOT = Path(__file__).resolve().parent.parent
NOTE = """---
title: The Mines
---
# Session Start
## Below Kraghammer
- [[Foreman Herris]] gives them a map of the mines, and warns them about stitched goblins and slimes below.
- In [[Vasselheim]] the party asks the [[Osiris|Keeper of the Library]] about the Calamity and the old gods.
"""


@pytest.fixture
def vault(tmp_path, monkeypatch):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Session 2.md").write_text(NOTE)
    (notes / "Session 3.md").write_text(NOTE.replace("Herris", "Kima").replace("map", "sword"))
    (notes / "broken.md").write_bytes(b"\x00\x01\x02")
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    return notes


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_preprocess_index_search(vault, capsys):
    (vault / "To do.md").write_text("- [ ]\n- [ ]\n")  # a checklist never filled in: read, nothing to search
    code, out, _ = run(capsys, "preprocess", "--notes", str(vault))
    assert code == 0 and "3 notes" in out and "skipped: broken.md" in out

    code, out, err = run(capsys, "index", "--notes", str(vault), "--campaign", "mines")
    assert code == 0 and "added" in out and "skipped: broken.md: binary" in out.lower()
    assert "empty: To do.md: no text to index" in out  # not "unchanged" on its first reading

    code, out, _ = run(capsys, "index", "--notes", str(vault), "--campaign", "mines")
    assert code == 0 and "0 added, 0 updated, 0 deleted" in out and "empty: To do.md" in out

    code, out, _ = run(capsys, "search", "Vasselheim", "--campaign", "mines", "--mode", "keyword", "--json")
    assert code == 0
    hits = json.loads(out)["hits"]
    assert hits and "Vasselheim" in hits[0]["text"] and hits[0]["session"] in (2, 3)
    assert {"dense", "keyword"} & set(hits[0]["scores"])

    code, out, _ = run(capsys, "search", "map of the mines", "--campaign", "mines", "--session-max", "2")
    assert code == 0 and "rank" in out and "Session 3" not in out

    code, out, _ = run(capsys, "campaigns")
    assert "mines\t" in out and "passages" in out

    code, out, _ = run(capsys, "index", "--notes", str(vault), "--campaign", "Curse of Strahd")
    code, out, _ = run(capsys, "campaigns")
    assert "Curse of Strahd (curse-of-strahd)\t" in out  # the name as typed, and the one the store keeps


def test_reading_another_folder_into_a_campaign_asks_before_it_replaces_its_notes(vault, capsys, tmp_path):
    """A campaign mirrors one folder: `index --notes OTHER` used to delete what it held, with only a count."""
    run(capsys, "index", "--notes", str(vault), "--campaign", "mines")
    other = tmp_path / "other"
    other.mkdir()
    (other / "Session 9.md").write_text("# Session 9\n- The party sails to Port Damali on the Ruby Gull.\n")

    code, _, err = run(capsys, "index", "--notes", str(other), "--campaign", "mines")
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert str(vault) in err and "--replace" in err and "--campaign" in err
    code, out, _ = run(capsys, "search", "map of the mines", "--campaign", "mines", "--mode", "keyword", "--json")
    assert code == 0 and json.loads(out)["hits"]  # nothing was removed

    code, out, _ = run(capsys, "index", "--notes", str(other), "--campaign", "elsewhere")  # a campaign of its own
    assert code == 0 and "added" in out
    code, out, _ = run(capsys, "index", "--notes", str(other), "--campaign", "mines", "--replace")
    assert code == 0 and re.search(r"[1-9]\d* deleted", out), out
    code, out, _ = run(capsys, "search", "Ruby Gull", "--campaign", "mines", "--mode", "keyword", "--json")
    assert [h["session"] for h in json.loads(out)["hits"]] == [9]


def test_user_errors_are_one_line(vault, capsys, tmp_path):
    code, _, err = run(capsys, "index", "--notes", str(tmp_path / "missing"))
    assert code == 1 and err.startswith("error:") and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "search", "x", "--campaign", "never-indexed")
    assert code == 1 and "never-indexed" in err
    code, _, err = run(capsys, "search", "x", "--set", "retrieval.kk=3")
    assert code == 1 and "retrieval.kk" in err


def test_locked_store_is_explained(vault, capsys):
    holder = get_store(load_config())  # like the running app holding data/qdrant
    try:
        code, _, err = run(capsys, "index", "--notes", str(vault))
    finally:
        holder.close()
    assert code == 1 and "Stop the app" in err and "Traceback" not in err


def test_track_writes_a_run(vault, capsys, tmp_path):
    run(capsys, "index", "--notes", str(vault), "--campaign", "mines")
    code, _, err = run(capsys, "run", "who has the map?", "--campaign", "mines")
    assert code == 0
    runs = list((tmp_path / "data" / "runs").iterdir())
    assert len(runs) == 1 and {"config.json", "hits.json", "question.json", "timings.json"} <= {
        p.name for p in runs[0].iterdir()
    }


def test_module_entry_point_runs():
    """`python -m rag --help` works in a fresh interpreter (no heavy imports needed)."""
    proc = subprocess.run([sys.executable, "-m", "rag", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and "preprocess" in proc.stdout and "eval" in proc.stdout


def test_eval_on_a_tiny_set(vault, capsys, tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps(
            {
                "id": "1",
                "question": "Who gave them a map of the mines?",
                "sessions": [2],
                "evidence": ["gives them a map of the mines"],
                "kind": "fact",
            }
        )
        + "\n"
    )
    out_json = tmp_path / "out.json"
    code, out, _ = run(
        capsys,
        "eval",
        "--notes",
        str(vault),
        "--questions",
        str(questions),
        "--json",
        str(out_json),
        "--set",
        "retrieval.mode=keyword",
    )
    assert code == 0 and "hit@5" in out
    result = json.loads(out_json.read_text())
    assert result["n"] == 1 and result["overall"]["hit@1"] == 1.0 and result["overall"]["mrr@10"] == 1.0
    assert set(result) >= {"n", "overall", "by_kind", "config", "seconds"}
    (row,) = result["per_question"]  # a miss can be read: where the evidence and the right session were
    assert row["first_support"] == 1 and row["first_session"] == 1 and row["top"][0].startswith("Session 2")


def test_eval_refuses_evidence_given_as_one_string(vault, capsys, tmp_path):
    questions = tmp_path / "q.jsonl"
    good = {"id": "1", "question": "Who gave them a map?", "sessions": [2], "evidence": ["gives them a map"]}
    bad = {**good, "id": "2", "evidence": "gives them a map"}
    questions.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    code, out, err = run(capsys, "eval", "--notes", str(vault), "--questions", str(questions))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "q.jsonl, line 2: 'evidence' must be a list" in err


def test_story_dirs_eval(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    for story, word in (("fox", "cheese"), ("crow", "pebbles")):
        (tmp_path / "stories" / story).mkdir(parents=True)
        (tmp_path / "stories" / story / "Session 1.md").write_text(f"The {story} looked for {word} all day.\n")
        (tmp_path / "stories" / story / "Session 2.md").write_text(f"At last the {story} found the {word}.\n")
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        "\n".join(
            json.dumps(q)
            for q in [
                {
                    "id": "a",
                    "question": "What did the fox find at last?",
                    "sessions": [2],
                    "evidence": ["found the cheese"],
                    "kind": "fact",
                    "story": "fox",
                },
                {
                    "id": "b",
                    "question": "What did the crow find at last?",
                    "sessions": [2],
                    "evidence": ["found the pebbles"],
                    "kind": "fact",
                    "story": "crow",
                },
            ]
        )
    )
    code, out, _ = run(
        capsys,
        "eval",
        "--notes",
        str(tmp_path / "stories"),
        "--story-dirs",
        "--questions",
        str(questions),
        "--set",
        "retrieval.mode=keyword",
        "--k",
        "1",
    )
    assert code == 0
    assert out.splitlines()[1].split()[:3] == ["all", "2", "1.000"]


def test_nothing_outside_the_notes_folder_is_touched(vault, capsys, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("- the password is swordfish and it must never be indexed by anyone at all")
    (vault / "link.md").symlink_to(secret)
    _, indexed, _ = run(capsys, "index", "--notes", str(vault), "--campaign", "mines")
    assert "skipped: link.md: link outside the notes folder" in indexed
    code, out, _ = run(capsys, "search", "swordfish password", "--campaign", "mines", "--mode", "keyword", "--json")
    assert code == 0 and json.loads(out)["hits"] == []  # the words are nowhere in what was indexed


def test_bench_answer_reports_first_token_and_turns_without_touching_the_docs(vault, capsys):
    doc = ROOT / "docs" / "BENCHMARKS.md"
    before = doc.read_text(encoding="utf-8")
    code, out, _ = run(capsys, "bench", "answer", "--notes", str(vault), "--no-write")
    assert code == 0
    assert "question → first answer token" in out and "follow-up turn" in out and "extractive" in out
    assert doc.read_text(encoding="utf-8") == before


def test_bench_ingest_large_indexes_copies_each_with_its_own_words(vault, capsys):
    """The large-vault benchmark: every copy's passages are new words (none reused from another's vectors), an
    unchanged re-index embeds nothing, and the process's peak memory is reported."""
    code, one, _ = run(capsys, "bench", "ingest", "--notes", str(vault), "--no-write")
    passages = int(re.search(r"\| files / chunks \| \d+ / (\d+)", one).group(1))
    code, out, _ = run(capsys, "bench", "ingest-large", "--copies", "3", "--notes", str(vault), "--no-write")
    assert code == 0 and "3 copies of" in out and "peak memory of the process" in out
    assert re.search(rf"\| files / passages \| \d+ / {3 * passages} \|", out), out
    assert ", 0 passages embedded |" in out
    assert "PyTorch" not in one  # the reference runtime is measured for the local model only
    assert re.search(r"\| people and places [^|]*\| [\d.]+ s, [1-9]\d* names \|", one), one  # the cast's time too


def test_a_question_over_the_bound_is_one_line_and_exit_1(vault, capsys):
    run(capsys, "index", "--notes", str(vault), "--campaign", "mines")
    code, out, err = run(capsys, "search", "map " * 300, "--campaign", "mines")
    assert code == 1 and "ask it in at most" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["search", "map", "--set", "store.url=http://127.0.0.1:9", "--set", "store.backend=qdrant"], "Cannot reach"),
        (
            ["index", "--set", "embedding.backend=local", "--set", "embedding.model=/no/such/model"],
            "Cannot load the embedding model",
        ),
        (
            [
                "search",
                "map",
                "--rerank",
                "--set",
                "reranker.backend=cross-encoder",
                "--set",
                "reranker.model=/no/such",
            ],
            "reranking model",
        ),
        (["index", "--data", "{file}/data"], "Cannot"),
    ],
    ids=["qdrant-url-down", "embedding-model-wrong", "reranker-missing", "data-folder-unusable"],
)
def test_bad_configuration_and_missing_parts_are_one_line_each(vault, capsys, tmp_path, argv, said):
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    if argv[0] != "index" or "--data" not in argv:
        run(capsys, "index", "--notes", str(vault), "--campaign", "demo")
    argv = [a.replace("{file}", str(a_file)) for a in argv]
    if argv[0] == "index":
        argv += ["--notes", str(vault)]
    code, out, err = run(capsys, *argv, "--campaign", "demo")
    assert code == 1, (out, err)
    errors = [line for line in err.strip().splitlines() if line.startswith("error: ")]  # after any progress line
    assert len(errors) == 1 and said.lower() in errors[0].lower() and err.strip().endswith(errors[0]), err
    assert "Traceback" not in out + err


class InterruptedEmbedder(FakeEmbedder):
    """Ctrl-C while the second batch is read."""

    def embed_batch(self, texts):
        if self.calls == 1:
            raise KeyboardInterrupt
        return super().embed_batch(texts)


def test_ctrl_c_while_indexing_keeps_what_was_read_and_says_so(vault, capsys, monkeypatch, register_backend):
    register_backend("embedders", "interrupted", InterruptedEmbedder)
    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "interrupted")
    args = ["index", "--notes", str(vault), "--campaign", "stopped", "--set", "embedding.batch_size=1"]
    code, _, err = run(capsys, *args)
    assert code == 130
    assert "embedding [" in err and "0/2 · Session" in err  # the progress line names the note being read
    assert "stopped: 1 of 2 passages read and kept; run the same command again to read the rest" in err

    monkeypatch.setenv("CHRONICLER_EMBEDDING__BACKEND", "fake")
    code, out, err = run(capsys, *args)
    assert code == 0 and "1 added, 0 updated, 0 deleted, 1 unchanged" in out and "(1 already read)" in err
