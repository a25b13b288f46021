"""Storing a vault's attachments: bytes once per vault and content hash, one row per path."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.db import connection

from apps.notes.media import sniff
from apps.notes.models import Attachment, AttachmentBlob, ImportJob, Tier


@dataclass(frozen=True)
class AttachmentDraft:
    """An attachment read from a source, not yet stored."""

    data: bytes
    content_hash: str
    media_type: str

    @classmethod
    def of(cls, data: bytes) -> AttachmentDraft:
        return cls(data=data, content_hash=hashlib.sha256(data).hexdigest(), media_type=sniff(data))


def name_key_of(path: str) -> str:
    return path.rsplit("/", 1)[-1].lower()


def attachments_locked(*, vault_id: int, paths: list[str]) -> dict[str, Attachment]:
    """The attachments now stored at these paths, locked until the transaction ends."""
    rows = Attachment.objects.select_for_update().filter(vault_id=vault_id, path__in=paths)
    return {row.path: row for row in rows}


AttachmentWrite = tuple[str, Attachment | None, AttachmentDraft]  # path, the row now there (or None), new content


def attachments_save(*, job: ImportJob, writes: list[AttachmentWrite]) -> list[Attachment]:
    """Store each write: its bytes once per vault and hash, then its row, hot. Runs inside the import's
    transaction and lock."""
    blob_ids = _blobs_ensure(vault_id=job.vault_id, drafts=[draft for _, _, draft in writes])
    saved = []
    for path, row, draft in writes:
        attachment = row or Attachment(vault_id=job.vault_id, path=path, created_by=job.created_by, source=job.source)
        attachment.name_key = name_key_of(path)
        attachment.blob_id = blob_ids[draft.content_hash]
        attachment.content_hash, attachment.size = draft.content_hash, len(draft.data)
        attachment.media_type = draft.media_type
        attachment.tier, attachment.cold_reason = Tier.HOT, ""
        attachment.save()
        saved.append(attachment)
    return saved


def _blobs_ensure(*, vault_id: int, drafts: list[AttachmentDraft]) -> dict[str, int]:
    """Blob ids by hash, inserting the bytes only of hashes the vault does not hold yet."""
    hashes = {draft.content_hash for draft in drafts}
    held = dict(
        AttachmentBlob.objects.filter(vault_id=vault_id, sha256__in=hashes).values_list("sha256", "id")
    )  # ids only: the bytes stay in the database
    new = {d.content_hash: d for d in drafts if d.content_hash not in held}
    for blob in AttachmentBlob.objects.bulk_create(
        AttachmentBlob(vault_id=vault_id, sha256=h, size=len(d.data), data=d.data) for h, d in new.items()
    ):
        held[blob.sha256] = blob.pk
    return held


def attachment_blobs_prune(*, vault_id: int) -> int:
    """Remove the bytes no attachment of the vault points at any more (a file's earlier content); returns how
    many. Runs under the import lock, so no import is between storing a blob and pointing a row at it."""
    # In SQL: the ORM's delete would first load the rows, bytes and all, to check the protected references.
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM notes_attachmentblob b WHERE b.vault_id = %s AND NOT EXISTS "
            "(SELECT 1 FROM notes_attachment a WHERE a.blob_id = b.id)",
            [vault_id],
        )
        return cursor.rowcount
