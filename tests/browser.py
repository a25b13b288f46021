"""Headless Chromium for the browser tests: Debian's Chromium through Playwright, one page per test that fails on any
Content-Security-Policy violation (registered for every test module in tests/conftest.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@pytest.fixture
def page() -> Iterator[object]:
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        page = browser.new_page()
        # Two test processes share two cores with the Celery worker a test starts, which loads its embedding model
        # on its first answer: that answer can take longer than Playwright's default 30 s to appear.
        page.set_default_timeout(90_000)
        # Every page must work under its Content-Security-Policy: a blocked script or style fails the test.
        blocked: list[str] = []
        page.on(
            "console",
            lambda message: blocked.append(message.text) if "Content Security Policy" in message.text else None,
        )
        yield page
        browser.close()
        assert not blocked, blocked
