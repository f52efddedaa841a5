"""Twenty players at one table, for real: 20 browser tabs (each its own Streamlit session over its own
websocket) ask at once against `streamlit run`, while a 21st tab uploads and indexes another campaign on the
Ingest page. Nothing fails, every answer is the one a quiet tab got, and the latency is recorded
(docs/RELIABILITY.md takes the printed figures).

The library-level twin (tests/test_concurrency.py) checks the same with 100 answers in seconds; this one
checks what it cannot: the server, the websockets, the session state and the cached store and model shared
by real sessions.
"""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from rag.measure.stats import p50_p95
from tests.browser import launch, serve
from tests.helpers import CONCURRENT_QUESTIONS as QUESTIONS
from tests.helpers import VAULT, write_notes

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABS = 20
WAIT = 240_000  # ms: 20 sessions share 2 cores and one model
SCENES = ["Road", "Market", "Mine", "Temple", "Camp", "Harbour"]


def other_campaign(folder):
    """60 notes of plain bullets (~700 passages): enough to keep the index running while the tabs ask."""
    notes = {}
    for n in range(1, 61):
        lines = [f"# Session {n}"]
        for i, scene in enumerate(SCENES):
            lines.append(f"## {scene} {n}")
            lines += [f"- Day {n}.{i}.{j}: the caravan counts {n * j + i} crates of salt and rope." for j in range(4)]
        notes[f"Session {n}.md"] = "\n".join(lines) + "\n"
    return write_notes(folder, notes)


async def ask(browser, url: str, question: str, go: asyncio.Event | None = None) -> tuple[str, float, float]:
    """One player in their own session: open the app, (wait for ``go``,) ask, wait for the whole answer.
    (text, start, end)."""
    context = await browser.new_context(viewport={"width": 1280, "height": 1200})
    try:
        page = await context.new_page()
        page.set_default_timeout(WAIT)
        await page.goto(url)
        box = page.get_by_role("textbox", name="Ask about your campaign…")
        await box.wait_for()
        if go is not None:
            await go.wait()
        await box.fill(question)
        started = time.monotonic()
        await box.press("Enter")
        messages = page.locator('[data-testid="stChatMessage"]')
        await messages.nth(1).wait_for()
        app = page.locator('[data-testid="stApp"]')
        await page.wait_for_function(
            "() => document.querySelector('[data-testid=stApp]').dataset.testScriptState === 'notRunning'",
            timeout=WAIT,
        )
        ended = time.monotonic()
        assert await app.get_attribute("data-test-script-state") == "notRunning"
        assert await page.locator('[data-testid="stException"]').count() == 0
        text = await messages.nth(1).inner_text()
        return "\n".join(line for line in text.splitlines() if not re.search(r"\d+ ms in all", line)), started, ended
    finally:
        await context.close()


async def ingest(browser, url: str, files: list[str], clicked: asyncio.Event) -> tuple[float, float, str]:
    """The 21st tab: create a campaign on the Ingest page, upload its notes and read them; ``clicked`` is set
    once reading has begun. (start, end, result)."""
    context = await browser.new_context(viewport={"width": 1280, "height": 1600})
    try:
        page = await context.new_page()
        page.set_default_timeout(WAIT)
        await page.goto(url + "/ingest")
        await page.get_by_role("button", name=re.compile("Start a new campaign")).click()
        await page.get_by_role("textbox", name="Campaign name").fill("Salt Road")
        await page.get_by_role("button", name="Create").click()
        await page.get_by_text(re.compile(r"Adding to campaign\s+Salt Road")).wait_for()
        await page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(files)
        button = page.get_by_role("button", name="Save and read the notes")
        await page.wait_for_function(
            "() => [...document.querySelectorAll('button')].some(b => b.innerText.includes('Save and read') && !b.disabled)"
        )
        started = time.monotonic()
        await button.click()
        clicked.set()
        # the page's green box
        done = page.get_by_test_id("stAlertContentSuccess").get_by_text(re.compile(r"Read \d+ files into"))
        await done.wait_for(timeout=WAIT)
        return started, time.monotonic(), await done.inner_text()
    finally:
        await context.close()


async def table(url: str, files: list[str]):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await launch(p)
        quiet = {q: (await ask(browser, url, q))[0] for q in QUESTIONS}  # one player alone, one question at a time
        # The players open the app meanwhile, and ask once reading has begun: with 21 tabs starting on 2 cores,
        # the upload's own steps (a new campaign, 60 files) could otherwise outlast every answer.
        clicked = asyncio.Event()
        indexing = asyncio.create_task(ingest(browser, url, files, clicked))
        players = [ask(browser, url, QUESTIONS[n % len(QUESTIONS)], clicked) for n in range(TABS)]
        answers = await asyncio.gather(*players, return_exceptions=True)
        ingested = await indexing
        await browser.close()
    return quiet, answers, ingested


def test_twenty_browser_sessions_ask_while_the_ingest_page_indexes(tmp_path):
    demo = write_notes(tmp_path / "demo-notes", VAULT)
    files = sorted(str(p) for p in other_campaign(tmp_path / "salt-road").glob("*.md"))
    with serve(tmp_path, CHRONICLER_NOTES_DIR=str(demo)) as url:
        quiet, answers, (ingest_start, ingest_end, result) = asyncio.run(table(url, files))
    errors = [a for a in answers if isinstance(a, BaseException)]
    assert errors == [], errors[:3]
    assert "Read 60 files into" in result
    for n, (text, _, _) in enumerate(answers):
        assert text == quiet[QUESTIONS[n % len(QUESTIONS)]], (n, text)
    during = sum(1 for _, start, end in answers if start < ingest_end and end > ingest_start)
    assert during >= TABS // 2, f"only {during} answers overlapped the index run"
    seconds = [end - start for _, start, end in answers]
    p50, p95 = p50_p95(seconds, 2)
    print(
        f"\n{TABS} browser sessions: 0 errors, answers identical to a quiet tab; {during} of them while the "
        f"Ingest page indexed ({ingest_end - ingest_start:.1f} s, {result}); per answer p50 {p50} s, p95 {p95} s"
    )
