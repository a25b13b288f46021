from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from apps.core.admin import ReadOnlyAdmin, ReadOnlyInline
from apps.notes.models import LIBRARIAN_SOURCE, Attachment, Correction, ImportFileResult, ImportJob, Note


@admin.register(Note)
class NoteAdmin(ReadOnlyAdmin):
    """Notes by their provenance, never their text: an administrator observes, and has no access to what a vault
    holds. Content changes go through the API so they are audited."""

    content_fields = ("body", "frontmatter", "link_keys", "block_ids")
    # A note the Librarian filed takes its title and path from someone's chat question: shown by id only.
    filed_fields = ("title", "path", "aliases")
    list_display = ["id", "shown_title", "vault", "shown_path", "provenance", "tier", "source", "content_modified_at"]
    list_filter = ["provenance", "tier", "vault"]
    search_fields = ["title", "path"]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = super().get_fields(request, obj)
        if obj is not None and obj.filed_by_librarian:
            return [name for name in fields if name not in self.filed_fields]
        return fields

    def get_search_results(self, request: HttpRequest, queryset: QuerySet[Any], search_term: str) -> Any:
        found, duplicates = super().get_search_results(request, queryset, search_term)
        if search_term:
            found = found.exclude(source=LIBRARIAN_SOURCE)
        return found, duplicates

    @admin.display(description="title")
    def shown_title(self, note: Note) -> str:
        return "(filed by the Librarian)" if note.filed_by_librarian else note.title

    @admin.display(description="path")
    def shown_path(self, note: Note) -> str:
        return "" if note.filed_by_librarian else note.path


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
