"""What every browser test shares: Debian's chromium, its headless flags, the docs folder for
screenshots, and the marks that skip a test cleanly where chromium is missing (never `playwright install`)."""

from __future__ import annotations

import os

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM),
        reason="Debian chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)",
    ),
]


def until(page, predicate: str, timeout: float = 8.0) -> None:
    """Wait until the JavaScript function `predicate` is true on the page, polled from Python: the
    pages' CSP forbids the string evaluation Playwright's wait_for_function runs in the page."""
    import time

    stop = time.monotonic() + timeout
    while not page.evaluate(predicate):
        if time.monotonic() > stop:
            raise AssertionError(f"not true within {timeout} s: {predicate}")
        page.wait_for_timeout(40)
