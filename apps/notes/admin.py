from django.contrib import admin

from apps.core.admin import ReadOnlyAdmin, ReadOnlyInline
from apps.notes.models import Attachment, Correction, ImportFileResult, ImportJob, Note


@admin.register(Note)
class NoteAdmin(ReadOnlyAdmin):
    """Notes by their provenance, never their text: an administrator observes, and has no access to what a vault
    holds. Content changes go through the API so they are audited."""

    content_fields = ("body", "frontmatter", "link_keys", "block_ids")
    list_display = ["id", "title", "vault", "path", "provenance", "tier", "source", "content_modified_at"]
    list_filter = ["provenance", "tier", "vault"]
    search_fields = ["title", "path"]


class FileResultInline(ReadOnlyInline):
    model = ImportFileResult
    fields = ("attempt", "path", "outcome", "reason")


@admin.register(ImportJob)
class ImportJobAdmin(ReadOnlyAdmin):
    """Imports and every file's outcome, kept: nobody deletes or edits them here."""

    # By id: a record outlives its vault, and the list must still show it.
    list_display = ["id", "vault_id", "source", "status", "attempt", "processed", "total", "created_at", "finished_at"]
    list_filter = ["status"]
    fields = [
        "vault",
        "created_by",
        "source",
        "folder",
        "status",
        "attempt",
        "total",
        "processed",
        "counts",
        "error",
        "created_at",
        "started_at",
        "finished_at",
    ]
    inlines = [FileResultInline]  # the uploaded archive itself is not shown


@admin.register(Correction)
class CorrectionAdmin(ReadOnlyAdmin):
    """Corrections are applied or declined by a vault's contributors (vault page or API), never here; the passage
    and the proposed text are the vault's, not shown."""

    content_fields = ("passage", "text")

    list_display = ["created_at", "vault", "note", "status", "proposed_by", "decided_by", "successor"]
    list_filter = ["status"]


@admin.register(Attachment)
class AttachmentAdmin(ReadOnlyAdmin):
    """A vault's files as imported; their bytes are served to the vault's readers, never shown here."""

    list_display = ["id", "vault", "path", "media_type", "size", "tier", "source", "updated_at"]
    list_filter = ["media_type", "tier"]
    search_fields = ["path"]
