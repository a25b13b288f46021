"""A vault's insights follow its notes: an import (or a written note) queues one build of its cards in the worker,
so a fresh install shows insights minutes after its first import instead of after the next daily run."""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections.abc import Callable

import pytest
from django.conf import settings
from django.test import Client

from apps.core.redis_connection import redis_client
from apps.insights.building import build_release
from apps.notes import hooks
from apps.vaults.models import Vault
from tests.conftest import _purge_test_queues
from tests.factories import SAMPLE_VAULT, api, make_user, make_vault


def _wait_for(predicate: Callable[[], object], *, seconds: float = 180.0, what: str = "") -> None:
    deadline = time.time() + seconds
    while not predicate():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def _plans_zip() -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for path in sorted(SAMPLE_VAULT.rglob("*.md"))[:12]:
            zf.write(path, f"Team/{path.relative_to(SAMPLE_VAULT).as_posix()}")
        zf.writestr("Team/Migration.md", "# Migration\n\nWe should settle the cut-over date.\n\n- [ ] ask the DBAs\n")
    buffer.seek(0)
    buffer.name = "Team.zip"
    return buffer


def _queued_tasks(queue: str) -> list[str]:
    """The names of the tasks waiting in `queue` (kombu's Redis transport: one JSON message per list item)."""
    return [json.loads(raw)["headers"]["task"] for raw in redis_client().lrange(queue, 0, -1)]


@pytest.fixture
def builds_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker started after this builds a vault's insights a second after its notes change."""
    monkeypatch.setenv("DESIREPATH_INSIGHTS_BUILD_DELAY_SECONDS", "1")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_import_is_followed_by_its_insights_without_the_daily_run(builds_soon, worker):
    user = make_user("first-importer")
    vault = make_vault(user, "Team")
    client = api(user)
    assert client.get(f"/api/insights/?vault={vault.pk}").json()["built"] is False

    job = client.post(f"/api/vaults/{vault.pk}/import/", {"file": _plans_zip()}, format="multipart").json()["job"]
    _wait_for(lambda: client.get(f"/api/jobs/{job}/").json()["status"] == "succeeded", what="the import")

    def cards_shown() -> dict[str, list[dict]]:
        insights = client.get(f"/api/insights/?vault={vault.pk}").json()
        return {entry["kind"]: entry["cards"] for entry in insights["lists"] if entry["cards"]}

    _wait_for(cards_shown, what="the insights built after the import")
    shown = cards_shown()
    assert "Open work in “Migration”" in [card["title"] for card in shown["actionability"]]
    assert shown["recency"] and all(card["narrative"] for cards in shown.values() for card in cards)
    browser = Client()
    browser.force_login(user)
    page = browser.get(f"/vaults/{vault.pk}/insights/").content.decode()
    assert "Open work in “Migration”" in page and "No insights yet" not in page


@pytest.mark.django_db(transaction=True)
def test_a_burst_of_imports_queues_one_build_and_the_page_says_it_is_coming():
    user = make_user("busy-importer")
    vault = make_vault(user, "Busy")
    quiet = make_vault(user, "Quiet")
    Vault.objects.filter(pk=quiet.pk).update(chat_settings={"discovery": False})
    _purge_test_queues()
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    try:
        for _ in range(5):
            hooks.imported(vault_id=vault.pk)  # each import's last step, outside any transaction
        hooks.imported(vault_id=quiet.pk)  # discovery off: the vault has no insights to build
        assert _queued_tasks(queue).count("apps.insights.tasks.insights_build") == 1

        insights = api(user).get(f"/api/insights/?vault={vault.pk}").json()
        assert (insights["built"], insights["building"]) == (False, "queued")
        browser = Client()
        browser.force_login(user)
        assert "being prepared now" in browser.get(f"/vaults/{vault.pk}/insights/").content.decode()
        assert "No insights yet" in browser.get(f"/vaults/{quiet.pk}/insights/").content.decode()
    finally:
        _purge_test_queues()
        build_release(vault_id=vault.pk)
