"""Work a lost worker or an unreachable queue left behind is picked up again: an import whose worker was killed
goes on from its last written file, a question asked while Redis was down is answered once it is back, and an
answer whose worker was killed says so instead of running forever."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest
from django.utils import timezone

from apps.chat.models import Message
from apps.chat.services.chat import chat_start
from apps.chat.services.recovery import WORKER_LOST, answers_recover
from apps.chat.services.relay import queue_answer
from apps.llm.embeddings import current_model
from apps.notes.models import ChunkVector, ImportFileResult, ImportJob, ImportStatus, Note
from apps.notes.services.chunks import chunks_embed_pending
from apps.notes.services.embedding_switch import (
    BUILD_BATCH,
    embedding_switch_progress,
    embedding_switch_start,
    embedding_switches_recover,
)
from apps.notes.services.ingest import BATCH_FILES, import_job_create, import_job_enqueue, import_job_run
from apps.notes.services.recovery import imports_recover
from apps.retrieval.search import hybrid_search
from apps.vaults.scope import scope_for
from tests.factories import api, make_note, make_user, make_vault, numbered_notes_zip, unembedded

NOTES = BATCH_FILES * 4


def _wait_for(predicate, *, seconds: float = 60.0, what: str = "") -> None:  # type: ignore[no-untyped-def]
    deadline = time.time() + seconds
    while not predicate():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _kill(process) -> None:  # type: ignore[no-untyped-def]
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_import_whose_worker_was_killed_goes_on_from_its_last_file(worker, another_worker):
    user = make_user("importer")
    vault = make_vault(user, "Export")
    job = import_job_create(actor=user, vault=vault, archive=numbered_notes_zip(NOTES), source="export")
    import_job_enqueue(job)  # sent at once: no transaction around this test
    rows = ImportJob.objects.filter(pk=job.pk)
    _wait_for(lambda: rows.get().processed > BATCH_FILES + 1, what="the first batch to be written")
    _kill(worker)
    stopped = rows.get()
    assert stopped.status == ImportStatus.RUNNING and stopped.processed < NOTES
    written_before = Note.objects.filter(vault=vault).count()
    assert written_before >= BATCH_FILES

    assert imports_recover() == {"resumed": 0, "failed": 0}  # its heartbeat is recent: it may still be running
    assert imports_recover(stale_after=0) == {"resumed": 1, "failed": 0}
    another_worker()
    _wait_for(lambda: rows.get().status != ImportStatus.QUEUED and rows.get().status != ImportStatus.RUNNING)

    done = rows.get()
    assert done.status == ImportStatus.SUCCEEDED, done.error
    assert done.resumes == 1 and done.processed == done.total == NOTES
    # The files the killed run wrote were not read again: every file was created once, none was "unchanged".
    assert done.counts["created"] == NOTES and "unchanged" not in done.counts
    assert done.files.count() == NOTES
    assert Note.objects.filter(vault=vault).count() == NOTES
    assert not unembedded(vault=vault).exists()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_model_switch_whose_worker_was_killed_goes_on_and_swaps_once(worker, another_worker):
    minilm, mpnet = "local/all-MiniLM-L6-v2", "local/all-mpnet-base-v2"
    user = make_user("switcher")
    vault = make_vault(user, "Handbook")
    notes = BUILD_BATCH * 4
    for n in range(notes):
        make_note(vault, f"handbook/{n:03}.md", f"# Rule {n}\nRule number {n}: keep the kettle descaled.", embed=False)
    make_note(vault, "kitchen/focaccia.md", "# Focaccia\nRosemary flatbread: a hot oven, olive oil and salt.")
    chunks_embed_pending(vault_id=vault.pk)
    assert current_model() == minilm

    embedding_switch_start(model=mpnet)  # on the worker

    def progress():  # type: ignore[no-untyped-def]
        return embedding_switch_progress(model=mpnet, vault_id=vault.pk)

    _wait_for(lambda: progress().embedded >= BUILD_BATCH, seconds=600, what="the first batch of new vectors")
    _kill(worker)
    stopped = progress()
    assert stopped.state == "building" and BUILD_BATCH <= stopped.embedded < stopped.total
    assert current_model() == minilm  # a half-built model is never searched
    kept = set(ChunkVector.objects.filter(model=mpnet).values_list("pk", flat=True))

    assert embedding_switches_recover() == 0  # its last batch is recent: it may still be running
    assert embedding_switches_recover(stale_after=0) == 1
    another_worker()
    _wait_for(lambda: progress().state == "active", seconds=600, what="the switch to finish")

    done = progress()
    assert done.embedded == done.total == notes + 1
    assert kept <= set(ChunkVector.objects.filter(model=mpnet).values_list("pk", flat=True))  # not embedded again
    assert current_model() == mpnet
    result = hybrid_search(query="bread baked in a hot oven", scope=scope_for(user, [vault.pk]), k=3)
    assert result.model == mpnet and result.hits[0].path == "kitchen/focaccia.md"


@pytest.mark.django_db
def test_an_import_whose_source_is_gone_fails_with_a_reason_and_can_be_retried(vault, tmp_path):
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "A.md").write_text("# A\n\nalpha")
    job = import_job_create(actor=vault.owner, vault=vault, folder=str(folder), source="folder")
    long_ago = timezone.now() - timezone.timedelta(hours=1)
    ImportJob.objects.filter(pk=job.pk).update(status=ImportStatus.RUNNING, started_at=long_ago, heartbeat_at=long_ago)
    hidden = folder.rename(tmp_path / "moved")

    assert imports_recover() == {"resumed": 0, "failed": 1}
    failed = ImportJob.objects.get(pk=job.pk)
    assert failed.status == ImportStatus.FAILED and "source folder is gone" in failed.error

    client = api(vault.owner)
    client.force_login(vault.owner)
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "source folder is gone" in page and "Retry" not in page  # nothing to retry from
    refused = client.post(f"/api/jobs/{job.pk}/retry/")
    assert refused.status_code == 400 and "gone" in str(refused.json())
    Path(hidden).rename(folder)
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "Retry" in page
    retried = client.post(f"/jobs/{job.pk}/", {"retry": "1"})
    assert retried.status_code == 302
    queued = ImportJob.objects.get(pk=job.pk)
    assert queued.status == ImportStatus.QUEUED and queued.error == ""


@pytest.mark.django_db
def test_a_retried_import_shows_its_latest_attempt_and_keeps_the_earlier_outcomes(vault, tmp_path, monkeypatch):
    from apps.notes.services import ingest

    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "A.md").write_text("# A\n\nalpha")
    (folder / "bad.md").write_bytes(b"\xff\xfe not utf-8")

    def linking_fails(vault_id: int) -> None:
        raise RuntimeError("the linking step crashed")

    monkeypatch.setattr(ingest, "links_resolve", linking_fails)  # the files are written, then the job fails
    job = import_job_create(actor=vault.owner, vault=vault, folder=str(folder), source="folder")
    with pytest.raises(RuntimeError):
        import_job_run(job_id=job.pk)
    monkeypatch.undo()
    client = api(vault.owner)
    first = client.get(f"/api/jobs/{job.pk}/").json()
    assert first["import_status"] == "failed" and first["attempt"] == 1
    assert {f["path"]: f["outcome"] for f in first["files"]} == {"A.md": "created", "bad.md": "skipped"}

    (folder / "B.md").write_text("# B\n\nbeta")
    assert client.post(f"/api/jobs/{job.pk}/retry/").status_code == 202
    import_job_run(job_id=job.pk)
    second = client.get(f"/api/jobs/{job.pk}/").json()
    assert second["import_status"] == "succeeded" and second["attempt"] == 2
    assert {f["path"]: f["outcome"] for f in second["files"]} == {
        "A.md": "unchanged",
        "B.md": "created",
        "bad.md": "skipped",
    }
    kept = ImportFileResult.objects.filter(job=job, attempt=1).values_list("path", "outcome")
    assert sorted(kept) == [("A.md", "created"), ("bad.md", "skipped")]  # the first attempt, as it was recorded
    client.force_login(vault.owner)
    page = client.get(f"/jobs/{job.pk}/").content.decode()
    assert "Attempt 2" in page and "1 earlier attempt " in page and "B.md" in page


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_questions_left_pending_or_running_by_an_outage_are_answered_or_failed(
    answers_in_worker, worker_models, settings
):
    worker = answers_in_worker
    user = make_user("asker")
    vault = make_vault(user, "Bakery")
    make_note(vault, "Starter.md", "# Sourdough starter\nA sourdough starter is flour and water, fed daily.")
    client = api(user)

    # Redis is down when the question is asked: it is kept, pending.
    reachable = settings.REDIS_URL
    settings.REDIS_URL = "redis://127.0.0.1:9/0"
    asked = client.post("/api/chat/", {"vaults": [vault.pk], "message": "What is a sourdough starter?"}, format="json")
    assert asked.status_code == 503
    pending = Message.objects.get(pk=asked.json()["message"])
    assert pending.status == "pending"
    settings.REDIS_URL = reachable

    # Redis is back: the sweep sends it again and a worker answers it.
    assert answers_recover(resend_after=0) == {"resent": 1, "failed": 0}
    _wait_for(lambda: Message.objects.get(pk=pending.pk).status == "complete", what="the answer")
    assert "flour and water" in Message.objects.get(pk=pending.pk).text

    # The worker is killed while writing an answer (the scripted model is slow): the sweep fails it, with why.
    vault.chat_settings = {"models": {"chat": "openai/scripted-writer"}, "librarian": False}
    vault.save(update_fields=["chat_settings"])
    worker_models.replies[:] = [{"delay": 30, "content": "never delivered"}]
    answer = chat_start(user=user, vault_ids=[vault.pk], text="How often is the starter fed?")
    queue_answer(answer, user)
    _wait_for(lambda: Message.objects.get(pk=answer.pk).status == "running", what="the worker to claim it")
    _kill(worker)
    assert answers_recover() == {"resent": 0, "failed": 0}  # within its time limit it may still be written
    assert answers_recover(running_for=0) == {"resent": 0, "failed": 1}
    lost = Message.objects.get(pk=answer.pk)
    assert lost.status == "failed" and lost.notices[-1] == WORKER_LOST
    turns = client.get(f"/api/conversations/{lost.conversation_id}/").json()["turns"]
    assert WORKER_LOST in json.dumps(turns)
