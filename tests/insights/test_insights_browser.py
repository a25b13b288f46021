"""A reader opens a vault's insights in headless Chromium, asks why a card is shown, dismisses one (the next ranks
up) and accepts a distant pair, whose blend appears once the worker wrote it."""

from __future__ import annotations

import pytest

from apps.insights.models import Blend
from apps.insights.tasks import blend_write_task, insights_daily
from tests.browser import ARTIFACTS
from tests.factories import make_user, share
from tests.insights.discovery_world import baking_and_deploys
from tests.test_browser import _accessible_in_both_themes, _log_in


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
