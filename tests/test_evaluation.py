"""The metrics on a tiny hand-made set whose numbers are known."""

import json

import pytest

from rag.errors import ChroniclerError
from rag.measure.evaluation import aggregate, norm, score_question, supports
from rag.measure.questions import GoldQuestion, QuestionFileError, load_questions, parse_questions
from rag.models import Chunk, Hit


def chunk(session, text, position=0, campaign_no=None):
    return Chunk(
        campaign="t",
        source=f"Session {session}.md",
        position=position,
        text=text,
        name=f"Session {session} · Part {position + 1}",
        session=session,
        campaign_no=campaign_no,
    )


def hits(*chunks):
    return [Hit(c, 1.0 / (i + 1), i + 1) for i, c in enumerate(chunks)]


def test_norm_is_the_readme_rule():
    assert norm("Herris  gives them—a MAP!") == "herris gives them a map"


def test_support_needs_evidence_and_gold_session():
    q = GoldQuestion("q", "?", [2.0], ["a map of the mines"], "fact")
    assert supports(chunk(2, "Herris gives them a map of the mines."), q)
    assert not supports(chunk(3, "Herris gives them a map of the mines."), q)  # wrong session
    assert not supports(chunk(2, "Herris gives them a sword."), q)
    q1 = GoldQuestion("q", "?", [2.0], ["a map"], "fact", campaign=1)
    assert not supports(chunk(2, "a map", campaign_no=2), q1)  # campaigns reuse episode numbers


def test_metrics_on_known_ranking():
    q = GoldQuestion("q", "?", [2.0], ["the map"], "fact")
    ranked = hits(chunk(1, "nothing"), chunk(2, "still nothing", 1), chunk(2, "Here is the map.", 2))
    m = score_question(q, ranked, [1, 3, 5])
    assert m == {
        "hit@1": 0.0,
        "hit@3": 1.0,
        "hit@5": 1.0,
        "mrr@10": pytest.approx(1 / 3),
        "session_hit@1": 0.0,
        "session_hit@3": 1.0,
        "session_hit@5": 1.0,
    }


def test_multi_session_and_unanswerable():
    q = GoldQuestion("q", "?", [1.0, 4.0], [], "multi-session")
    m = score_question(q, hits(chunk(1, "a"), chunk(2, "b"), chunk(4, "c")), [1, 3])
    assert m["all_sessions@1"] == 0.0 and m["all_sessions@3"] == 1.0 and m["all_sessions@10"] == 1.0
    assert "hit@1" not in m  # no evidence: only session metrics count
    assert score_question(GoldQuestion("u", "?", [], [], "unanswerable"), hits(chunk(1, "a")), [1]) == {}


def test_aggregate_averages_only_questions_that_count():
    assert aggregate([{"hit@1": 1.0}, {"hit@1": 0.0, "session_hit@1": 1.0}, {}]) == {"hit@1": 0.5, "session_hit@1": 1.0}


def test_load_questions_reads_the_shared_format(tmp_path):
    path = tmp_path / "q.jsonl"
    rows = [
        {
            "id": "a",
            "question": "Who?",
            "answer": "x",
            "sessions": [2],
            "evidence": ["e"],
            "kind": "fact",
            "campaign": 1,
        },
        {"id": "b", "question": "Nope?", "answer": "", "sessions": [], "evidence": [], "kind": "unanswerable"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")
    qs = load_questions(path)
    assert [q.id for q in qs] == ["a", "b"] and qs[0].campaign == 1 and not qs[1].answerable


def test_bad_question_line_names_the_line(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "a", "question": "x"}\n{"question": "no id"}\n')
    with pytest.raises(ChroniclerError, match=r"q.jsonl, line 2: it has no 'id'"):
        load_questions(path)


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('["a list"]', "one JSON object"),
        ('{"question": "Who?"}', "no 'id'"),
        ('{"id": 1, "question": ""}', "no 'question'"),
        ('{"id": 1, "question": "Who?", "evidence": [3]}', "'evidence' must be a list"),
        ('{"id": 1, "question": "Who?", "sessions": [true]}', "'sessions' must be a list"),
    ],
)
def test_parse_questions_names_the_problem(line, says):
    with pytest.raises(QuestionFileError, match=f"q.jsonl, line 2: .*{says}"):
        parse_questions('{"id": 0, "question": "ok?"}\n' + line, "q.jsonl")


def test_parse_questions_duplicates_and_empty():
    with pytest.raises(QuestionFileError, match="line 3: the id 'a' is already used on line 1"):
        parse_questions('{"id": "a", "question": "x"}\n\n{"id": "a", "question": "y"}')
    with pytest.raises(QuestionFileError, match="holds no questions"):
        parse_questions("\n\n")
    with pytest.raises(QuestionFileError, match="not a text file"):
        parse_questions(b"\xff\xfe\x00bad")


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('{"id": 1, "question": "Who?", "evidence": "gives them a map"}', "'evidence' must be a list"),
        ('{"id": 1, "question": "Who?", "sessions": 2}', "'sessions' must be a list"),
        ('{"id": 1, "question": "Who?", "story": 3}', "'story' must be text"),
    ],
)
def test_a_wrong_type_is_refused_never_coerced(line, says):
    """Evidence as one string used to become single characters, so almost any gold passage 'supported' it."""
    with pytest.raises(QuestionFileError, match=f"q.jsonl, line 2: .*{says}"):
        parse_questions('{"id": 0, "question": "ok?"}\n' + line, "q.jsonl")
