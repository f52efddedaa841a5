"""The GM passphrase resists guessing: after a few wrong tries each next one waits, twice as long each time, per
browser session and for the server as a whole (one log line per burst); a long input is refused at once; and
the GM view closes by itself after a while unused. Driven by AppTest, each AppTest its own browser session,
on the real clock (the schedule itself is checked on a clock of the test's own)."""

from __future__ import annotations

import logging
import re
import time

import pytest
from streamlit.testing.v1 import AppTest

from app.gm import GM_LABEL, PLAYER_LABEL
from app.throttle import Tries
from rag.config import GMViewConfig
from tests.helpers import start, texts

pytestmark = pytest.mark.usefixtures("app_env")

PASSPHRASE = "owlbear-42"


@pytest.fixture(autouse=True)
def passphrase(monkeypatch):
    monkeypatch.setenv("CHRONICLER_GM_PASSPHRASE", PASSPHRASE)


def attempt(at: AppTest, text: str) -> str:
    """Submit ``text`` as the passphrase; what the sidebar then says under the form ("" when it opened)."""
    at.text_input(key="gm_attempt").set_value(text)
    next(b for b in at.sidebar.button if b.label == "Show GM notes").click().run()
    assert not at.exception, at.exception
    return "" if GM_LABEL in texts(at.sidebar.warning) else texts(at.sidebar.error)


def wait_told(said: str) -> int:
    m = re.search(r"wait (\d+) seconds", said)
    return int(m.group(1)) if m else 0


def test_the_waits_double_after_the_free_tries_and_are_forgotten_after_a_quiet_while():
    now = [0.0]
    tries, settings = Tries(clock=lambda: now[0]), GMViewConfig()
    waits = []
    for _ in range(10):
        waits.append(tries.wait(settings.free_tries, settings))
        now[0] += waits[-1]
        tries.failed(settings)
    assert waits == [0, 0, 0, 0, 0, 1, 2, 4, 8, 16]  # the 10th try waits 16 s
    assert tries.wait(settings.free_tries, settings) == 32
    now[0] += 15 * 60 + 1  # a quiet quarter of an hour: counting starts again
    assert tries.wait(settings.free_tries, settings) == 0
    tries.failed(settings)
    assert tries.wrong == 1


@pytest.mark.long  # it waits out the delay it checks
def test_the_tenth_wrong_try_in_a_row_waits_several_seconds(caplog):
    caplog.set_level(logging.WARNING, logger="chronicler.gm")
    at = start()
    for n in range(1, 10):  # nine wrong tries, each made as soon as it may be
        while wait := wait_told(said := attempt(at, f"guess {n}")):
            time.sleep(wait)
        assert said == "That is not the GM passphrase.", (n, said)
    ninth = time.monotonic()
    said = attempt(at, "guess 10")
    assert wait_told(said) >= 15, said  # not compared at all: it has to wait
    assert wait_told(attempt(at, PASSPHRASE)) and PLAYER_LABEL in texts(at.sidebar.caption)  # nor is the right one
    while wait := wait_told(said := attempt(at, PASSPHRASE)):
        time.sleep(wait)
    waited = time.monotonic() - ninth
    assert said == "" and GM_LABEL in texts(at.sidebar.warning)
    assert waited >= 15, waited
    print(f"\nafter 9 wrong tries in a row, the next try could be checked {waited:.1f} s later")
    burst = [r.getMessage() for r in caplog.records if r.name == "chronicler.gm"]
    assert len(burst) == 1 and "5 wrong tries in a row on this server" in burst[0], burst  # once per burst


def test_every_session_together_waits_too(monkeypatch):
    monkeypatch.setenv("CHRONICLER_GM_VIEW__SERVER_FREE_TRIES", "3")
    monkeypatch.setenv("CHRONICLER_GM_VIEW__FIRST_WAIT_SECONDS", "30")
    for n in range(3):  # three fresh sessions, one wrong guess each: none of them waits on its own
        assert attempt(start(), f"guess {n}") == "That is not the GM passphrase."
    fresh = start()
    said = attempt(fresh, PASSPHRASE)
    assert wait_told(said) >= 29 and PLAYER_LABEL in texts(fresh.sidebar.caption), said


def test_a_long_input_is_refused_at_once():
    at = start()
    started = time.monotonic()
    said = attempt(at, PASSPHRASE + "x" * 10_000_000)
    took = time.monotonic() - started
    assert said == "That is too long to be the GM passphrase (at most 256 characters)."
    assert took < 5, took
    print(f"\na 10 MB passphrase was refused in {took:.2f} s (the whole page run)")
    assert attempt(at, PASSPHRASE) == ""  # and the real one still opens


@pytest.mark.long  # it waits for the view to go idle
def test_the_gm_view_closes_after_a_while_unused(monkeypatch):
    monkeypatch.setenv("CHRONICLER_GM_VIEW__IDLE_MINUTES", "0.05")  # 3 s
    at = start()
    assert attempt(at, PASSPHRASE) == ""
    time.sleep(1)
    at.run()
    assert GM_LABEL in texts(at.sidebar.warning)  # in use: still open
    time.sleep(3.5)
    at.run()
    assert PLAYER_LABEL in texts(at.sidebar.caption)
    assert "The GM view closed after 0.05 minutes without use." in texts(at.sidebar.error)
