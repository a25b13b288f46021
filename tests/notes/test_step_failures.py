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
from apps.notes.models import NoteStep, NoteStepFailure
from apps.notes.services.failures import backoff
from tests.factories import api, make_note, make_user

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
