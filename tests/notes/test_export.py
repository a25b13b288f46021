"""A vault's export is a zip that the import reads back into an identical vault: the same notes at the same paths
with the same bodies and hashes, the same links resolved to the same notes, the same attachments. Managers only;
anyone else gets the answer other vault endpoints give."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.test import Client, override_settings

from apps.notes.models import Attachment, ExportJob, ImportFileResult, Note, NoteLink, Tier
from apps.notes.services.export import export_job_run
from apps.notes.services.ingest import import_job_create, import_job_run
from apps.vaults.models import Vault
from tests.corpora import CORPORA, VAULTS
from tests.factories import SAMPLE_VAULT, api, import_folder, make_note, make_user, make_vault, share
from tests.notes.test_attachments import png

pytestmark = pytest.mark.django_db


def _snapshot(vault: Vault) -> dict[str, object]:
    """What a person would call the vault's content: notes, their links as resolved, attachments."""
    notes = Note.objects.filter(vault=vault, tier=Tier.HOT)
    links = NoteLink.objects.filter(vault=vault, source__tier=Tier.HOT).select_related("source", "target")
    return {
        "notes": {n.path: (n.body, n.content_hash, n.title, n.frontmatter) for n in notes},
        "links": sorted(
            (
                link.source.path,
                link.ordinal,
                link.target_text,
                link.kind,
                link.heading,
                link.alias,
                link.block_id,
                link.target.path if link.target else None,
            )
            for link in links
        ),
        "attachments": {
            a.path: (a.content_hash, a.media_type) for a in Attachment.objects.filter(vault=vault, tier=Tier.HOT)
        },
    }


def _export(vault: Vault) -> bytes:
    response = api(vault.owner).get(f"/api/vaults/{vault.pk}/export/")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith("attachment")
    return b"".join(response.streaming_content) if response.streaming else response.content


def _reimport(archive: bytes, name: str) -> Vault:
    copy = make_vault(make_user(), name)
    job = import_job_create(actor=copy.owner, vault=copy, archive=archive, source=name)
    job = import_job_run(job_id=job.pk)
    assert job.status == "succeeded", job.error
    skipped = ImportFileResult.objects.filter(job=job, outcome="skipped").values_list("path", "reason")
    assert not skipped.exists(), list(skipped)
    return copy


def _round_trip(source: Path, name: str) -> tuple[Vault, Vault]:
    original = make_vault(make_user(), name)
    assert import_folder(original, source, follow_up=False).status == "succeeded"
    copy = _reimport(_export(original), f"{name} again")
    return original, copy


@pytest.mark.parametrize("corpus", ["sample", *VAULTS])
def test_an_exported_vault_imports_back_identical(corpus):
    source = SAMPLE_VAULT if corpus == "sample" else CORPORA / corpus
    original, copy = _round_trip(source, corpus)

    before, after = _snapshot(original), _snapshot(copy)
    assert len(before["notes"]) > 30  # type: ignore[arg-type]
    assert sorted(after["notes"]) == sorted(before["notes"])  # type: ignore[call-overload]
    assert after["notes"] == before["notes"]
    assert any(link[-1] for link in before["links"])  # type: ignore[attr-defined]
    assert after["links"] == before["links"]
    assert after["attachments"] == before["attachments"]


def test_attachments_frontmatter_and_a_note_written_in_the_app_come_back(tmp_path):
    (tmp_path / "Trip" / "assets").mkdir(parents=True)
    (tmp_path / "Trip" / "Home.md").write_text(
        "---\ntags: [travel]\naliases: [Base]\n---\n# Home\n\n![[photo.png]] and [[Plans#Day one|the plan]]\n"
    )
    (tmp_path / "Trip" / "Plans.md").write_text("# Plans\n\n## Day one\nWalk to [[Home]].\n")
    (tmp_path / "Trip" / "assets" / "photo.png").write_bytes(png(3, 2, seed=7))
    (tmp_path / "Trip" / "repetitive.md").write_text("# Again\n" + "the same line again\n" * 20000)
    original = make_vault(make_user(), "Trip")
    assert import_folder(original, tmp_path, follow_up=False).status == "succeeded"
    make_note(original, "Written here.md", "# Written here\nPoints at [[Plans]].", embed=False)
    gone = Note.objects.get(vault=original, path="Trip/Plans.md")

    archive = _export(original)
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        names = sorted(zf.namelist())
        assert zf.read("Trip/Trip/Home.md").decode().startswith("---\ntags: [travel]")
    assert names == [
        "Trip/.desirepath/export.json",
        "Trip/Trip/Home.md",
        "Trip/Trip/Plans.md",
        "Trip/Trip/assets/photo.png",
        "Trip/Trip/repetitive.md",
        "Trip/Written here.md",
    ]
    copy = _reimport(archive, "Trip again")
    assert _snapshot(copy) == _snapshot(original)
    assert Note.objects.get(vault=copy, path="Trip/Home.md").tags == ["travel"]
    assert Attachment.objects.get(vault=copy, path="Trip/assets/photo.png").media_type == "image/png"

    # A deleted note (cold tier) is not exported.
    gone.tier = Tier.COLD
    gone.save(update_fields=["tier"])
    with zipfile.ZipFile(io.BytesIO(_export(original))) as zf:
        assert "Trip/Trip/Plans.md" not in zf.namelist()


def _edited(archive: bytes, changes: dict[str, bytes]) -> bytes:
    """The archive unpacked, some files changed, and packed again (the manifest goes along, as a folder's would)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive)) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            target.writestr(name, changes.get(name, source.read(name)))
    return out.getvalue()


def test_a_vaults_own_export_edited_elsewhere_updates_it_and_nobody_elses_export_does(tmp_path):
    (tmp_path / "Home.md").write_text("# Home\nThe kettle is in the left cupboard.\n")
    (tmp_path / "Plans.md").write_text("# Plans\nWalk to [[Home]].\n")
    vault = make_vault(make_user(), "Trip")
    assert import_folder(vault, tmp_path, source="laptop", follow_up=False).status == "succeeded"
    make_note(vault, "Written here.md", "# Written here\nPoints at [[Plans]].", embed=False)
    archive = _edited(
        _export(vault),
        {
            "Trip/Home.md": b"# Home\nThe kettle is in the right cupboard now.\n",
            "Trip/Written here.md": b"# Written here\nPoints at [[Plans]] and [[Home]].\n",
        },
    )

    job = import_job_run(
        job_id=import_job_create(actor=vault.owner, vault=vault, archive=archive, source="Trip (1)").pk
    )
    outcomes = dict(ImportFileResult.objects.filter(job=job).values_list("path", "outcome"))
    assert job.own_export and outcomes == {"Home.md": "updated", "Plans.md": "unchanged", "Written here.md": "updated"}
    home = Note.objects.get(vault=vault, path="Home.md")
    assert (
        "right cupboard" in home.body and home.source == f"{vault.owner.username}/laptop"
    )  # still the laptop's: its next import updates it
    assert Note.objects.get(vault=vault, path="Written here.md").source == ""
    page = Client()
    page.force_login(vault.owner)
    assert "This is an export of Trip" in page.get(f"/jobs/{job.pk}/").content.decode()

    # Another vault's export is someone else's source there: what that vault's own imports wrote stays
    other = make_vault(vault.owner, "Trip copy")
    assert import_folder(other, tmp_path, source="laptop", follow_up=False).status == "succeeded"
    foreign = import_job_run(job_id=import_job_create(actor=vault.owner, vault=other, archive=archive, source="x").pk)
    assert not foreign.own_export
    assert set(ImportFileResult.objects.filter(job=foreign).values_list("outcome", flat=True)) == {"skipped", "created"}
    assert "left cupboard" in Note.objects.get(vault=other, path="Home.md").body


def test_only_managers_export_and_others_get_the_usual_answers():
    owner = make_user()
    vault = make_vault(owner, "Team notes")
    make_note(vault, "A.md", "# A", embed=False)
    reader, contributor, stranger = make_user(), make_user(), make_user()
    share(vault, "reader", user=reader)
    share(vault, "contributor", user=contributor)

    for user in (reader, contributor):
        assert api(user).get(f"/api/vaults/{vault.pk}/export/").status_code == 403
        assert api(user).post(f"/api/vaults/{vault.pk}/export/").status_code == 403
    missing = api(stranger).get("/api/vaults/999999/export/")
    forbidden = api(stranger).get(f"/api/vaults/{vault.pk}/export/")
    assert forbidden.status_code == missing.status_code == 404
    assert forbidden.json() == missing.json()
    assert api(stranger).post(f"/api/vaults/{vault.pk}/export/").status_code == 404
    assert api(owner).get(f"/api/vaults/{vault.pk}/export/").status_code == 200


@override_settings(EXPORT_INLINE_MAX_BYTES=1000)
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_large_vault_is_exported_by_the_worker_then_downloaded(worker):
    owner = make_user("exporter")
    vault = make_vault(owner, "Big")
    for n in range(30):
        make_note(vault, f"Folder/Note {n}.md", f"# Note {n}\nSee [[Note {(n + 1) % 30}]].\n" + "words " * 50)
    client = api(owner)

    refused = client.get(f"/api/vaults/{vault.pk}/export/")
    assert refused.status_code == 413 and "POST" in refused.json()["detail"]
    started = client.post(f"/api/vaults/{vault.pk}/export/")
    assert started.status_code == 202
    job = started.json()
    assert job["status"] == "queued" and job["download_url"] is None
    early = client.get(f"/api/exports/{job['id']}/download/")
    assert early.status_code in (200, 409)

    import time

    deadline = time.time() + 120
    while (job := client.get(job["url"]).json())["status"] not in ("succeeded", "failed"):
        assert time.time() < deadline, "the export did not finish"
        time.sleep(0.3)
    assert job["status"] == "succeeded", job["error"]
    assert job["notes"] == 30 and job["attachments"] == 0
    download = client.get(job["download_url"])
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
    copy = _reimport(download.content, "Big again")
    assert _snapshot(copy)["notes"] == _snapshot(vault)["notes"]
    assert _snapshot(copy)["links"] == _snapshot(vault)["links"]

    # Another person, even a reader of the vault, sees no export of it.
    reader = make_user()
    share(vault, "reader", user=reader)
    assert api(reader).get(job["url"]).status_code == 404
    assert api(reader).get(job["download_url"]).status_code == 404
    # The next export replaces this one's zip: one vault keeps one.
    second = client.post(f"/api/vaults/{vault.pk}/export/").json()
    deadline = time.time() + 120
    while client.get(second["url"]).json()["status"] not in ("succeeded", "failed"):
        assert time.time() < deadline
        time.sleep(0.3)
    replaced = client.get(job["download_url"])
    assert replaced.status_code == 409 and "newer export" in replaced.json()["detail"]
    assert ExportJob.objects.filter(vault=vault, archive__isnull=False).count() == 1


def test_a_manager_exports_from_the_vault_page_and_downloads_the_zip_when_the_worker_is_done():
    owner, reader = make_user(), make_user()
    vault = make_vault(owner, "Paged")
    make_note(vault, "A.md", "# A\nSee [[B]].", embed=False)
    make_note(vault, "B.md", "# B", embed=False)
    share(vault, "reader", user=reader)
    browser, other = Client(), Client()
    browser.force_login(owner)
    other.force_login(reader)

    page = browser.get(f"/vaults/{vault.pk}/").content.decode()
    assert f'href="/api/vaults/{vault.pk}/export/"' in page and "Export in the background" in page
    assert "Export in the background" not in other.get(f"/vaults/{vault.pk}/").content.decode()
    started = browser.post(f"/vaults/{vault.pk}/export/")
    assert started.status_code == 302
    job = ExportJob.objects.get(vault=vault)
    assert started["Location"] == f"/exports/{job.pk}/"
    waiting = browser.get(started["Location"]).content.decode()
    assert "queued" in waiting and "data-refresh-seconds" in waiting and "Download" not in waiting

    export_job_run(job_id=job.pk)  # what the worker does with the queued job

    done = browser.get(started["Location"]).content.decode()
    assert "succeeded" in done and "2 notes" in done and "data-refresh-seconds" not in done
    download = browser.get(f"/api/exports/{job.pk}/download/")
    assert download.status_code == 200
    with zipfile.ZipFile(io.BytesIO(download.content)) as zf:
        assert sorted(zf.namelist()) == ["Paged/.desirepath/export.json", "Paged/A.md", "Paged/B.md"]
    assert other.post(f"/vaults/{vault.pk}/export/").status_code == 403
    assert other.get(started["Location"]).status_code == 404
