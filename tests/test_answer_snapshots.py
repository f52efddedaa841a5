"""Every answer under snapshot: the demo's questions and every dev question set, answered offline by the default
pipeline, compared with the golden files in ``tests/snapshots/answers/``.

Why: the answerer changes often, and a change meant for one kind of question can move answers elsewhere. A
changed answer (its text, citations, confidence or why it was refused) fails here with a diff naming the
question; ``make snapshots`` writes the new answers, and the commit shows which moved. The dev sets sit in
``../shared`` (absent from a plain clone: those cases skip, the demo's always run).

The dev sets' passages are embedded at full precision, not at the product's default 8-bit precision: onnxruntime's
8-bit kernels differ by processor (a vector moved by up to .028, cosine .988, between this machine, which has
AVX-512 VNNI, and the same model run as an EPYC Milan without it under qemu), so a CI machine of another kind
changed an answer whose passages were nearly tied. Full precision gives the same vectors on both (within 1e-7),
so a changed snapshot means changed code. The demo keeps its shipped 8-bit vectors: read from disk, they are the
same everywhere, and they are what a player's demo answers come from.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest

from rag.config import load_config
from rag.measure.evaluation import indexed_corpora
from rag.measure.questions import load_questions
from rag.models import Filters
from rag.pipeline import Pipeline
from tests.helpers import SHARED

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "snapshots"
GOLDEN = SNAPSHOTS / "answers"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"
DEMO_NOTES = ROOT / "data" / "demo" / "notes"

# name → (notes folder, question file, one corpus per story folder?)
DEV_SETS = {
    "vault-toa": (SHARED / "vault-toa", SHARED / "vault-toa-questions.jsonl", False),
    "vault-toa-unanswerable": (SHARED / "vault-toa", ROOT / "docs/eval/questions/vault-toa-unanswerable.jsonl", False),
    "vault-strahd": (SHARED / "vault-strahd", SHARED / "vault-strahd-questions.jsonl", False),
    "crd3": (SHARED / "crd3-notes", SHARED / "crd3-questions.jsonl", False),
    "crd3-unanswerable": (SHARED / "crd3-notes", ROOT / "docs/eval/questions/crd3-unanswerable.jsonl", False),
    "fairytaleqa-val": (SHARED / "fairytaleqa" / "val", SHARED / "fairytaleqa-val.jsonl", True),
}
SLOW_SETS = {"crd3", "crd3-unanswerable", "fairytaleqa-val"}  # minutes of embedding: `make test` only


def record(qid: str, question: str, answer) -> dict:
    """What a player sees of an answer, and why it was refused: the fields a snapshot compares."""
    return {
        "id": qid,
        "question": question,
        "answer": answer.text,
        "citations": [c.label for c in answer.citations],
        "unresolved": [c.label for c in answer.citations if c.chunk_id is None],
        "confidence": answer.confidence,
        "refused": answer.refused,
        "why_refused": answer.trace.get("refusal_rule"),
    }


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory, real_embedder):
    data = tmp_path_factory.mktemp("snapshot-data")
    shared = Pipeline(load_config(overrides={"data_dir": str(data)}), embedder=real_embedder)
    yield shared
    shared.close()


@pytest.fixture(scope="module")
def full_precision_pipeline(tmp_path_factory):
    """Passages embedded as every processor embeds them (the module's docstring says why)."""
    data = tmp_path_factory.mktemp("snapshot-data-full")
    shared = Pipeline(load_config(overrides={"data_dir": str(data), "embedding.precision": "full"}))
    yield shared
    shared.close()


def answer_demo(pipeline: Pipeline) -> list[dict]:
    pipeline.index(DEMO_NOTES, "demo")
    rows = []
    for line in (SNAPSHOTS / "demo-questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        history = []
        if q.get("after"):
            history = [(q["after"], pipeline.answer(q["after"], "demo").text)]
        filters = Filters(session_max=q["session_max"]) if "session_max" in q else None
        rows.append(record(q["id"], q["question"], pipeline.answer(q["question"], "demo", filters, history)))
    return rows


def answer_set(pipeline: Pipeline, name: str) -> list[dict]:
    notes, questions, story_dirs = DEV_SETS[name]
    if not notes.is_dir() or not questions.is_file():
        pytest.skip(f"{name}: ../shared/data is not beside this checkout")
    rows = []
    for campaign, qs in indexed_corpora(pipeline, notes, load_questions(questions), story_dirs, lambda s: None):
        rows += [record(q.id, q.question, pipeline.answer(q.question, campaign)) for q in qs]
    return rows


def compare(name: str, rows: list[dict]) -> None:
    path = GOLDEN / f"{name}.jsonl"
    lines = [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows]
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return
    assert path.is_file(), f"No snapshot for {name}: run `make snapshots` and commit {path.relative_to(ROOT)}"
    golden = {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
    now = {r["id"]: r for r in rows}
    changed = [qid for qid in now if golden.get(qid) != now[qid]] + [qid for qid in golden if qid not in now]
    if changed:
        report = [f"{len(changed)} answer(s) of {name} changed (accept with `make snapshots`):"]
        for qid in changed[:20]:
            before = json.dumps(golden.get(qid), ensure_ascii=False, indent=1, sort_keys=True).splitlines()
            after = json.dumps(now.get(qid), ensure_ascii=False, indent=1, sort_keys=True).splitlines()
            report += [f"--- {qid}", *difflib.unified_diff(before, after, "golden", "now", lineterm="", n=0)]
        pytest.fail("\n".join(report), pytrace=False)


def test_demo_answers(pipeline):
    compare("demo", answer_demo(pipeline))


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.long) if n in SLOW_SETS else n for n in DEV_SETS], ids=list(DEV_SETS)
)
def test_dev_set_answers(full_precision_pipeline, name):
    compare(name, answer_set(full_precision_pipeline, name))
