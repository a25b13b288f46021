"""The web pages: a contributor uploads a zip on the vault page and follows the import, and applies readers'
proposed corrections there; readers cannot."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.test import Client

from apps.notes.models import ImportJob, Note
from apps.notes.services.corrections import correction_submit
from apps.notes.services.ingest import import_job_run
from tests.factories import api, make_note, make_user, make_vault, share

pytestmark = pytest.mark.django_db


def _browser(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _zip() -> io.BytesIO:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("Notes/Idea.md", "# Idea\nsomething")
    buffer.seek(0)
    buffer.name = "Notes.zip"
    return buffer


def test_contributor_uploads_on_the_vault_page_and_lands_on_the_job(vault):
    contributor, reader = make_user(), make_user()
    share(vault, "contributor", user=contributor)
    share(vault, "reader", user=reader)
    make_note(vault, "Existing.md", "# Existing\nhello", embed=False)

    page = _browser(contributor).get(f"/vaults/{vault.pk}/")
    assert b"Upload zip or note" in page.content and b"Existing" in page.content
    response = _browser(contributor).post(f"/vaults/{vault.pk}/", {"file": _zip()})
    job = ImportJob.objects.get(vault=vault)
    assert response.status_code == 302 and response["Location"] == f"/jobs/{job.pk}/"
    job_page = _browser(contributor).get(f"/jobs/{job.pk}/")
    assert b"queued" in job_page.content and b"<progress" in job_page.content

    assert b"Upload zip" not in _browser(reader).get(f"/vaults/{vault.pk}/").content
    refused = _browser(reader).post(f"/vaults/{vault.pk}/", {"file": _zip()})
    assert b"does not allow" in refused.content
    assert ImportJob.objects.filter(vault=vault).count() == 1


def test_an_upload_that_is_neither_a_zip_nor_a_note_is_explained(vault):
    bad = io.BytesIO(b"plain text")
    bad.name = "notes.txt"
    response = _browser(vault.owner).post(f"/vaults/{vault.pk}/", {"file": bad})
    assert "“notes.txt” is neither a zip of notes nor a Markdown note (.md)" in response.content.decode()
    assert not ImportJob.objects.filter(vault=vault).exists()


def test_the_import_page_names_the_zip_labels_its_counts_and_leads_back_to_the_vault(vault):
    browser = _browser(vault.owner)
    job = ImportJob.objects.get(pk=browser.post(f"/vaults/{vault.pk}/", {"file": _zip()})["Location"].split("/")[2])
    import_job_run(job_id=job.pk)

    page = browser.get(f"/jobs/{job.pk}/").content.decode()
    assert f"<h1>Import of Notes.zip into {vault.name}</h1>" in page  # as uploaded, not "owner/Notes"
    assert f'<a href="/vaults/{vault.pk}/">← Back to {vault.name}</a>' in page
    assert "Files created: 1" in page and "Passages embedded: 1" in page
    assert "chunks_embedded" not in page


def test_an_import_is_named_by_the_file_as_uploaded_and_by_the_label_an_api_upload_was_given(vault):
    browser = _browser(vault.owner)
    upload = _zip()
    upload.name = "Vault.ZIP"
    job = ImportJob.objects.get(pk=browser.post(f"/vaults/{vault.pk}/", {"file": upload})["Location"].split("/")[2])
    page = browser.get(f"/jobs/{job.pk}/").content.decode()
    assert f"<h1>Import of Vault.ZIP into {vault.name}</h1>" in page  # not "Vault.ZIP.zip"

    labelled = _zip()
    labelled.name = "export.zip"
    queued = api(vault.owner).post(
        f"/api/vaults/{vault.pk}/import/", {"file": labelled, "source": "team notes"}, format="multipart"
    )
    assert (queued.json()["file_name"], queued.json()["source"]) == ("export.zip", f"{vault.owner.username}/team notes")
    page = browser.get(f"/jobs/{queued.json()['job']}/").content.decode()
    assert f"<h1>Import of team notes (export.zip) into {vault.name}</h1>" in page  # not "team notes.zip"


def test_a_single_markdown_note_is_imported_at_the_vaults_top(vault):
    note = io.BytesIO(b"# Runbook\nRestart the cache first.")
    note.name = "Runbook.md"
    browser = _browser(vault.owner)
    response = browser.post(f"/vaults/{vault.pk}/", {"file": note})
    job = ImportJob.objects.get(vault=vault)
    assert response["Location"] == f"/jobs/{job.pk}/"
    import_job_run(job_id=job.pk)

    imported = Note.objects.get(vault=vault)
    assert (imported.path, imported.title) == ("Runbook.md", "Runbook")
    page = browser.get(f"/jobs/{job.pk}/").content.decode()
    assert "Import of Runbook.md into" in page and "Files created: 1" in page


def test_pages_need_a_login_and_hide_unreadable_vaults(vault):
    assert Client().get(f"/vaults/{vault.pk}/").status_code == 302
    assert _browser(make_user()).get(f"/vaults/{vault.pk}/").status_code == 404
    other = make_vault(make_user())
    assert _browser(vault.owner).get(f"/vaults/{other.pk}/").status_code == 404


def test_contributors_see_readers_proposed_corrections_and_apply_them_on_the_vault_page(vault):
    contributor, reader = make_user(), make_user()
    share(vault, "contributor", user=contributor)
    share(vault, "reader", user=reader)
    note = make_note(vault, "PTW.md", "# PTW\nThe IT helpdesk issues permits to work.", embed=False)
    proposal = correction_submit(user=reader, chunk=note.chunks.get(), text="Facilities issue permits to work.")

    assert b"Proposed corrections" not in _browser(reader).get(f"/vaults/{vault.pk}/").content
    page = _browser(contributor).get(f"/vaults/{vault.pk}/").content.decode()
    assert "Proposed corrections" in page and "Facilities issue permits to work." in page and reader.username in page
    unknown = _browser(contributor).post(f"/vaults/{vault.pk}/", {"correction": proposal.pk, "action": "burn"})
    assert unknown.status_code == 200 and b"Apply or decline." in unknown.content
    refused = _browser(reader).post(f"/vaults/{vault.pk}/", {"correction": proposal.pk, "action": "apply"})
    assert refused.status_code == 200 and b"does not allow" in refused.content
    applied = _browser(contributor).post(f"/vaults/{vault.pk}/", {"correction": proposal.pk, "action": "apply"})
    assert applied.status_code == 302
    proposal.refresh_from_db()
    assert proposal.status == "applied" and proposal.decided_by == contributor

    shown = _browser(reader).get(f"/notes/{note.pk}/").content.decode()
    assert "superseded" in shown and f"/notes/{proposal.successor_id}/" in shown
    assert b"Proposed corrections" not in _browser(contributor).get(f"/vaults/{vault.pk}/").content
