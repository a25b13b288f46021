from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from apps.core.admin import ReadOnlyAdmin, ReadOnlyInline
from apps.notes.models import Attachment, Correction, ImportFileResult, ImportJob, Note


@admin.register(Note)
class NoteAdmin(admin.ModelAdmin):
    """Notes with their provenance. Content changes go through the API so they are audited."""

    list_display = ["id", "title", "vault", "path", "provenance", "tier", "source", "content_modified_at"]
    list_filter = ["provenance", "tier", "vault"]
    search_fields = ["title", "path"]
    readonly_fields = [f.name for f in Note._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class FileResultInline(ReadOnlyInline):
    model = ImportFileResult
    fields = ("path", "outcome", "reason")


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    list_display = ["id", "vault", "source", "status", "processed", "total", "created_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = [
        "vault",
        "created_by",
        "source",
        "folder",
        "status",
        "total",
        "processed",
        "counts",
        "error",
        "created_at",
        "started_at",
        "finished_at",
    ]
    exclude = ["archive"]
    inlines = [FileResultInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(Correction)
class CorrectionAdmin(ReadOnlyAdmin):
    """Corrections are applied or declined by a vault's contributors (vault page or API), never here."""

    list_display = ["created_at", "vault", "note", "status", "proposed_by", "decided_by", "successor"]
    list_filter = ["status"]


@admin.register(Attachment)
class AttachmentAdmin(ReadOnlyAdmin):
    """A vault's files as imported; their bytes are served to the vault's readers, never shown here."""

    list_display = ["id", "vault", "path", "media_type", "size", "tier", "source", "updated_at"]
    list_filter = ["media_type", "tier"]
    search_fields = ["path"]
