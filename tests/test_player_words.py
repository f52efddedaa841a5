"""Every page speaks a player's language, in its default state and after each action: none of the engine room's
words is visible.

Rendered with AppTest on a small indexed campaign, after a question on the chat and search pages and an
upload on the Ingest page; then after an upload with a file it cannot read, a question, a recap, a settings save,
and a question whose language model does not answer. What counts as visible: titles, text, captions, labels, options, placeholders,
messages, metric labels, table headers and cells, chart titles, axis titles, legends and bar labels. Hover
help is not visible text. Anything under an "Advanced" expander or tab (the sidebar's, the search page's,
"Why this answer?" → Advanced, Settings → Advanced) is exempt: that is where the engine room lives.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.helpers import ENGINE_ROOM, VAULT, indexed, start

pytestmark = pytest.mark.usefixtures("app_env")

SKIPPED_FIELDS = {"id", "form_id", "key", "help", "spec", "data", "type", "icon", "element_type", "tag"}
CHART_KEYS = {"text", "name", "title", "hovertemplate", "ticktext"}


def _strings(message) -> list[str]:
    """The text fields of a proto message, recursively, but not ids, keys, hover help or raw data."""
    out = []
    for field, value in message.ListFields():
        if field.name in SKIPPED_FIELDS:
            continue
        single = isinstance(value, str | bytes | int | float) or hasattr(value, "ListFields")
        for v in [value] if single else value:  # a repeated field
            if isinstance(v, str):
                out.append(v)
            elif hasattr(v, "ListFields"):
                out += _strings(v)
    return out


def _chart_strings(node, parent: str = "") -> list[str]:
    """Titles, names, labels and annotations of a plotly spec (not its colours or template)."""
    if isinstance(node, dict):
        return [s for k, v in node.items() if k != "template" for s in _chart_strings(v, k)]
    if isinstance(node, list):
        return [s for v in node for s in _chart_strings(v, parent)]
    return [node] if isinstance(node, str) and parent in CHART_KEYS | {"y"} else []


def visible_text(at: AppTest) -> str:
    out, todo = [], [at._tree]
    while todo:
        node = todo.pop()
        label = str(getattr(getattr(node, "proto", None), "label", "") or "")
        if label.startswith("Advanced") or label.endswith("Advanced"):  # an "Advanced" expander or tab
            continue
        todo += list(getattr(node, "children", {}).values())
        kind = getattr(node, "type", "")
        proto = getattr(node, "proto", None)
        if type(node).__name__ == "Dataframe":  # headers and cells, not the column settings behind them
            frame = node.value
            out += [str(c) for c in frame.columns] + [str(v) for v in frame.astype(str).to_numpy().ravel()]
        elif kind == "plotly_chart":
            out += _chart_strings(json.loads(proto.spec))
        elif proto is not None and hasattr(proto, "ListFields"):
            out += _strings(proto)
    return "\n".join(out)


def engine_words(at: AppTest) -> list[str]:
    return sorted({m.group(0).lower() for m in ENGINE_ROOM.finditer(visible_text(at))})


def test_no_default_screen_shows_an_engine_room_word(tmp_path):
    indexed(tmp_path)
    at = start("pages/chat.py")
    at.chat_input(key="chat_question").set_value("Which bear did Vex tame?").run()
    assert not at.exception and len(at.chat_message) == 2
    found = {"chat": engine_words(at)}
    at.switch_page("pages/search.py").run()
    at.text_input(key="question").set_value("Who smashed the duergar patrol?").run()
    found["search"] = engine_words(at)
    at.text_input(key="question").set_value("").run()
    at.switch_page("pages/home.py").run()
    found["campaign"] = engine_words(at)
    at.switch_page("pages/people.py").run()
    found["people"] = engine_words(at)
    at.switch_page("pages/story.py").run()
    found["story"] = engine_words(at)
    at.switch_page("pages/ingest.py").run()
    at.file_uploader[0].set_value([(Path(n).name, t.encode(), "text/markdown") for n, t in VAULT.items()])
    at.run()
    at.button(key="upload_go").click().run()
    assert not at.exception and not at.error
    found["ingest"] = engine_words(at)
    at.switch_page("pages/settings.py").run()
    found["settings"] = engine_words(at)
    assert {page: words for page, words in found.items() if words} == {}


def test_no_screen_after_an_action_shows_an_engine_room_word(tmp_path, llm_server):
    """After an upload (with a file it cannot read), a question, a recap and a settings save, every page still
    speaks a player's language: the messages the actions leave ("Done.", what was skipped, "Saved.", a model that
    did not answer) included."""
    found = {}
    at = start("pages/ingest.py")
    notes = [(Path(n).name, t.encode(), "text/markdown") for n, t in VAULT.items()]
    at.file_uploader[0].set_value([*notes, ("Session 9.md", b"\x00\x01 not a note", "text/markdown")]).run()
    at.button(key="upload_go").click().run()
    assert not at.exception and "not read" in " ".join(str(w.value) for w in at.warning)
    found["after an upload: ingest"] = engine_words(at)
    for page in ("home", "people", "story", "search"):
        at.switch_page(f"pages/{page}.py").run()
        found[f"after an upload: {page}"] = engine_words(at)
    at.switch_page("pages/chat.py").run()
    at.chat_input(key="chat_question").set_value("Who smashed the duergar patrol?").run()
    found["after a question"] = engine_words(at)
    at.chat_input(key="chat_question").set_value("What did the dwarves eat for breakfast?").run()
    assert at.chat_message[-1].markdown[0].value.startswith("The notes don't say")
    found["after a question the notes do not answer"] = engine_words(at)
    at.button(key="recap_last").click().run()
    assert at.chat_message[-1].markdown[0].value.startswith("Previously on")
    found["after a recap"] = engine_words(at)
    at.switch_page("pages/settings.py").run()
    at.button(key="s_save_reranker").click().run()
    assert "Saved." in [str(s.value) for s in at.success]
    found["after saving reranking"] = engine_words(at)
    at.radio(key="s_answer_backend").set_value("openai").run()
    at.text_input(key="s_answer_url").set_value(llm_server.replace("/v1", "/down/v1"))  # answers 404: no model
    at.text_input(key="s_answer_model").set_value("no-such-model")
    at.button(key="s_save_answer").click().run()
    assert "did not answer" in " ".join(str(w.value) for w in at.warning)
    found["after saving a model that does not answer"] = engine_words(at)
    at.button(key="s_save_answer_anyway").click().run()
    at.switch_page("pages/chat.py").run()
    at.chat_input(key="chat_question").set_value("Which bear did Vex tame?").run()
    assert "did not answer" in " ".join(str(w.value) for w in at.warning)
    found["a question the model does not answer"] = engine_words(at)
    assert {state: words for state, words in found.items() if words} == {}


def test_the_check_sees_what_it_should(tmp_path):
    """The collector reads labels, tables and charts, and skips only what is under Advanced."""
    indexed(tmp_path)
    at = start("pages/search.py")
    at.text_input(key="question").set_value("Who smashed the duergar patrol?").run()
    shown = visible_text(at)
    assert "Why each passage was chosen" in shown and "matched names and words" in shown  # a chart
    assert "As of session" in shown and "Rerank passages" in shown  # widget labels
    assert "Session 2 · Into the Mines" in shown  # passages
    assert "Minimum score (threshold)" not in shown  # under the sidebar's Advanced
