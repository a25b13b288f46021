"""An import runs with the rights its requester has when it runs, not when it was queued."""

from __future__ import annotations

import pytest

from apps.notes.models import ImportJob, ImportStatus, Note
from apps.notes.services.ingest import BATCH_FILES, import_job_create, import_job_run
from apps.vaults.services import vault_unshare
from tests.factories import make_user, numbered_notes_zip, share

pytestmark = pytest.mark.django_db


def test_an_import_queued_by_a_contributor_whose_role_was_revoked_does_not_run(vault):
    contributor = make_user("leaver")
    share(vault, "contributor", user=contributor)
    job = import_job_create(actor=contributor, vault=vault, archive=numbered_notes_zip(10), source="export")
    vault_unshare(actor=vault.owner, vault=vault, user=contributor)

    job = import_job_run(job_id=job.pk)

    assert job.status == ImportStatus.FAILED
    assert "may no longer write to this vault" in job.error
    assert not Note.objects.filter(vault=vault).exists()


def test_a_role_revoked_while_the_import_runs_stops_it_before_the_next_batch(vault):
    contributor = make_user("leaver")
    share(vault, "contributor", user=contributor)
    job = import_job_create(
        actor=contributor, vault=vault, archive=numbered_notes_zip(BATCH_FILES * 3), source="export"
    )

    def revoke_after_the_first_batch(progress: ImportJob) -> None:
        if progress.processed == BATCH_FILES + 1:
            vault_unshare(actor=vault.owner, vault=vault, user=contributor)

    job = import_job_run(job_id=job.pk, progress=revoke_after_the_first_batch)

    assert job.status == ImportStatus.FAILED and "may no longer write to this vault" in job.error
    assert Note.objects.filter(vault=vault).count() == BATCH_FILES  # what was written before stays, nothing after
    assert ImportJob.objects.get(pk=job.pk).status == ImportStatus.FAILED
