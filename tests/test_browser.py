"""A person logs in, searches, opens a note and follows its links, in headless Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.factories import PASSWORD, make_note, make_user, make_vault

CHROMIUM = "/usr/bin/chromium"


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
        yield browser.new_page()
        browser.close()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_log_in_search_open_a_note_and_follow_links(live_server, page):
    user = make_user("reader-in-browser")
    vault = make_vault(user, "Kitchen")
    make_note(vault, "Starter.md", "# Sourdough Starter\nFeed it daily. Used by [[Country Loaf]].\n")
    make_note(
        vault,
        "Country Loaf.md",
        "# Country Loaf\nNeeds the [[Sourdough Starter]] at 220 °C, and "
        "[[Missing Note]].\n<script>document.title='pwned'</script>\n",
    )

    page.goto(f"{live_server.url}/")
    assert "/login/" in page.url
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")

    page.fill("input[name=q]", "220 °C loaf")
    page.click(".searchbar button")
    first = page.locator(".hit .title").first
    assert first.inner_text() == "Country Loaf"
    assert page.locator(".hit mark").count() >= 1  # matched words are highlighted

    first.click()
    assert page.locator("article .body a", has_text="Sourdough Starter").count() == 1
    assert page.locator("a.unresolved", has_text="Missing Note").count() == 1
    assert page.title() != "pwned"  # a note's HTML is shown as text, never run
    page.locator("article .body a", has_text="Sourdough Starter").click()
    assert page.locator("article h1").inner_text() == "Sourdough Starter"
    assert page.locator("aside a", has_text="Country Loaf").count() >= 1  # backlink


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_bad_query_shows_a_clear_message(live_server, page):
    user = make_user("impatient")
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.goto(f"{live_server.url}/?q=%20%20")
    assert "empty" in page.locator("[role=alert]").inner_text()
