"""A vault written out as a zip that the import reads back into an identical vault: every hot note as its Markdown
text (frontmatter included, as it was imported or written) and every hot attachment's bytes, at their paths, under
one top folder named after the vault (the import drops a single top folder, so the paths come back as they were).

Small vaults are answered at once; any vault can be exported by the worker (`export_job_create`), the zip kept on
the job until the vault's next export."""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from datetime import UTC, datetime
from typing import BinaryIO

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Func, IntegerField, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.audit.services import audit_record
from apps.notes.models import Attachment, ExportJob, ImportStatus, Note, Tier
from apps.notes.selectors import readable_notes
from apps.notes.services.ingest import EXPORT_MANIFEST, MAX_COMPRESSION_RATIO, export_manifest
from apps.vaults.models import Vault
from apps.vaults.permissions import user_may

NOTES_PER_READ = 500
# Highly repetitive files are stored uncompressed: the import refuses entries that expand past its zip-bomb ratio.
STORE_ABOVE_RATIO = MAX_COMPRESSION_RATIO // 2


def export_folder_name(vault: Vault) -> str:
    """The zip's one top folder: the vault's name with characters file systems refuse replaced."""
    name = re.sub(r'[\x00-\x1f/\\:*?"<>|]+', "_", vault.name).strip(" .")
    return name[:100] or f"vault-{vault.pk}"


class _OctetLength(Func):
    function = "OCTET_LENGTH"
    output_field = IntegerField()


def export_size(*, vault: Vault) -> int:
    """Bytes of the vault's hot notes and attachments, before compression."""
    notes = Note.objects.filter(vault=vault, tier=Tier.HOT).aggregate(n=Coalesce(Sum(_OctetLength("body")), 0))["n"]
    files = Attachment.objects.filter(vault=vault, tier=Tier.HOT).aggregate(n=Coalesce(Sum("size"), 0))["n"]
    return int(notes) + int(files)


def _entry(name: str, data: bytes, modified: datetime | None) -> tuple[zipfile.ZipInfo, bytes]:
    when = (modified or timezone.now()).astimezone(UTC)
    info = zipfile.ZipInfo(name, date_time=(max(when.year, 1980), when.month, when.day, when.hour, when.minute, 0))
    squeezed = len(zlib.compress(data, 6)) if data else 0
    repetitive = squeezed and len(data) / squeezed > STORE_ABOVE_RATIO
    info.compress_type = zipfile.ZIP_STORED if repetitive else zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info, data


def vault_export_write(*, vault: Vault, out: BinaryIO, reader: User) -> tuple[int, int]:
    """Write the vault's zip to `out`; (notes, attachments) written. Reads a batch of notes at a time. A note drawn
    from a vault `reader` cannot read (a filed copy of a revoked share) stays out, as everywhere else. A manifest
    names the vault, so that the zip, edited and imported back into it, updates the notes it holds."""
    top = export_folder_name(vault)
    notes = attachments = 0
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr(*_entry(f"{top}/{EXPORT_MANIFEST}", export_manifest(vault), timezone.now()))
        rows = Note.objects.filter(readable_notes(reader), vault=vault, tier=Tier.HOT).order_by("path")
        for note in rows.only("path", "body", "content_modified_at").iterator(chunk_size=NOTES_PER_READ):
            zf.writestr(*_entry(f"{top}/{note.path}", note.body.encode("utf-8"), note.content_modified_at))
            notes += 1
        files = Attachment.objects.filter(vault=vault, tier=Tier.HOT).select_related("blob").order_by("path")
        for attachment in files.iterator(chunk_size=20):
            zf.writestr(*_entry(f"{top}/{attachment.path}", bytes(attachment.blob.data), attachment.updated_at))
            attachments += 1
    return notes, attachments


def vault_export_inline(*, actor: User, vault: Vault) -> bytes:
    """The zip of a vault small enough to be answered at once (managers; audited)."""
    if not user_may(actor, "manage", vault):
        raise PermissionDenied("your role on this vault does not allow exporting it (managers)")
    buffer = io.BytesIO()
    notes, attachments = vault_export_write(vault=vault, out=buffer, reader=actor)
    audit_record(
        actor=actor,
        action="vault.export",
        object_type="vault",
        object_id=vault.pk,
        vault_id=vault.pk,
        changes={"notes": notes, "attachments": attachments},
    )
    return buffer.getvalue()


@transaction.atomic
def export_job_create(*, actor: User, vault: Vault) -> ExportJob:
    """Queue an export of the vault (managers); the worker builds the zip after commit."""
    from apps.notes.tasks import export_run

    if not user_may(actor, "manage", vault):
        raise PermissionDenied("your role on this vault does not allow exporting it (managers)")
    job = ExportJob.objects.create(vault=vault, created_by=actor)
    audit_record(
        actor=actor, action="vault.export.queue", object_type="export_job", object_id=job.pk, vault_id=vault.pk
    )

    def send() -> None:
        try:
            export_run.delay(job.pk)
        except Exception as exc:  # noqa: BLE001 - reported on the job, which the requester polls
            ExportJob.objects.filter(pk=job.pk).update(
                status=ImportStatus.FAILED, error=f"the task queue is unreachable ({type(exc).__name__}); try again"
            )

    transaction.on_commit(send)
    return job


def export_job_run(*, job_id: int) -> ExportJob:
    """Build a queued export's zip (idempotent: a job another run claimed is left alone). The requester must still
    manage the vault; the vault's earlier exports give their zips up, so one vault holds one."""
    claimed = ExportJob.objects.filter(pk=job_id, status=ImportStatus.QUEUED).update(status=ImportStatus.RUNNING)
    job = ExportJob.objects.select_related("vault", "created_by").get(pk=job_id)
    if not claimed:
        return job
    if job.created_by is None or not user_may(job.created_by, "manage", job.vault):
        job.status, job.error = ImportStatus.FAILED, "the requester may no longer export this vault"
    else:
        buffer = io.BytesIO()
        try:
            job.notes, job.attachments = vault_export_write(vault=job.vault, out=buffer, reader=job.created_by)
        except Exception as exc:
            job.status, job.error, job.finished_at = ImportStatus.FAILED, f"{type(exc).__name__}: {exc}", timezone.now()
            job.save(update_fields=["status", "error", "finished_at"])
            raise
        job.archive, job.size, job.status = buffer.getvalue(), buffer.tell(), ImportStatus.SUCCEEDED
    job.finished_at = timezone.now()
    with transaction.atomic():
        job.save(update_fields=["status", "error", "archive", "size", "notes", "attachments", "finished_at"])
        if job.status == ImportStatus.SUCCEEDED:
            ExportJob.objects.filter(vault_id=job.vault_id).exclude(pk=job.pk).update(archive=None)
    return job
