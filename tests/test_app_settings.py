"""Settings' "Answers" and "Reranking" sections and the Campaign page's own evaluation, driven by AppTest.

Same setup as tests/test_app.py (its autouse fixture: tmp data dir and local.yaml, the fake embedder,
caches cleared). What a player sees is checked: a saved API key is written but never shown again, a bad
value changes nothing, the model test talks to the fake OpenAI-compatible server, the reranker status
names the fix, and the evaluation chart carries the numbers the evaluation computed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from app import campaign_eval
from app import state as app_state
from rag.config import load_config
from rag.errors import ConfigError
from rag.ingest.uploads import remember_source
from rag.measure.evaluation import evaluate
from rag.measure.questions import parse_questions
from rag.tracking import record_run
from tests.helpers import indexed, plotly, start, texts
from tests.llm_server import KEY

pytestmark = pytest.mark.usefixtures("app_env")

SECRET = "sk-very-secret-123"


def everything(at: AppTest) -> str:
    """Every element's proto and the widget values, as one string (where a leaked key would show)."""
    out = [str(at)]

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    out.extend(f"{k}={v!r}" for k, v in at.session_state.items())
    return "\n".join(out)


def choose_llm(at: AppTest, url: str, model: str = "known-model", key: str = "") -> None:
    at.radio(key="s_answer_backend").set_value("openai")
    at.run()
    at.text_input(key="s_answer_url").set_value(url)
    at.text_input(key="s_answer_model").set_value(model)
    if key:
        at.text_input(key="s_answer_key").set_value(key)


def saved(tmp_path: Path) -> dict:
    return yaml.safe_load((tmp_path / "local.yaml").read_text(encoding="utf-8"))


# -- answers ----------------------------------------------------------------------------------------------


def test_answer_provider_is_saved_and_the_key_never_shown(tmp_path):
    at = start("pages/settings.py")
    assert at.radio(key="s_answer_backend").value == "extractive"
    choose_llm(at, "http://localhost:11434/v1", "llama3.2", SECRET)
    at.number_input(key="s_answer_temp").set_value(0.3)
    at.run()
    assert SECRET in everything(at)  # typed and not yet saved: the check below would see a leak
    at.button(key="s_save_answer").click()
    at.run()
    assert "did not answer" in texts(at.warning)  # nothing listens there: saved only once confirmed
    at.button(key="s_save_answer_anyway").click().run()
    assert not at.exception and not at.error, texts(at.error)
    assert "Saved." in texts(at.success)
    answer = saved(tmp_path)["answer"]
    assert answer == {
        "backend": "openai",
        "base_url": "http://localhost:11434/v1",
        "model": "llama3.2",
        "temperature": 0.3,
    }
    assert SECRET not in (tmp_path / "local.yaml").read_text()  # keys go to the secrets file, not configs/
    assert SECRET in (tmp_path / "secrets.toml").read_text()
    assert load_config().answer.api_key == SECRET
    assert at.text_input(key="s_answer_key").value == ""
    assert SECRET not in everything(at)

    at = start("pages/settings.py")  # a new browser tab: the field is empty, the placeholder says why
    field = at.text_input(key="s_answer_key")
    assert field.value == "" and "saved (hidden)" in field.placeholder
    assert SECRET not in everything(at)

    at.checkbox(key="s_answer_forget").check()  # removing the key keeps the other settings
    at.button(key="s_save_answer").click()
    at.run()
    at.button(key="s_save_answer_anyway").click().run()
    assert load_config().answer.api_key is None and saved(tmp_path)["answer"]["model"] == "llama3.2"
    assert SECRET not in (tmp_path / "secrets.toml").read_text()


def test_offline_answerer_keeps_the_llm_settings(tmp_path):
    (tmp_path / "local.yaml").write_text("answer:\n  backend: openai\n  model: known-model\n", encoding="utf-8")
    at = start("pages/settings.py")
    at.radio(key="s_answer_backend").set_value("extractive")
    at.run()
    assert at.button(key="s_test_answer").disabled
    at.button(key="s_save_answer").click()
    at.run()
    assert saved(tmp_path)["answer"] == {"backend": "extractive", "model": "known-model"}


def test_bad_answer_value_is_rejected_and_changes_nothing(tmp_path):
    local = tmp_path / "local.yaml"
    local.write_text("answer:\n  temperature: 0.2\n", encoding="utf-8")
    before = local.read_bytes()
    at = start("pages/settings.py")
    choose_llm(at, "http://localhost:11434/v1", key=SECRET)
    at.number_input(key="s_answer_temp").set_value(5.0)
    at.button(key="s_save_answer").click()
    at.run()
    assert "answer.temperature" in texts(at.error)
    assert local.read_bytes() == before
    assert SECRET not in texts(at.error)


def test_bad_reranker_value_is_rejected_and_changes_nothing(tmp_path):
    local = tmp_path / "local.yaml"
    local.write_text("reranker:\n  candidates: 10\n", encoding="utf-8")
    before = local.read_bytes()
    at = start("pages/settings.py")
    at.number_input(key="s_rr_candidates").set_value(5000)
    at.button(key="s_save_reranker").click()
    at.run()
    assert "reranker.candidates" in texts(at.error)
    assert local.read_bytes() == before


def test_unknown_backends_are_named_when_the_config_loads():
    with pytest.raises(ConfigError, match="reranker.backend.*magic.*late-interaction"):
        load_config(overrides={"reranker.backend": "magic"})
    with pytest.raises(ConfigError, match="answer.backend.*gpt.*extractive"):
        load_config(overrides={"answer.backend": "gpt"})
    with pytest.raises(ConfigError, match="store.backend"):
        load_config(overrides={"store.backend": "sqlite"})
    config = load_config(overrides={"reranker.backend": "late-interaction", "answer.backend": "openai"})
    assert (config.reranker.backend, config.answer.backend) == ("late-interaction", "openai")


def test_reranker_saved(tmp_path):
    at = start("pages/settings.py")
    at.selectbox(key="s_rr_backend").set_value("late-interaction")
    at.number_input(key="s_rr_candidates").set_value(30)
    at.toggle(key="s_rr_enabled").set_value(True)
    at.run()
    assert "Built in" in texts(at.info)
    at.button(key="s_save_reranker").click()
    at.run()
    assert saved(tmp_path)["reranker"] == {"backend": "late-interaction", "candidates": 30, "enabled": True}
    assert load_config().reranker.backend == "late-interaction"


def test_the_faster_reading_switch_saves_the_embedding_precision(tmp_path):
    """Advanced › Search model: "Read notes twice as fast" is int8 passages (the default); off is full precision.
    It is offered for the built-in model only."""
    at = start("pages/settings.py")
    at.selectbox(key="s_backend").set_value("openai").run()
    assert not [t for t in at.toggle if t.key == "s_int8"]  # another service's model has no 8-bit copy
    at.selectbox(key="s_backend").set_value("local").run()
    assert at.toggle(key="s_int8").value is True
    at.toggle(key="s_int8").set_value(False)
    at.button(key="s_save_embedding").click()
    at.run()
    assert not at.error and saved(tmp_path)["embedding"]["precision"] == "full"
    assert load_config().embedding.precision == "full"


@pytest.mark.parametrize(
    ("toggle", "weight", "default"),
    [("s_context", "context_weight", 1.0), ("s_first_mention", "first_mention_weight", 4.0)],
)
def test_fusion_stages_can_be_switched_off_and_on_again(tmp_path, toggle, weight, default):
    """Nearby words and first mentions: off saves a weight of 0 and leaves the other stages alone."""
    at = start("pages/settings.py")
    assert at.toggle(key=toggle).value is True
    at.toggle(key=toggle).set_value(False)
    at.button(key="s_save_retrieval").click()
    at.run()
    assert saved(tmp_path)["retrieval"][weight] == 0.0 and getattr(load_config().retrieval, weight) == 0
    assert load_config().retrieval.keyword_weight == 2.0
    at.toggle(key=toggle).set_value(True)
    at.button(key="s_save_retrieval").click()
    at.run()
    assert getattr(load_config().retrieval, weight) == default


# -- "Test the answer model" against tests/llm_server.py ---------------------------------------------------------


def test_answer_model_test_succeeds_with_a_good_key(llm_server):
    at = start("pages/settings.py")
    choose_llm(at, llm_server, key=KEY)
    at.button(key="s_test_answer").click()
    at.run()
    assert not at.exception and not at.error, texts(at.error)
    assert "'known-model' answered" in texts(at.success)


def test_answer_model_test_uses_the_saved_key(llm_server):
    at = start("pages/settings.py")
    choose_llm(at, llm_server, key=KEY)
    at.button(key="s_save_answer").click()
    at.run()
    at.button(key="s_test_answer").click()  # the key field is empty again: the saved key is used
    at.run()
    assert "'known-model' answered" in texts(at.success), texts(at.error)
    assert KEY not in everything(at)


def test_answer_model_test_fails_with_one_sentence_for_a_wrong_key(llm_server):
    at = start("pages/settings.py")
    choose_llm(at, llm_server, key="sk-wrong-key-456")
    at.button(key="s_test_answer").click()
    at.run()
    assert not at.exception and not at.success
    (error,) = at.error
    assert error.value.startswith("The answer model did not answer: The LLM server rejected the API key.")
    assert "sk-wrong-key-456" not in error.value and "Traceback" not in error.value
    assert "\n" not in error.value


def test_answer_model_test_names_an_unknown_model(llm_server):
    at = start("pages/settings.py")
    choose_llm(at, llm_server, model="no-such-model", key=KEY)
    at.button(key="s_test_answer").click()
    at.run()
    assert "'no-such-model' does not exist" in texts(at.error)


# -- reranker status ------------------------------------------------------------------------------------------


def test_reranker_status_says_the_model_is_missing_with_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_RERANKER__BACKEND", "cross-encoder")
    monkeypatch.setenv("CHRONICLER_RERANKER__MODEL", str(tmp_path / "no-such-model"))
    at = start("pages/settings.py")
    status = texts(at.warning)
    assert "is not on this computer" in status
    assert "hf download" in status and "reranker.model" in status  # the fix
    (tmp_path / "my-reranker").mkdir()
    at.text_input(key="s_rr_model").set_value(str(tmp_path / "my-reranker"))
    at.run()
    assert "on this computer: " in texts(at.success) and "not on this computer" not in texts(at.warning)


def test_rating_passages_with_the_language_model_is_not_offered_and_a_saved_choice_says_why(monkeypatch):
    """Measured with a real small model, it put the answering passage lower (docs/EVALUATION.md): not a choice on
    the page; a config file that still asks for it is shown, with why to change it."""
    at = start("pages/settings.py")
    assert not any("language model" in option for option in at.selectbox(key="s_rr_backend").options)
    monkeypatch.setenv("CHRONICLER_ANSWER__BACKEND", "openai")
    monkeypatch.setenv("CHRONICLER_ANSWER__MODEL", "known-model")
    monkeypatch.setenv("CHRONICLER_RERANKER__BACKEND", "llm")
    at = start("pages/settings.py")
    assert at.selectbox(key="s_rr_backend").value == "llm"
    assert "Not recommended" in texts(at.warning) and "Choose Built in" in texts(at.warning)


def test_tracked_runs_mask_the_answer_key(tmp_path, monkeypatch):
    monkeypatch.setenv("CHRONICLER_ANSWER__API_KEY", SECRET)
    monkeypatch.setenv("CHRONICLER_STORE__API_KEY", SECRET + "-store")
    config = load_config()
    assert config.answer.api_key == SECRET
    folder = record_run(config, "who gave us the map?", {"answer.json": {"text": "a map"}})
    files = list(folder.iterdir())
    assert files and all(SECRET not in f.read_text(encoding="utf-8") for f in files)
    recorded = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert recorded["answer"]["api_key"] == "***" and recorded["store"]["api_key"] == "***"


# -- the campaign's own evaluation ------------------------------------------------------------------------------

QUESTIONS = [
    {"id": "q1", "question": "Who offers gold to find the missing miners?", "sessions": [1],
     "evidence": ["offers gold to find missing miners"], "kind": "fact"},
    {"id": "q2", "question": "What did Vex tame?", "sessions": [3],
     "evidence": ["tames a bear named Trinket"], "kind": "entity"},
    {"id": "q3", "question": "Who betrayed the party to the duergar?", "sessions": [2],
     "evidence": ["betrays the party to the duergar"], "kind": "fact"},  # not in the notes: missed
]  # fmt: skip


def campaign_with_questions(tmp_path: Path, lines: list[str]) -> Path:
    indexed(tmp_path)
    vault = tmp_path / "vault"
    remember_source(load_config(), "demo", vault)
    (vault / campaign_eval.QUESTION_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return vault


def test_campaign_evaluation_chart_matches_the_computed_hits(tmp_path):
    campaign_with_questions(tmp_path, [json.dumps(q) for q in QUESTIONS])
    at = start("pages/home.py")
    assert "3 questions from" in texts(at.caption)
    at.button(key="eval_run").click()
    at.run()
    assert not at.exception and not at.error, texts(at.error)

    questions = parse_questions((tmp_path / "vault" / campaign_eval.QUESTION_FILE).read_text())
    expected = evaluate(app_state.pipeline(load_config()), "demo", questions)
    overall = expected["overall"]
    assert overall["hit@10"] == pytest.approx(2 / 3, abs=1e-3)  # q3's evidence is nowhere in the notes

    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Found in top 5"] == f"{overall['hit@5']:.0%}"
    assert metrics["MRR@10"] == f"{overall['mrr@10']:.2f}"
    assert metrics["Right session in top 5"] == f"{overall['session_hit@5']:.0%}"

    chart = plotly(at, -1)
    bars = {trace["name"]: trace for trace in chart["data"]}
    assert bars["all questions (3)"]["x"] == ["top 1", "top 3", "top 5", "top 10"]
    assert bars["all questions (3)"]["y"] == pytest.approx([overall[f"hit@{k}"] for k in (1, 3, 5, 10)])
    assert bars["fact (2)"]["y"] == pytest.approx([expected["by_kind"]["fact"][f"hit@{k}"] for k in (1, 3, 5, 10)])
    assert bars["entity (1)"]["y"] == pytest.approx([expected["by_kind"]["entity"][f"hit@{k}"] for k in (1, 3, 5, 10)])

    missed = at.dataframe[-1].value
    assert "q3" in set(missed["id"])
    row = missed[missed["id"] == "q3"].iloc[0]
    assert row["sessions"] == "2" and row["answer passage at"].startswith("not in the top")
    assert "found in the top 5" in texts(at.caption).lower()

    at.run()  # results survive a rerun
    assert {m.label: m.value for m in at.metric}["Found in top 5"] == metrics["Found in top 5"]


def test_malformed_question_line_is_named(tmp_path):
    lines = [json.dumps(QUESTIONS[0]), json.dumps(QUESTIONS[1]), '{"id": "q3", "question": "Who?", "sessions": [2]']
    campaign_with_questions(tmp_path, lines)
    at = start("pages/home.py")
    assert "questions.jsonl, line 3: not valid JSON" in texts(at.error)
    assert not any(b.key == "eval_run" for b in at.button)

    bad = json.dumps({"id": "x", "question": "Where?", "sessions": "two"}).encode()
    at.file_uploader(key="eval_upload").set_value(
        ("mine.jsonl", json.dumps(QUESTIONS[0]).encode() + b"\n" + bad, "application/jsonl")
    )
    at.run()
    assert "mine.jsonl, line 2: 'sessions' must be a list" in texts(at.error)


def test_home_without_a_question_file_says_where_to_put_one(tmp_path):
    indexed(tmp_path)
    at = start("pages/home.py")
    assert "No `questions.jsonl` found" in texts(at.info)
    assert not any(b.key == "eval_run" for b in at.button)


def test_frames_from_a_result():
    result = {
        "n": 2,
        "skipped": 1,
        "ks": [1, 5],
        "overall": {"hit@1": 0.0, "hit@5": 0.5, "session_hit@1": 0.5, "session_hit@5": 1.0, "mrr@10": 0.25},
        "by_kind": {"fact": {"n": 1, "hit@1": 0.0, "hit@5": 1.0}, "which-session": {"n": 1, "session_hit@5": 1.0}},
        "per_question": [
            {"id": "a", "question": "A?", "kind": "fact", "sessions": [2.0], "has_evidence": True,
             "first_support": 3, "first_session": 1, "depth": 20, "hit@1": 0.0, "hit@5": 1.0},
            {"id": "b", "question": "B?", "kind": "fact", "sessions": [4.5], "has_evidence": True,
             "first_support": None, "first_session": None, "depth": 20, "hit@1": 0.0, "hit@5": 0.0},
            {"id": "c", "question": "C?", "kind": "which-session", "sessions": [1.0], "has_evidence": False,
             "first_support": None, "first_session": 2, "depth": 20, "session_hit@5": 1.0},
        ],
    }  # fmt: skip
    frame = campaign_eval.hit_at_k_frame(result)
    assert list(frame["set"]) == ["all questions", "all questions", "fact", "fact"]  # no hit@k without evidence
    assert list(frame["questions"]) == [2, 2, 2, 2]
    missed = campaign_eval.missed_frame(result)
    assert list(missed["id"]) == ["b"]
    assert missed.iloc[0]["sessions"] == "4.5" and missed.iloc[0]["answer passage at"] == "not in the top 20"
    assert campaign_eval.format_metric("mrr@10", 0.25) == "0.25" and campaign_eval.format_metric("hit@5", 0.5) == "50%"
    assert campaign_eval.format_metric("hit@1", None) == "–"
    fig = campaign_eval.hit_at_k_figure(result)
    assert [t.name for t in fig.data] == ["all questions (2)", "fact (2)"]


def test_an_api_key_canary_appears_in_no_page_file_record_or_error(tmp_path, monkeypatch):
    """A key typed in Settings: searched in every page, configs/local.yaml, the run records and the error shown
    when the model cannot be reached."""
    canary = "sk-canary-5f1e9c"
    monkeypatch.setenv("CHRONICLER_TRACKING__ENABLED", "true")
    indexed(tmp_path)
    at = start("pages/settings.py")
    choose_llm(at, "http://127.0.0.1:9/v1", "llama3.2", canary)  # nothing listens there
    at.button(key="s_save_answer").click().run()
    assert "did not answer" in texts(at.warning) and canary not in texts(at.warning)
    at.button(key="s_save_answer_anyway").click().run()
    assert load_config().answer.api_key == canary
    shown = [everything(at)]
    at.button(key="s_test_answer").click().run()
    shown.append(everything(at))
    assert "did not answer" in texts(at.error)
    at.switch_page("pages/chat.py").run()
    at.chat_input(key="chat_question").set_value("Which bear did Vex tame?").run()
    assert not at.exception and not at.error  # the model is unreachable: the offline answer and one line
    assert "did not answer" in texts(at.warning)
    shown.append(everything(at))
    for page in ("pages/home.py", "pages/search.py", "pages/ingest.py", "pages/settings.py"):
        at.switch_page(page).run()
        shown.append(everything(at))
    written = [p.read_text(encoding="utf-8", errors="replace") for p in tmp_path.rglob("*") if p.is_file()]
    leaks = [
        p
        for p in tmp_path.rglob("*")
        if p.is_file() and p.name != "secrets.toml" and canary in p.read_text(errors="replace")
    ]
    assert canary not in "\n".join(shown) and leaks == []
    assert sum(canary in w for w in written) == 1  # only the secrets file holds it
