"""A vault's coverage: every file its imports read, with the state it is in now (indexed, unchanged, waiting,
skipped, failed, removed), the reason, and when it was last imported — over the API and on a page."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.notes.models import ChunkVector, ImportJob, Note, NoteStep
from apps.notes.services.failures import step_failure_record
from tests.factories import api, import_folder, make_user, make_vault, share
from tests.notes.test_attachments import png
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db


def _by_path(response) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    return {f["path"]: f for f in response.json()["files"]}


def test_coverage_says_what_each_imported_file_became_and_why(tmp_path):
    (tmp_path / "Garden.md").write_text("# Garden\nTomatoes need sun.\n")
    (tmp_path / "Kitchen.md").write_text("# Kitchen\nBread needs time.\n")
    (tmp_path / "Shed.md").write_text("# Shed\nTools hang on the wall.\n")
    (tmp_path / "Attic.md").write_text("# Attic\nBoxes of letters.\n")
    (tmp_path / "broken.md").write_bytes(b"\xff\xfe not utf-8")
    (tmp_path / "data.xyz").write_text("not a note")
    (tmp_path / "photo.png").write_bytes(png())
    owner = make_user()
    vault = make_vault(owner, "Home")
    first = import_folder(vault, tmp_path, follow_up=False)

    (tmp_path / "Kitchen.md").write_text("# Kitchen\nBread needs time and warmth.\n")
    (tmp_path / "Attic.md").unlink()
    second = import_folder(vault, tmp_path, follow_up=False)
    garden = Note.objects.get(vault=vault, path="Garden.md")
    step_failure_record(
        note=garden, step=NoteStep.GRAPH_EXTRACTION, model="scripted", error=RuntimeError("the model timed out")
    )
    shed = Note.objects.get(vault=vault, path="Shed.md")
    ChunkVector.objects.filter(note_id=shed.pk).delete()  # as if the embedding call had failed: the sweep redoes it

    response = api(owner).get(f"/api/vaults/{vault.pk}/coverage/")

    assert response.status_code == 200
    assert_matches_schema(response)
    files = _by_path(response)
    assert sorted(files) == ["Attic.md", "Garden.md", "Kitchen.md", "Shed.md", "broken.md", "data.xyz", "photo.png"]
    assert files["Kitchen.md"]["state"] == "indexed" and files["Kitchen.md"]["kind"] == "note"
    assert files["photo.png"]["state"] == "unchanged" and files["photo.png"]["kind"] == "file"
    assert files["Garden.md"]["state"] == "failed"
    assert files["Garden.md"]["step"] == "graph_extraction" and "the model timed out" in files["Garden.md"]["reason"]
    assert files["Shed.md"]["state"] == "waiting"
    assert files["Attic.md"]["state"] == "removed" and files["Attic.md"]["reason"] == "gone from the source"
    assert files["broken.md"]["state"] == "skipped" and "UTF-8" in files["broken.md"]["reason"]
    assert files["data.xyz"]["state"] == "skipped" and "not a Markdown note" in files["data.xyz"]["reason"]
    second = ImportJob.objects.get(pk=second.pk)
    assert {f["job"] for f in files.values()} == {second.pk} != {first.pk}
    assert files["Kitchen.md"]["imported_at"] == second.finished_at.isoformat().replace("+00:00", "Z")
    assert files["Kitchen.md"]["note"] == Note.objects.get(vault=vault, path="Kitchen.md").pk
    assert response.json()["counts"] == {
        "indexed": 1,
        "unchanged": 1,
        "waiting": 1,
        "skipped": 2,
        "failed": 1,
        "removed": 1,
    }

    # Readers see it too, on the page as in the API; `?state=` narrows the page.
    reader = make_user()
    share(vault, "reader", user=reader)
    assert _by_path(api(reader).get(f"/api/vaults/{vault.pk}/coverage/")) == files
    browser = Client()
    browser.force_login(reader)
    page = browser.get(f"/vaults/{vault.pk}/coverage/").content.decode()
    assert "the model timed out" in page and "gone from the source" in page and "data.xyz" in page
    skipped_only = browser.get(f"/vaults/{vault.pk}/coverage/?state=skipped").content.decode()
    assert "data.xyz" in skipped_only and "Kitchen.md" not in skipped_only
    assert f'href="/vaults/{vault.pk}/coverage/"' in browser.get(f"/vaults/{vault.pk}/").content.decode()


def test_a_vault_with_no_import_has_an_empty_coverage():
    owner = make_user()
    vault = make_vault(owner, "Empty")
    response = api(owner).get(f"/api/vaults/{vault.pk}/coverage/")
    assert response.status_code == 200
    assert response.json()["files"] == [] and set(response.json()["counts"].values()) == {0}
    browser = Client()
    browser.force_login(owner)
    assert "No import has read a file" in browser.get(f"/vaults/{vault.pk}/coverage/").content.decode()
