"""A background step that fails on one note is recorded against that note with its reason, the rest of the vault
is processed, the vault's readers see it (API and vault page), and a later sweep retries it after a backoff."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

import apps.graph.services as graph_services
import apps.librarian.services as librarian_services
from apps.graph.models import Extraction
from apps.graph.services import EXTRACTOR, graph_extract_pending
from apps.librarian.services import reenrich
from apps.notes.models import Note, NoteStep, NoteStepFailure
from apps.notes.services.failures import backoff
from tests.factories import SAMPLE_VAULT, api, import_folder, make_note, make_user, make_vault

pytestmark = pytest.mark.django_db

BODY = "The boiler must be serviced every autumn by Jonas Weber.\n\nIt heats the workshop and the office."


def _fail_on(monkeypatch, module, name, title):
    real = getattr(module, name)

    def planted(note, *args, **kwargs):
        if note.title == title:
            raise RuntimeError(f"planted failure on {title}")
        return real(note, *args, **kwargs)

    monkeypatch.setattr(module, name, planted)


def _age(note, by):
    NoteStepFailure.objects.filter(note=note).update(failed_at=NoteStepFailure.objects.get(note=note).failed_at - by)


def test_a_note_whose_extraction_raises_is_recorded_and_the_vault_goes_on(vault, owner, monkeypatch):
    notes = [make_note(vault, f"{name}.md", f"# {name}\n\n{BODY}") for name in ("Boiler", "Broken", "Workshop")]
    broken = notes[1]
    Extraction.objects.filter(vault=vault).delete()  # as before the first sweep
    _fail_on(monkeypatch, graph_services, "extract_model_free", "Broken")

    assert graph_extract_pending(vault_id=vault.pk) == {"normal": 2, "failed": 1}
    assert set(Extraction.objects.filter(vault=vault).values_list("note__title", flat=True)) == {"Boiler", "Workshop"}
    failure = NoteStepFailure.objects.get(vault=vault)
    assert (failure.note, failure.step, failure.model, failure.retries) == (broken, "graph_extraction", EXTRACTOR, 0)
    assert failure.reason == "RuntimeError: planted failure on Broken"

    rows = api(owner).get(f"/api/vaults/{vault.pk}/failures/").json()
    assert [(r["title"], r["step"], r["step_label"], r["reason"]) for r in rows] == [
        ("Broken", "graph_extraction", "graph extraction", "RuntimeError: planted failure on Broken")
    ]
    assert api(make_user("stranger")).get(f"/api/vaults/{vault.pk}/failures/").status_code == 404
    browser = Client()
    browser.force_login(owner)
    page = browser.get(f"/vaults/{vault.pk}/").content.decode()
    assert "1 note failed in graph extraction" in page and "planted failure on Broken" in page

    assert graph_extract_pending(vault_id=vault.pk) == {}  # within its backoff: the next sweep leaves it alone
    _age(broken, backoff(0))
    assert graph_extract_pending(vault_id=vault.pk) == {"failed": 1}  # retried, failed again: waits longer
    assert NoteStepFailure.objects.get(note=broken).retries == 1
    assert backoff(1) == 2 * backoff(0) and backoff(30) == timedelta(days=1)

    monkeypatch.undo()  # the cause is gone: the retry after the backoff succeeds and the failure is cleared
    _age(broken, backoff(1))
    assert graph_extract_pending(vault_id=vault.pk) == {"normal": 1}
    assert not NoteStepFailure.objects.filter(vault=vault).exists()
    assert api(owner).get(f"/api/vaults/{vault.pk}/failures/").json() == []
    assert "failed in" not in browser.get(f"/vaults/{vault.pk}/").content.decode()


def test_a_note_whose_metadata_fails_does_not_stop_the_librarian_s_sweep(vault, owner, monkeypatch):
    for name in ("Boiler", "Broken", "Workshop"):
        make_note(vault, f"{name}.md", f"# {name}\n\n{BODY}")
    _fail_on(monkeypatch, librarian_services, "enrich_note", "Broken")

    assert reenrich(vaults=[vault], everything=True) == {"enriched": 2, "failed": 1, "vaults_skipped": 0}
    failure = NoteStepFailure.objects.get(vault=vault)
    assert (failure.note.title, failure.step) == ("Broken", NoteStep.METADATA)
    page = api(owner).get(f"/api/vaults/{vault.pk}/failures/").json()
    assert [(r["title"], r["step_label"]) for r in page] == [("Broken", "metadata")]


def test_an_import_shows_its_follow_up_steps_and_is_not_plainly_succeeded_while_one_failed(vault, owner, monkeypatch):
    """The job (API, page, vault page) says what its notes still wait for and which failed, with the reasons; it is
    "succeeded" only once every follow-up step is done for them."""
    job = import_folder(vault, SAMPLE_VAULT, source="sample", follow_up=False)
    notes = job.counts["created"]
    client = api(owner)

    def job_view() -> dict:
        return client.get(f"/api/jobs/{job.pk}/").json()

    def steps() -> dict[str, tuple[int, int]]:
        return {s["step"]: (s["waiting"], s["failed"]) for s in job_view()["follow_up"]}

    view = job_view()
    assert (view["import_status"], view["status"], view["status_label"]) == (
        "succeeded",
        "following_up",
        "follow-up running",
    )
    assert steps() == {"embedding": (0, 0), "graph_extraction": (notes, 0), "metadata": (notes, 0)}

    _fail_on(monkeypatch, graph_services, "extract_model_free", "Focaccia al Rosmarino")
    graph_extract_pending(vault_id=vault.pk)
    assert steps()["graph_extraction"] == (0, 1)
    assert job_view()["status"] == "following_up"  # the metadata is still to come

    reenrich(vaults=[vault])
    view = job_view()
    assert (view["status"], view["status_label"]) == ("succeeded_with_failures", "succeeded with failures")
    failed = next(s for s in view["follow_up"] if s["step"] == "graph_extraction")
    assert [(f["path"], f["reason"]) for f in failed["failures"]] == [
        ("kitchen/focaccia.md", "RuntimeError: planted failure on Focaccia al Rosmarino")
    ]
    browser = Client()
    browser.force_login(owner)
    page = browser.get(f"/jobs/{job.pk}/").content.decode()
    assert "succeeded with failures" in page and "1 note failed" in page
    assert "planted failure on Focaccia al Rosmarino" in page and "data-refresh-seconds" not in page
    assert "succeeded with failures" in browser.get(f"/vaults/{vault.pk}/").content.decode()
    assert api(make_user("stranger")).get(f"/api/jobs/{job.pk}/").status_code == 404

    monkeypatch.undo()  # the cause is gone: the retry after the backoff clears the failure, the job succeeded
    _age(Note.objects.get(vault=vault, path="kitchen/focaccia.md"), timedelta(days=1))
    graph_extract_pending(vault_id=vault.pk)
    assert (job_view()["status"], steps()["graph_extraction"]) == ("succeeded", (0, 0))
    assert "data-refresh-seconds" not in browser.get(f"/jobs/{job.pk}/").content.decode()


@pytest.mark.parametrize("task_name", ["extract_pending", "reenrich_stale"])
def test_a_sweep_task_that_fails_on_one_vault_still_processes_the_others(owner, monkeypatch, task_name):
    """The periodic tasks, run as Celery tasks: a vault whose step raises is logged and counted, the next vault
    is still done."""
    from apps.graph import tasks as graph_tasks
    from apps.librarian import tasks as librarian_tasks
    from apps.librarian.models import NoteMetadata

    broken, healthy = make_vault(owner, "Broken vault"), make_vault(owner, "Healthy vault")
    for vault in (broken, healthy):
        make_note(vault, "Boiler.md", f"# Boiler\n\n{BODY}")
    Extraction.objects.all().delete()

    def fail_for_the_broken_vault(module, name):  # type: ignore[no-untyped-def]
        real = getattr(module, name)

        def planted(*args, **kwargs):  # type: ignore[no-untyped-def]
            vaults = kwargs.get("vaults") or []
            if kwargs.get("vault_id") == broken.pk or any(v.pk == broken.pk for v in vaults):
                raise RuntimeError("planted failure of the whole vault")
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, planted)

    if task_name == "extract_pending":
        fail_for_the_broken_vault(graph_tasks, "graph_extract_pending")
        result = graph_tasks.extract_pending.apply(args=[None]).get()
        assert result["vaults_failed"] == 1
        extracted = Extraction.objects.filter(vault__in=[broken, healthy])
        assert list(extracted.values_list("vault_id", flat=True)) == [healthy.pk]
    else:
        fail_for_the_broken_vault(librarian_services, "reenrich")
        result = librarian_tasks.reenrich_stale.apply().get()
        assert result["vaults_failed"] == 1 and result["enriched"] >= 1
        enriched = NoteMetadata.objects.filter(vault__in=[broken, healthy])
        assert list(enriched.values_list("vault_id", flat=True)) == [healthy.pk]
