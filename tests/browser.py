"""Running the app for browser tests: `streamlit run` as a subprocess on a free port, and Debian's Chromium.

Shared by the browser test modules (a test module is never imported by another).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "streamlit_app.py"
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
SLOW = 120_000  # ms: the first index loads the model (~10 s) and embeds on a small CPU


def require_chromium() -> None:
    """Skip without Chromium, except under CI (``CI`` set), where a missing browser is a failure."""
    if Path(CHROMIUM).exists():
        return
    message = f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)"
    if os.environ.get("CI"):
        pytest.fail(message + "; browser tests must run in CI.")
    pytest.skip(message + ".")


def launch(playwright):
    """Debian's Chromium as every browser test opens it (``CHROMIUM``, headless with ``ARGS``). ``playwright`` is
    what ``sync_playwright()`` or ``async_playwright()`` gives; with the async one, await the result."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(tmp: Path, **env_vars: str) -> Iterator[str]:
    """The app served from a subprocess with its own data folder under ``tmp`` (and these environment
    variables); yields its URL, stops it after."""
    require_chromium()
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHRONICLER_")}
    env.update(
        CHRONICLER_DATA_DIR=str(tmp / "data"),
        CHRONICLER_LOCAL_CONFIG=str(tmp / "local.yaml"),
        CHRONICLER_NOTES__SYNC_ROOTS=json.dumps([str(tmp)]),  # the folders a test may sync
        HF_HUB_OFFLINE="1",
        PYTHONUNBUFFERED="1",
        **env_vars,
    )
    log = (tmp / "server.log").open("w")
    command = [sys.executable, "-m", "streamlit", "run", str(APP), "--server.headless", "true"]
    command += ["--server.port", str(port), "--server.address", "127.0.0.1"]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("streamlit did not start:\n" + (tmp / "server.log").read_text())
        time.sleep(0.3)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def settle(pg) -> None:
    """Wait until the script run finished (only meaningful after waiting for some content)."""
    from playwright.sync_api import expect

    expect(pg.locator('[data-testid="stApp"]')).to_have_attribute("data-test-script-state", "notRunning", timeout=SLOW)
    pg.wait_for_timeout(300)


def type_gm_passphrase(pg, passphrase: str) -> None:
    """Open the sidebar's "Game master" box, type ``passphrase`` and press "Show GM notes", as a GM would. A form
    click sent while a page's run still goes on was lost now and then (the field kept the text, nothing said): so
    each step waits for the run to end first, as a person who reads the screen does."""
    sidebar = pg.locator('[data-testid="stSidebar"]')
    settle(pg)
    sidebar.get_by_text("Game master", exact=True).click()
    sidebar.get_by_label("GM passphrase").fill(passphrase)
    settle(pg)
    sidebar.get_by_role("button", name="Show GM notes").click()


@contextlib.contextmanager
def app_page(tmp: Path, **env_vars: str) -> Iterator:
    """The app served (``serve``) with one Chromium tab open on it, 1280 px wide; yields the Playwright page."""
    from playwright.sync_api import expect, sync_playwright

    with serve(tmp, **env_vars) as url, sync_playwright() as p:
        browser = launch(p)
        expect.set_options(timeout=30_000)
        pg = browser.new_page(viewport={"width": 1280, "height": 1400})
        pg.goto(url)
        try:
            yield pg
        finally:
            browser.close()


def shot(pg, folder: Path, name: str) -> None:
    """The whole page as ``folder/name.png``: Streamlit scrolls inside its main area, so grow the viewport to fit it
    first (up to 6,000 px), then put it back."""
    folder.mkdir(parents=True, exist_ok=True)
    size = pg.viewport_size
    height = pg.evaluate(
        "Math.max(...[...document.querySelectorAll('[data-testid=stMain], "
        "[data-testid=stAppViewContainer]')].map(e => e.scrollHeight))"
    )
    if height > size["height"]:
        pg.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 6000)})
        pg.wait_for_timeout(800)  # let plotly redraw at the new size
    pg.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    pg.set_viewport_size(size)


# Every text a plotly chart draws, and the box it must stay inside: the chart's own drawing.
_CHART_TEXT = """chart => {
  const svg = chart.querySelector('svg.main-svg');
  if (!svg) return null;
  const frame = svg.getBoundingClientRect();
  const kinds = {title: '.gtitle', annotation: '.annotation-text', legend: '.legend .legendtext',
                 xtick: '.xtick text', ytick: '.ytick text', xtitle: '.g-xtitle text', ytitle: '.g-ytitle text'};
  const texts = [];
  for (const el of chart.querySelectorAll('.barlayer .point path')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0)
      texts.push({kind: 'bar', text: '', left: r.left, right: r.right, top: r.top, bottom: r.bottom});
  }
  for (const [kind, selector] of Object.entries(kinds)) {
    for (const el of chart.querySelectorAll(selector)) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && el.textContent.trim())
        texts.push({kind, text: el.textContent.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom});
    }
  }
  return {frame: {left: frame.left, right: frame.right, top: frame.top, bottom: frame.bottom}, texts};
}"""


def chart_problems(pg) -> list[str]:
    """What a player would see wrong in the page's charts: a text cut at the chart's edge, or two texts (the title,
    a legend entry, a bar's label, an axis label) drawn over each other or over a bar. Empty when every chart reads
    cleanly."""
    problems = []
    for i, chart in enumerate(pg.locator('[data-testid="stPlotlyChart"]').all()):
        if not chart.is_visible():
            continue
        drawn = chart.evaluate(_CHART_TEXT)
        if not drawn:
            continue
        frame, texts = drawn["frame"], drawn["texts"]
        for t in texts:
            inside = frame["left"] - 1 <= t["left"] and t["right"] <= frame["right"] + 1
            if not inside or t["top"] < frame["top"] - 1 or t["bottom"] > frame["bottom"] + 1:
                problems.append(f"chart {i}: {t['kind']} '{t['text']}' is cut at the chart's edge")
        for a_i, a in enumerate(texts):
            for b in texts[a_i + 1 :]:
                if a["kind"] == b["kind"] == "bar":  # a bar's parts are stacked side by side
                    continue
                gap = 0.0 if a["kind"] in ("xtick", "ytick") and a["kind"] == b["kind"] else 1.0  # ticks may touch
                across = min(a["right"], b["right"]) - max(a["left"], b["left"])
                down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
                if across > gap and down > gap:
                    problems.append(f"chart {i}: {a['kind']} '{a['text']}' overlaps {b['kind']} '{b['text']}'")
    return problems
