"""Controls keep their values and say what they do: "Passages to re-read" survives "Rerank passages" off and on,
"Recap last session" can be clicked right after an answer, "Also searched" (the best passages' shared words, not a
question a player would type) waits under Advanced, and the sidebar says how a game master turns the GM view on,
and off again: removing the passphrase from the secrets file closes it without a restart."""

from __future__ import annotations

import pytest
from streamlit import config as streamlit_config

from tests.helpers import indexed, start, texts

pytestmark = pytest.mark.usefixtures("app_env")


def test_passages_to_re_read_keeps_its_value_when_rerank_goes_off_and_on(tmp_path):
    indexed(tmp_path)
    at = start("pages/search.py")
    at.toggle(key="rerank").set_value(True).run()
    at.slider(key="reread").set_value(35).run()
    at.toggle(key="rerank").set_value(False).run()
    assert at.slider(key="reread").disabled  # greyed while reranking is off
    at.switch_page("pages/chat.py").run()  # across pages, and a question asked meanwhile
    at.chat_input(key="chat_question").set_value("Which bear did Vex tame?").run()
    at.switch_page("pages/people.py").run()
    at.toggle(key="rerank").set_value(True).run()
    assert at.slider(key="reread").value == 35
    at.radio(key="mode").set_value("hybrid").run()
    at.slider(key="keyword_weight").set_value(2.5).run()
    at.radio(key="mode").set_value("dense").run()
    at.radio(key="mode").set_value("hybrid").run()
    assert at.slider(key="keyword_weight").value == 2.5


def test_recap_last_session_can_be_clicked_right_after_an_answer(tmp_path):
    indexed(tmp_path)
    at = start("pages/chat.py")
    at.chat_input(key="chat_question").set_value("Which bear did Vex tame?").run()
    assert len(at.chat_message) == 2 and not at.button(key="recap_last").disabled
    at.button(key="recap_last").click().run()
    assert at.chat_message[-1].markdown[0].value.startswith("Previously on Session 3")


def test_also_searched_is_under_advanced(tmp_path):
    indexed(tmp_path)
    at = start("pages/chat.py")
    at.chat_input(key="chat_question").set_value("Who smashed the duergar patrol?").run()
    in_short, advanced = at.chat_message[1].tabs
    assert "Also searched" not in texts(in_short.markdown) and "Also searched" in texts(advanced.markdown)
    at.switch_page("pages/search.py").run()
    at.text_input(key="question").set_value("Who smashed the duergar patrol?").run()
    everywhere = [c for c in at.caption if "Also searched" in str(c.value)]
    advanced = next(e for e in at.expander if e.label.startswith("Advanced: every search stage"))
    inside = [c for c in advanced.caption if "Also searched" in str(c.value)]
    assert everywhere and len(inside) == len(everywhere)


def test_the_sidebar_says_how_a_game_master_turns_the_gm_view_on():
    at = start("pages/chat.py")
    said = texts(at.sidebar.caption)
    assert "set a GM passphrase" in said and "gm_passphrase" in said and "CHRONICLER_GM_PASSPHRASE" in said


def test_removing_the_passphrase_from_the_secrets_file_closes_the_gm_view_without_a_restart(tmp_path):
    secrets = tmp_path / "streamlit-secrets.toml"
    secrets.write_text('gm_passphrase = "owlbear"\n', encoding="utf-8")
    files = streamlit_config.get_option("secrets.files")
    streamlit_config.set_option("secrets.files", [str(secrets)])
    try:
        at = start("pages/chat.py")
        assert "GM passphrase" in [t.label for t in at.sidebar.text_input]
        secrets.unlink()
        at.run()
        assert "GM passphrase" not in [t.label for t in at.sidebar.text_input]
        assert "set a GM passphrase" in texts(at.sidebar.caption)
    finally:
        streamlit_config.set_option("secrets.files", files)
        start()  # the next test's app reads the secrets files as they are
