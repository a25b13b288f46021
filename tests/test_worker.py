"""A real Celery worker process runs the work a request queued: zip import, embedding of new notes, filing."""

from __future__ import annotations

import io
import time
import zipfile

import pytest
from django.conf import settings

from apps.chat.models import ContextItem, Message
from apps.graph.models import CommunityRun, Mention, WeightChange
from apps.librarian.models import NoteMetadata, SummaryNode
from apps.notes.models import Note
from apps.vaults.models import Vault
from tests.factories import SAMPLE_VAULT, api, make_note, make_user, make_vault, unembedded


def _wait_for(predicate, *, seconds: float = 180.0, what: str = "") -> None:  # type: ignore[no-untyped-def]
    deadline = time.time() + seconds
    while not predicate():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def _sample_zip() -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(SAMPLE_VAULT.rglob("*.md"))[:20]:
            zf.write(path, f"Exported Vault/{path.relative_to(SAMPLE_VAULT).as_posix()}")
        zf.writestr("Exported Vault/broken.md", b"\xff\xfe\x00 not a note")
    buffer.seek(0)
    buffer.name = "Exported Vault.zip"
    return buffer


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_imports_an_uploaded_zip_and_embeds_new_notes(worker):
    user = make_user("uploader")
    vault = make_vault(user, "Uploads")
    client = api(user)

    response = client.post(f"/api/vaults/{vault.pk}/import/", {"file": _sample_zip()}, format="multipart")
    assert response.status_code == 202
    job_id = response.json()["job"]

    def finished() -> bool:
        return client.get(f"/api/jobs/{job_id}/").json()["status"] in ("succeeded", "failed")

    _wait_for(finished, what="the import job")
    job = client.get(f"/api/jobs/{job_id}/").json()
    assert job["status"] == "succeeded", job["error"]
    assert job["progress"] == 1.0 and job["total"] == 21
    assert job["counts"]["created"] == 20 and job["counts"]["skipped"] == 1
    assert next(f["reason"] for f in job["files"] if f["outcome"] == "skipped")
    assert Note.objects.filter(vault=vault).count() == 20
    assert not unembedded(vault=vault).exists()
    # The import's graph is followed by its communities in the worker: the constellation has clusters at once.
    _wait_for(CommunityRun.objects.filter(vault=vault).exists, what="the communities after the import")
    assert client.get(f"/api/graph/constellation/?vault={vault.pk}").json()["communities"]

    # A note written through the API is embedded by the worker after the request returned.
    note = client.post(
        f"/api/vaults/{vault.pk}/notes/", {"path": "Fresh.md", "body": "# Fresh\nsourdough starter"}, format="json"
    ).json()
    _wait_for(lambda: not unembedded(note_id=note["id"]).exists(), what="embedding")
    hits = client.get("/api/search/", {"q": "sourdough starter", "k": 3}).json()["results"]
    assert hits[0]["note"] == note["id"] and "vector" in hits[0]["sources"]

    queues = dict.fromkeys([settings.CELERY_TASK_DEFAULT_QUEUE, settings.CHAT_ANSWER_QUEUE], "ok")
    assert client.get("/healthz").json() == {"db": "ok", "redis": "ok", "worker": "ok", "queues": queues}

    # After an answer, the worker (never the request) files the exchange in the asker's personal vault.
    reply = client.post("/api/chat/", {"vaults": [vault.pk], "message": "What is a sourdough starter?"}, format="json")
    assert reply.status_code == 200 and reply.json()["grounded"]
    personal = Vault.objects.get(owner=user, is_personal=True)
    filed = Note.objects.filter(vault=personal, path__startswith="Librarian/").exclude(
        path__startswith="Librarian/Summaries/"
    )
    _wait_for(filed.exists, what="the Librarian's filing")
    assert filed.get().provenance == "summary"
    # Then the conversation's summary, pointing at both messages of the exchange.
    summary = SummaryNode.objects.filter(conversation_id=reply.json()["conversation"], vault=personal)
    _wait_for(summary.exists, what="the conversation's summary")
    assert summary.get().message_links.count() == 2

    # Automatic signals run in the worker: a used unit's neighbours, then a later search for a delivered term.
    outage = client.post(
        "/api/chat/", {"vaults": [vault.pk], "message": "What happened in the Redis outage?"}, format="json"
    )
    shown = ContextItem.objects.filter(message_id=outage.json()["message"], survived=True).order_by("position")
    vote = client.post("/api/feedback/", {"context_item": shown[0].pk, "signal": "used"}, format="json")
    assert vote.status_code == 201
    automatic = WeightChange.objects.filter(source="automatic")
    assert shown.count() > 1
    _wait_for(lambda: automatic.filter(reason__startswith="delivered beside").exists(), what="co-occurrence")
    assert client.get("/api/search/", {"q": "sourdough"}).status_code == 200
    _wait_for(lambda: automatic.filter(reason="a later search for 'sourdough'").exists(), what="the later search")
    assert not automatic.filter(delta__gt=0.001).exists()  # a thousandth of a person's step, never more


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_note_written_through_the_api_gets_its_metadata_and_graph_within_seconds(worker):
    """No sweep runs here (no beat): the write itself queued its embedding, which queued the graph and the
    metadata for the vault."""
    user = make_user("writer")
    vault = make_vault(user, "Written")
    client = api(user)
    body = "# Boiler\n\nThe boiler must be serviced every autumn by Jonas Weber. It heats the workshop and the office."
    note = client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Boiler.md", "body": body}, format="json").json()
    _wait_for(lambda: Mention.objects.filter(note_id=note["id"], entity__key="jonas weber").exists(), what="graph")

    edited = body.replace("Jonas Weber", "Maria Keller")
    started = time.monotonic()
    response = client.put(f"/api/notes/{note['id']}/", {"body": edited}, format="json")
    assert response.status_code == 200
    written = Note.objects.get(pk=note["id"])
    metadata = NoteMetadata.objects.filter(note=written, content_hash=written.content_hash)
    _wait_for(metadata.exists, seconds=60, what="the metadata of the edited note")
    _wait_for(lambda: Mention.objects.filter(note=written, entity__key="maria keller").exists(), what="the graph")
    assert not Mention.objects.filter(note=written, entity__key="jonas weber").exists()
    assert time.monotonic() - started < 60  # seconds, not the 15 minutes of the sweep
    assert not unembedded(note=written).exists()
    assert "Maria Keller" in metadata.get().core_claim


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_chat_api_waits_for_the_worker_and_skip_cancels_its_research(answers_in_worker, worker_models):
    import json
    import threading

    import redis

    user = make_user("asker-of-the-worker")
    vault = make_vault(user, "Bakery")
    make_note(vault, "Starter.md", "# Sourdough starter\nA sourdough starter is flour and water, fed daily.")
    make_note(vault, "Oven.md", "# Oven\nThe deck oven bakes the country loaf at 230 °C for 40 minutes.")
    client = api(user)

    reply = client.post("/api/chat/", {"vaults": [vault.pk], "message": "What is a sourdough starter?"}, format="json")
    assert reply.status_code == 200, reply.content
    body = reply.json()
    assert body["status"] == "complete" and body["grounded"] and "flour and water" in body["answer"]
    relayed = redis.Redis.from_url(settings.REDIS_URL).xrange(f"desirepath:chat:{body['message']}")
    assert [fields[b"kind"] for _, fields in relayed][-1] == b"done"  # written by the worker, relayed to the API

    # Deep research in the worker, skipped through the API while the (scripted, slow) planner thinks. The Librarian
    # is off here: with it on, the worker's graph extraction would call the same scripted model.
    vault.chat_settings = {"models": {"reasoning": "openai/scripted-planner"}, "librarian": False}
    vault.save(update_fields=["chat_settings"])
    worker_models.replies[:] = [{"delay": 6, "content": json.dumps({"sub_questions": ["What bakes the loaf?"]})}]
    results: dict[str, object] = {}
    question = "Why does the starter matter, and how does it compare with the oven?"

    def ask() -> None:
        results["reply"] = api(user).post("/api/chat/", {"vaults": [vault.pk], "message": question}, format="json")

    asking = threading.Thread(target=ask)
    asking.start()
    running = Message.objects.filter(conversation__owner=user, role="assistant", status="running")
    _wait_for(lambda: running.exclude(pk=body["message"]).exists(), seconds=30, what="the worker to claim it")
    conversation = running.get().conversation_id
    assert client.post(f"/api/conversations/{conversation}/cancel/").json() == {"cancelled": 1}
    asking.join(timeout=60)
    skipped = results["reply"]
    assert skipped.status_code == 200, skipped.content
    research = skipped.json()["research"]
    assert research["ran"] and research["cancelled"] and research["dispatches"] == 0
    assert "Deep research was skipped; answered from an ordinary search." in skipped.json()["notices"]
