"""The question stage: every example of ``rag/question/examples.yaml`` reads as the table says; a question is read
once per answer; no other part of the library reads question text with patterns of its own; and the stages that
take a question take the ``Question`` value."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
import yaml

from rag import question as question_package
from rag.config import load_config
from rag.pipeline import Pipeline
from rag.question import Attribute, StoryOrder, read_question
from tests.helpers import VAULT, write_notes

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = yaml.safe_load((ROOT / "rag" / "question" / "examples.yaml").read_text(encoding="utf-8"))
SETS = {"verbs", "question_words", "done_to"}  # fields the table lists in any order
TUPLES = {"names", "asked_names", "sessions_named", "session_mentions"}


def expected(field: str, value):
    if value is None:
        return None
    if field == "attribute":
        return Attribute(**value)
    if field == "order":
        return StoryOrder(**value)
    if field in SETS:
        return frozenset(value)
    if field in TUPLES:
        return tuple(value)
    return value


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["question"] for e in EXAMPLES])
def test_each_example_reads_as_the_table_says(example):
    read = read_question(example["question"])
    for field, value in example.items():
        if field != "question":
            assert getattr(read, field) == expected(field, value), field


def test_the_table_covers_every_pattern_module():
    """A pattern module without examples is a pattern nobody can check."""
    fields = {field for example in EXAMPLES for field in example}
    assert {"kind", "subject", "verbs", "role", "owner_of", "counted", "attribute", "leans_back", "order"} <= fields
    assert len(EXAMPLES) >= 60


@pytest.fixture
def counted_reads():
    """How many times ``read_question`` runs while the body of the ``with`` block runs (this thread only)."""
    target = read_question.__code__
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is target:
            calls.append(frame.f_locals.get("text"))

    sys.setprofile(profile)
    yield calls
    sys.setprofile(None)


def test_a_question_is_read_once_per_answer(tmp_path, counted_reads):
    config = load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake"})
    pipeline = Pipeline(config)
    try:
        pipeline.index(write_notes(tmp_path / "v", VAULT), "v")
        counted_reads.clear()
        pipeline.answer("Which bear did Vex tame?", "v")
        assert counted_reads == ["Which bear did Vex tame?"]  # search, rerank, expansion and answer share it
        counted_reads.clear()
        pipeline.answer("What did she do next?", "v", history=[("Who is Vex?", "A ranger.")])
        # typed; the earlier turn, for whom it named as the campaign reads it ("who is vex" names Vex); rewritten
        assert counted_reads == ["What did she do next?", "Who is Vex?", "What did Vex do next?"]
    finally:
        pipeline.close()


def test_a_question_typed_on_a_phone_or_in_capitals_is_the_same_question(tmp_path):
    """Phones curl apostrophes and quotes: "Who’s Vex?" asks what "Who's Vex?" asks, and gets the same answer; so
    does a question typed in capitals."""
    assert read_question("Who’s Vex’s bear?") == read_question("Who's Vex's bear?")
    assert read_question("What did “the Keeper” say?") == read_question('What did "the Keeper" say?')
    assert (
        read_question("WHO GAVE US THE MAP?")
        == read_question("Who Gave Us The Map?")
        == read_question("who gave us the map?")
    )
    for as_typed in ("Who is Lady Kima?", "What happened at The Pig Pits?", "Vox Machina?", "Who is the BBEG?"):
        assert read_question(as_typed).text == as_typed  # capitals that say what it names
    config = load_config(overrides={"store.path": ":memory:", "embedding.backend": "fake"})
    pipeline = Pipeline(config)
    try:
        pipeline.index(write_notes(tmp_path / "v", VAULT), "v")
        curled, straight = (
            pipeline.answer(q, "v") for q in ("Which bear did Vex’s party tame?", "Which bear did Vex's party tame?")
        )
        assert (curled.text, curled.citations) == (straight.text, straight.citations)
        # caps lock, or every word capitalised: the capitals say nothing, and the question is read as a chat is
        chat = pipeline.answer("which bear did vex tame?", "v")
        for shouted in ("WHICH BEAR DID VEX TAME?", "Which Bear Did Vex Tame?"):
            answer = pipeline.answer(shouted, "v")
            assert (answer.text, answer.citations) == (chat.text, chat.citations), shouted
        assert "Trinket" in chat.text and not chat.refused
    finally:
        pipeline.close()


def test_a_possessive_typed_without_its_apostrophe_is_read_by_the_campaigns_names():
    """ "whats the name of vexs bear": the notes write Vex as a name and never "vexs", so it is Vex's bear."""
    read = read_question("whats the name of vexs bear", {"vex": True, "bear": False})
    assert read.names == ("Vex",) and read.attribute == Attribute(shape="name", thing="bear", owner="Vex")
    assert read_question("whats the name of vexs bear", {"vexs": True}).names == ("Vexs",)  # a name of its own


def test_a_word_typed_a_letter_off_is_the_word_it_misspells():
    """ "wat happend in sesion 29": a chat is typed fast. Read as names, "Happend" was searched for and the answer
    said the notes never mention it; read as the words meant, it asks for Session 29's recap. A word a letter off a
    name the notes write stays a name (the spelling stage reads "strhad" as Strahd), and without the campaign's
    names nothing is respelt ("strahd" is a letter off "strand")."""
    campaign = {"haskell": True, "strahd": True, "greatsword": False}
    read = read_question("wat happend in sesion 29", campaign)
    assert (read.kind, read.sessions_named, read.names) == ("recap", (29.0,), ())
    assert read_question("who is strhad", campaign).names == ("Strhad",)
    assert read_question("who is strahd", {}).names == ("Strahd",)
    assert read_question("did haskell get the greatsword", campaign).names == ("Haskell",)


# -- nothing outside rag/question reads question text ------------------------------------------------------

LIBRARY = [p for p in (ROOT / "rag").rglob("*.py") if "question" not in p.relative_to(ROOT / "rag").parts[:1]]
_REGEX_METHODS = {"search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"}
# Entry points that take the text a player typed and read it (``Pipeline.read``); everything below takes a Question
_TEXT_ENTRIES = {("pipeline.py", "search"), ("pipeline.py", "ask"), ("pipeline.py", "answer"), ("pipeline.py", "read")}


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def test_no_pattern_outside_the_question_package_is_matched_against_a_question():
    found = []
    for path in LIBRARY:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            regex = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            if regex and node.func.attr in _REGEX_METHODS and any("question" in _names(a) for a in node.args):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node)[:80]}")
    assert found == []


def test_the_stages_take_the_question_read_not_its_text():
    """A parameter called ``question`` is a ``Question`` everywhere below the pipeline's own entry points."""
    found = []
    for path in LIBRARY:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef) or (path.name, node.name) in _TEXT_ENTRIES:
                continue
            for arg in node.args.args + node.args.kwonlyargs:
                if arg.arg == "question" and (arg.annotation is None or "Question" not in ast.unparse(arg.annotation)):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}({arg.arg})")
    assert found == []


def test_the_question_package_imports_only_the_words_below_it():
    """The reading sits low in the library: it knows words, not passages, stores or stages."""
    allowed = {"rag.names", "rag.question"}
    for path in Path(question_package.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rag"):
                assert any(node.module == a or node.module.startswith(a + ".") for a in allowed), (path, node.module)
