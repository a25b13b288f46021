"""A reader opens a vault's insights in headless Chromium, asks why a card is shown, dismisses one (the next ranks
up) and accepts a distant pair, whose blend appears once the worker wrote it."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from apps.insights.models import Blend
from apps.insights.tasks import blend_write_task, insights_daily
from tests.factories import make_user, share
from tests.insights.discovery_world import baking_and_deploys
from tests.test_browser import ARTIFACTS, CHROMIUM, _accessible_in_both_themes, _log_in


@pytest.fixture
def page() -> Iterator[object]:
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        page = browser.new_page()
        # The page must work under its Content-Security-Policy: a blocked script or style fails the test.
        blocked: list[str] = []
        page.on(
            "console",
            lambda message: blocked.append(message.text) if "Content Security Policy" in message.text else None,
        )
        yield page
        browser.close()
        assert not blocked, blocked


def _ids(page, kind: str) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator(f"#list-{kind} li.insight-card").evaluate_all("cards => cards.map((c) => c.id)")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_reader_dismisses_a_card_and_accepts_a_distant_pair(live_server, page):
    owner = make_user("insights-owner")
    reader = make_user("insights-reader")
    from tests.factories import make_vault

    vault = make_vault(owner, "Bakery and ops")
    share(vault, "reader", user=reader)
    baking_and_deploys(vault)
    insights_daily(vault.pk)

    page.goto(f"{live_server.url}/vaults/{vault.pk}/insights/")
    _log_in(page, reader)
    page.locator("#list-recency li.insight-card").first.wait_for()
    before = _ids(page, "recency")
    assert len(before) == 5
    first = page.locator("#list-recency li.insight-card").first
    first.locator("summary", has_text="Why am I seeing this?").click()
    assert "Its text changed on" in first.locator("details.why p").inner_text()
    _accessible_in_both_themes(page, "insights")

    first.locator("button", has_text="Dismiss").click()
    page.locator("#list-recency").wait_for()
    after = _ids(page, "recency")
    assert before[0] not in after and after[:4] == before[1:] and len(after) == 5  # the next one ranked up

    pair = page.locator("#list-distance li.insight-card").first
    pair.locator("button", has_text="Accept and blend").click()
    assert "being written in the background" in page.locator("section.blends").inner_text()
    blend = Blend.objects.get(user=reader)
    blend_write_task(blend.pk)  # what the worker does with the queued task
    page.reload()
    link = page.locator("section.blends a")
    assert link.count() == 1 and page.locator("section.blends .badge", has_text="proposal").count() == 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "insights.png"), full_page=True)
    link.click()
    assert "A proposal DesirePath blended" in page.locator("article").inner_text()
