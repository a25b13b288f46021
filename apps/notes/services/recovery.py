"""Imports whose worker was lost: resumed from the files they had written, or failed with the reason."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from apps.audit.services import audit_record
from apps.notes.models import ImportJob, ImportStatus
from apps.notes.services.ingest import import_job_enqueue, import_source_available
from apps.notes.services.notes import require

MAX_RESUMES = 3  # a job that loses its worker this often is taking it down: it fails instead of trying again


def imports_recover(*, stale_after: float | None = None) -> dict[str, int]:
    """Running jobs whose heartbeat stopped for `stale_after` seconds (IMPORT_STALE_SECONDS): queued again to go
    on after their last written file while their source is there, else failed with the reason."""
    seconds = float(settings.IMPORT_STALE_SECONDS if stale_after is None else stale_after)
    cutoff = timezone.now() - timedelta(seconds=seconds)
    stale = Q(status=ImportStatus.RUNNING) & (
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at=None, started_at__lt=cutoff) | Q(heartbeat_at=None, started_at=None)
    )
    outcome = {"resumed": 0, "failed": 0}
    for job_id in ImportJob.objects.filter(stale).values_list("id", flat=True):
        with transaction.atomic():
            job = ImportJob.objects.select_for_update(skip_locked=True).filter(stale, pk=job_id).first()
            if job is None:  # another sweep has it, or its run moved on meanwhile
                continue
            if not import_source_available(job):
                reason = "the worker running this import stopped and its source folder is gone; import it again"
            elif job.resumes >= MAX_RESUMES:
                reason = f"the worker running this import stopped {job.resumes + 1} times; it was not resumed again"
            else:
                reason = ""
            if reason:
                job.status, job.error, job.finished_at = ImportStatus.FAILED, reason, timezone.now()
                job.save(update_fields=["status", "error", "finished_at"])
                outcome["failed"] += 1
                continue
            ImportJob.objects.filter(pk=job.pk).update(
                status=ImportStatus.QUEUED, resumes=F("resumes") + 1, heartbeat_at=timezone.now()
            )
            import_job_enqueue(job)
            outcome["resumed"] += 1
    return outcome


@transaction.atomic
def import_job_retry(*, actor: User, job: ImportJob) -> ImportJob:
    """Run a failed import again from its first file (contributors), as its next attempt: the outcomes of the
    earlier ones stay on record. Unchanged files cost little."""
    job = ImportJob.objects.select_for_update().select_related("vault").get(pk=job.pk)
    require(actor, "contribute", job.vault)
    if job.status != ImportStatus.FAILED:
        raise ValidationError({"detail": ["only a failed import can be retried"]})
    if not import_source_available(job):
        raise ValidationError({"detail": ["the files of this import are gone; import them again"]})
    job.status, job.error, job.finished_at, job.resumes, job.created_by = ImportStatus.QUEUED, "", None, 0, actor
    job.attempt += 1
    job.save(update_fields=["status", "error", "finished_at", "resumes", "created_by", "attempt"])
    audit_record(actor=actor, action="import.retry", object_type="import_job", object_id=job.pk, vault_id=job.vault_id)
    import_job_enqueue(job)
    return job
