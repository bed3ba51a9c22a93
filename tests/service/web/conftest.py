"""Fixtures of the web pages' tests: one headless Chromium per module.

Skipped only when Chromium or Playwright is missing and JAXJUDGE_REQUIRE_BROWSER is
unset; CI sets it, so there a missing browser fails."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="module")
def browser():
    from browser_support import ARGS, CHROMIUM, REQUIRE

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if CHROMIUM is None or sync_playwright is None:
        missing = "Chromium (apt-get install chromium)" if CHROMIUM is None else "Playwright (pip install playwright)"
        if os.environ.get(REQUIRE):
            pytest.fail(f"{missing} is missing and {REQUIRE} is set")
        pytest.skip(f"{missing} is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
