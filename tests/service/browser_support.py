"""What the Chromium tests share: the browser's path and flags, logging in, pasting into
the editor and waiting for a finished result panel. The ``browser`` fixture is in
tests/service/web/conftest.py."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from support import ROOT

REQUIRE = "JAXJUDGE_REQUIRE_BROWSER"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
SHOTS = ROOT / "docs" / "pages" / "screenshots"
REGENERATE = "JAXJUDGE_SCREENSHOTS"
SCRATCH = Path(tempfile.gettempdir()) / f"jaxjudge-screenshots-{os.getpid()}"
PASSWORD = "correct horse"
GRADE_MS = 180_000


def log_in(page, base: str, email: str, path: str) -> None:
    page.goto(base + path)
    page.wait_for_url("**/login?next=**")
    page.fill("#email", email)
    page.fill("#password", PASSWORD)
    page.click("#login button[type=submit]")
    page.wait_for_url(base + path)


def session_state(browser, base: str, email: str) -> dict:
    """A logged-in browser session (cookies) for ``email``, for new contexts to start from."""
    ctx = browser.new_context()
    page = ctx.new_page()
    log_in(page, base, email, "/problems")
    state = ctx.storage_state()
    ctx.close()
    return state


def paste(page, source: str) -> None:
    page.click(".CodeMirror-code")
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(source)


def result_of(page, kind: str, timeout: int = GRADE_MS):
    """The finished panel of the latest ``kind`` (run, submit or custom)."""
    page.wait_for_selector(f'#result .panel[data-kind="{kind}"] .verdict-line', timeout=timeout)
    return page.locator("#result .panel")


def shot(name: str) -> Path:
    """Where the screenshot ``name`` goes. The tracked copies in docs/pages/screenshots/
    (shown by the docs) change only on request (``JAXJUDGE_SCREENSHOTS=1``); otherwise
    the walk still takes it, into a scratch folder, so a test run leaves the checkout
    as it found it."""
    folder = SHOTS if os.environ.get(REGENERATE) == "1" else SCRATCH
    folder.mkdir(parents=True, exist_ok=True)
    return folder / name
