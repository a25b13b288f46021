"""The search box in headless Chromium: Enter searches exactly as the Search button does, and the box keeps what was
typed, with the caret after it, so that the next words are added where the reader left off."""

from __future__ import annotations

import pytest

from tests.factories import PASSWORD, make_note, make_user, make_vault

BOX = "input[name=q]"
CARET = "(box) => [box.value, box.selectionStart, box.selectionEnd, document.activeElement === box]"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_enter_in_the_search_box_searches_like_the_button_and_keeps_the_box_ready_for_more_words(live_server, page):
    reader = make_user("enter-presser")
    vault = make_vault(reader, "Talks")
    make_note(vault, "Slides.md", "# Slides\nPresent the slides fullscreen from the command palette.\n")
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", reader.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.locator(BOX).wait_for()

    page.locator(BOX).press_sequentially("slides")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/?q=slides")
    assert page.locator(".hit .title").first.inner_text() == "Slides"
    assert page.locator(BOX).evaluate(CARET) == ["slides", 6, 6, True]

    page.keyboard.type(" fullscreen")
    assert page.locator(BOX).evaluate(CARET) == ["slides fullscreen", 17, 17, True]
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/?q=slides+fullscreen")
    assert page.locator(BOX).evaluate(CARET) == ["slides fullscreen", 17, 17, True]

    # Back shows the first search's results under the query they are for, not under words typed after it.
    page.go_back()
    page.wait_for_url(f"{live_server.url}/?q=slides")
    assert page.locator(BOX).evaluate(CARET) == ["slides", 6, 6, True]
    page.reload()
    assert page.url == f"{live_server.url}/?q=slides"
    assert page.locator(BOX).evaluate(CARET) == ["slides", 6, 6, True]
    assert page.locator(".hit .title").first.inner_text() == "Slides"
