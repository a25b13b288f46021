"""Admins observe: vaults with shares, notes with provenance, import jobs with outcomes, the audit log (read-only)."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from apps.audit.models import AuditEvent
from apps.notes.models import ImportJob, Note

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(sample) -> Client:
    admin = User.objects.create_superuser("root-admin", password="x-long-password-1")
    client = Client()
    client.force_login(admin)
    return client


def test_admin_pages_show_provenance_jobs_and_the_log(admin_client, sample):
    note = Note.objects.filter(vault=sample).first()
    job = ImportJob.objects.filter(vault=sample).first()
    event = AuditEvent.objects.filter(vault_id=sample.pk).first()
    assert note is not None and job is not None and event is not None

    assert b"sample-owner:manage_vault" in admin_client.get("/admin/vaults/vault/").content
    notes_page = admin_client.get("/admin/notes/note/")
    assert b"authored" in notes_page.content
    job_page = admin_client.get(f"/admin/notes/importjob/{job.pk}/change/")
    assert job_page.status_code == 200 and b"created" in job_page.content
    assert admin_client.get(f"/admin/audit/auditevent/{event.pk}/change/").status_code == 200
    # A log is read-only: no add, no delete, no save.
    assert admin_client.get("/admin/audit/auditevent/add/").status_code == 403
    assert admin_client.post(f"/admin/audit/auditevent/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert admin_client.post(f"/admin/audit/auditevent/{event.pk}/change/", {"action": "forged"}).status_code == 403
    assert AuditEvent.objects.get(pk=event.pk).action == event.action


def test_the_admin_index_names_each_kind_of_record_in_correct_english():
    staff = User.objects.create_superuser("plural-admin", password="x-long-password-1")
    client = Client()
    client.force_login(staff)
    index = client.get("/admin/").content.decode()
    for plural in ("SSO identities", "Entities", "Dependencies", "Communities"):
        assert f">{plural}<" in index, plural
    for misspelt in ("identitys", "Entitys", "Dependencys", "Communitys"):
        assert misspelt not in index, misspelt


def _queues(default: str, answers: str) -> dict[str, str]:
    return {settings.CELERY_TASK_DEFAULT_QUEUE: default, settings.CHAT_ANSWER_QUEUE: answers}


def test_healthz_reports_each_part_and_a_missing_worker():
    # No worker consumes the test queues outside the tests that start one.
    assert Client().get("/healthz").json() == {
        "db": "ok",
        "redis": "ok",
        "worker": "down",
        "queues": _queues("down", "down"),
    }


def test_healthz_answers_503_naming_redis_when_it_is_down(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    started = time.monotonic()
    response = Client().get("/healthz")
    assert response.status_code == 503 and time.monotonic() - started < 5
    body = response.json()
    assert body["db"] == "ok" and body["redis"].startswith("error") and body["queues"] == _queues("unknown", "unknown")


@pytest.mark.worker
def test_healthz_names_the_queue_no_worker_consumes(answer_worker):
    deadline = time.monotonic() + 60
    while (response := Client().get("/healthz")).json()["queues"] != _queues("down", "ok"):
        assert time.monotonic() < deadline, response.json()
        time.sleep(0.5)
    # The pages and the API stay up while general work waits for a worker: 200, saying which queue has none.
    assert response.status_code == 200 and response.json()["worker"] == "down"


@pytest.mark.worker
def test_healthz_reads_the_workers_heartbeats_and_a_killed_one_goes_down_within_the_window(worker):
    from apps.core.workers import heartbeats

    def last_beat_age() -> float:
        seen = heartbeats([settings.CHAT_ANSWER_QUEUE])[settings.CHAT_ANSWER_QUEUE]
        return time.time() - max(seen.values(), default=0.0)

    deadline = time.monotonic() + 120  # a solo worker beats between tasks (the sample's follow-up)
    while Client().get("/healthz").json()["worker"] != "ok" or last_beat_age() > 2:
        assert time.monotonic() < deadline, "the worker never showed in /healthz"
        time.sleep(0.2)
    worker.kill()  # no chance to say it stops
    worker.wait(timeout=30)
    # Its last heartbeat is recent: still up, and no broadcast waits for a reply nobody will send.
    started = time.monotonic()
    assert Client().get("/healthz").json()["worker"] == "ok"
    assert time.monotonic() - started < 1
    time.sleep(settings.WORKER_HEARTBEAT_SECONDS)  # and no longer than the window
    assert Client().get("/healthz").json() == {
        "db": "ok",
        "redis": "ok",
        "worker": "down",
        "queues": _queues("down", "down"),
    }


@pytest.mark.worker
def test_a_worker_that_stops_is_down_at_once(another_worker):
    worker = another_worker()
    deadline = time.monotonic() + 120
    while Client().get("/healthz").json()["worker"] != "ok":
        assert time.monotonic() < deadline, "the worker never showed in /healthz"
        time.sleep(0.5)
    worker.terminate()  # a clean stop removes its heartbeat
    worker.wait(timeout=30)
    assert Client().get("/healthz").json()["queues"] == _queues("down", "down")


def test_openapi_schema_and_docs_are_served_offline(db):
    schema = Client().get("/api/schema/")
    assert schema.status_code == 200 and b"/api/search/" in schema.content
    docs = Client().get("/api/docs/")
    assert docs.status_code == 200 and b"swagger-ui" in docs.content and b"cdn" not in docs.content.lower()


def test_admins_observe_the_graph_and_its_ledger_but_set_no_weight(admin_client, sample):
    from apps.graph.learning import weight_adjust
    from apps.graph.models import Dependency, WeightChange
    from apps.graph.services import graph_extract_pending

    graph_extract_pending(vault_id=sample.pk)
    edge = Dependency.objects.filter(vault=sample).first()
    assert edge is not None
    for delta in (0.01, -0.01):  # pulled both ways
        weight_adjust(target="edge_strength", target_id=edge.pk, delta=delta, source="feedback", reason="test")
    change = WeightChange.objects.filter(target_id=edge.pk).first()

    for page in (
        "/admin/graph/entity/",
        "/admin/graph/dependency/",
        "/admin/graph/weightchange/",
        "/admin/graph/pathvalue/",
        "/admin/graph/factvalue/",
        "/admin/graph/doorvalue/",
        "/admin/graph/community/",
        "/admin/notes/correction/",
    ):
        assert admin_client.get(page).status_code == 200, page
    oscillating = admin_client.get("/admin/graph/dependency/?oscillating=yes")
    assert (
        oscillating.status_code == 200 and f"/admin/graph/dependency/{edge.pk}/change/".encode() in oscillating.content
    )
    before = Dependency.objects.get(pk=edge.pk).strength
    assert admin_client.post(f"/admin/graph/dependency/{edge.pk}/change/", {"strength": "0.95"}).status_code == 403
    assert admin_client.post(f"/admin/graph/weightchange/{change.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Dependency.objects.get(pk=edge.pk).strength == before


def test_the_site_has_an_icon(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 301 and icon["Location"].endswith("img/favicon.svg")
    assert b'rel="icon"' in client.get("/login/").content
