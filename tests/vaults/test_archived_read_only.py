"""An archived vault is read-only for every role: its notes, imports and corrections refuse to change (409 with the
reason, nothing stored lost), its pages offer no change, and everything works again once a manager brings it back.
Reading it, choosing it by name and giving feedback go on."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from apps.notes.models import Correction, CorrectionStatus, ImportStatus, Note, Tier
from apps.notes.services.corrections import correction_submit
from apps.notes.services.ingest import import_job_create, import_job_run
from apps.notes.services.notes import note_delete
from apps.vaults.models import Vault
from apps.vaults.services import vault_archive
from tests.factories import api, make_note, make_user, numbered_notes_zip, share

pytestmark = pytest.mark.django_db

BODY = "# Boiler\nThe boiler is serviced every October by the caretaker."


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def contributor(vault: Vault) -> User:
    person = make_user(f"contributor-{vault.pk}")
    share(vault, "contributor", user=person)
    return person


def _archive(vault: Vault) -> Vault:
    return vault_archive(actor=vault.owner, vault=vault, archived=True)


def test_nothing_in_an_archived_vault_changes_through_the_api_until_it_is_back(vault, contributor):
    note = make_note(vault, "Boiler.md", BODY)
    gone = make_note(vault, "Old.md", "# Old\nThe old rota.")
    note_delete(actor=vault.owner, note=gone)
    _archive(vault)
    client = api(contributor)
    owner = api(vault.owner)

    refusals = [
        client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "New.md", "body": "# New\nText."}, format="json"),
        client.patch(f"/api/notes/{note.pk}/", {"body": "# Boiler\nNever serviced."}, format="json"),
        client.delete(f"/api/notes/{note.pk}/"),
        owner.post(f"/api/notes/{gone.pk}/restore/"),
        owner.post(f"/api/notes/{gone.pk}/purge/"),
    ]
    for response in refusals:
        assert response.status_code == 409, (response.request["PATH_INFO"], response.content)
        assert "archived" in response.json()["detail"]

    note.refresh_from_db()
    assert note.body == BODY and note.tier == Tier.HOT
    assert Note.objects.get(pk=gone.pk).tier == Tier.COLD
    assert not Note.objects.filter(vault=vault, path="New.md").exists()
    assert client.get(f"/api/notes/{note.pk}/").status_code == 200  # still read

    vault_archive(actor=vault.owner, vault=Vault.objects.get(pk=vault.pk), archived=False)
    created = client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "New.md", "body": "# New\nText."}, format="json")
    assert created.status_code == 201


def test_an_import_is_refused_on_an_archived_vault_and_one_queued_before_stops_with_the_reason(vault, contributor):
    queued = import_job_create(actor=contributor, vault=vault, archive=numbered_notes_zip(3), source="rota")
    _archive(vault)

    upload = api(contributor).post(
        f"/api/vaults/{vault.pk}/import/", {"file": _zip_upload(numbered_notes_zip(2))}, format="multipart"
    )
    assert upload.status_code == 409 and "archived" in upload.json()["detail"]

    finished = import_job_run(job_id=queued.pk)
    assert finished.status == ImportStatus.FAILED and "archived" in finished.error
    assert not Note.objects.filter(vault=vault).exists()


def _zip_upload(data: bytes):  # type: ignore[no-untyped-def]
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("rota.zip", data, content_type="application/zip")


def test_a_contributors_correction_in_an_archived_vault_waits_as_a_proposal(vault, contributor):
    note = make_note(vault, "Boiler.md", BODY)
    _archive(vault)
    chunk = note.chunks.first()
    assert chunk is not None
    correction = correction_submit(user=contributor, chunk=chunk, text="The boiler is serviced every September.")
    assert correction.status == CorrectionStatus.PROPOSED
    assert Note.objects.get(pk=note.pk).body == BODY
    refused = api(contributor).post(f"/api/corrections/{correction.pk}/", {"action": "apply"}, format="json")
    assert refused.status_code == 409
    assert Correction.objects.get(pk=correction.pk).status == CorrectionStatus.PROPOSED


def test_the_pages_of_an_archived_vault_say_so_and_offer_no_change(vault, contributor):
    note = make_note(vault, "Boiler.md", BODY)
    browser = _browser(contributor)
    assert "Edit</a>" in browser.get(f"/notes/{note.pk}/").content.decode()
    _archive(vault)

    page = browser.get(f"/notes/{note.pk}/").content.decode()
    assert "archived vault: read-only" in page and "Edit</a>" not in page
    vault_page = browser.get(f"/vaults/{vault.pk}/").content.decode()
    assert "it is read-only" in vault_page and "Upload zip" not in vault_page and "New note" not in vault_page

    for address in (f"/vaults/{vault.pk}/notes/new/", f"/notes/{note.pk}/edit/"):
        refused = browser.get(address)
        assert refused.status_code == 409, address
        text = refused.content.decode()
        assert "is archived" in text and f'href="/vaults/{vault.pk}/"' in text

    typed = browser.post(f"/notes/{note.pk}/edit/", {"path": "Boiler.md", "body": "# Boiler\nRewritten."})
    assert typed.status_code == 409 and "Rewritten." in typed.content.decode()  # the draft stays in the editor
    assert Note.objects.get(pk=note.pk).body == BODY

    chat = browser.get("/chat/").content.decode()
    assert "Archived (1)" in chat and "except the archived ones" in chat
