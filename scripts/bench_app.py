"""Cold start to first answer, as a player sees it: open the app in Debian Chromium, ask, wait for a cited answer.

Usage: start the app (`make app PORT=8765`), then `.venv/bin/python scripts/bench_app.py http://127.0.0.1:8765`.
Times count from opening the page; add the server start (about 1.5 s) for a process cold start.
"""

import re
import sys
import time

from playwright.sync_api import expect, sync_playwright

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
t0 = time.time()
with sync_playwright() as p:
    b = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
    pg = b.new_page(viewport={"width": 1280, "height": 1200})
    pg.goto(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8501/")
    box = pg.get_by_role("textbox", name="Ask about your campaign…")
    expect(box).to_be_visible(timeout=300_000)
    print(f"chat ready after {time.time() - t0:.1f} s")
    box.fill("Who gave the party a map of the mines?")
    box.press("Enter")
    chip = pg.get_by_role("button", name=re.compile(r"C1 Session \d+ · ")).first
    expect(chip).to_be_visible(timeout=120_000)
    print(f"first answer after {time.time() - t0:.1f} s")
    time.sleep(2)
    pg.screenshot(path="/tmp/chronicler-first-answer.png", full_page=True)
    print(pg.locator('[data-testid="stChatMessage"]').last.inner_text()[:600])
    b.close()
