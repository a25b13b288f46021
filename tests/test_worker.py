"""A real Celery worker process runs the work a request queued: zip import, embedding of new notes, filing."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from apps.notes.models import Chunk, Note
from apps.vaults.models import Vault
from desirepath.celery import app
from tests.factories import SAMPLE_VAULT, api, make_user, make_vault

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def worker(django_db_setup, tmp_path_factory) -> Iterator[subprocess.Popen]:
    """A worker on the test queue, pointed at the test database."""
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(queue)  # leftovers from tests that queued without a worker
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "desirepath.settings.test",
        "DESIREPATH_DB_NAME": connection.settings_dict["NAME"],
        "DESIREPATH_TORCH_THREADS": "1",
    }
    log = (tmp_path_factory.mktemp("worker") / "worker.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "desirepath",
            "worker",
            "--pool=solo",
            "-Q",
            queue,
            "-l",
            "INFO",
            "--without-mingle",
            "--without-gossip",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.time() + 60
    while not app.control.ping(timeout=0.5):
        assert process.poll() is None and time.time() < deadline, "the Celery worker did not start"
    yield process
    process.terminate()
    process.wait(timeout=30)
    log.close()


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
    assert not Chunk.objects.filter(vault=vault, embedding=None).exists()

    # A note written through the API is embedded by the worker after the request returned.
    note = client.post(
        f"/api/vaults/{vault.pk}/notes/", {"path": "Fresh.md", "body": "# Fresh\nsourdough starter"}, format="json"
    ).json()
    _wait_for(lambda: not Chunk.objects.filter(note_id=note["id"], embedding=None).exists(), what="embedding")
    hits = client.get("/api/search/", {"q": "sourdough starter", "k": 3}).json()["results"]
    assert hits[0]["note"] == note["id"] and "vector" in hits[0]["sources"]

    assert client.get("/healthz").json() == {"db": "ok", "redis": "ok", "worker": "ok"}

    # After an answer, the worker (never the request) files the exchange in the asker's personal vault.
    reply = client.post("/api/chat/", {"vaults": [vault.pk], "message": "What is a sourdough starter?"}, format="json")
    assert reply.status_code == 200 and reply.json()["grounded"]
    personal = Vault.objects.get(owner=user, is_personal=True)
    filed = Note.objects.filter(vault=personal, path__startswith="Librarian/")
    _wait_for(filed.exists, what="the Librarian's filing")
    assert filed.get().provenance == "summary"
