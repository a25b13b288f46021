"""Admin: the Librarian's metadata (read-only) and a "Re-enrich all" action on vaults, queued to the worker."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from apps.librarian.models import NoteMetadata
from apps.librarian.tasks import reenrich_vaults
from apps.vaults.admin import VaultAdmin


@admin.action(description="Re-enrich all notes' metadata with the current model (queued)")
def reenrich_all(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Any]) -> None:
    ids = list(queryset.values_list("pk", flat=True))
    reenrich_vaults.delay(ids, True)
    modeladmin.message_user(request, f"Re-enrichment of {len(ids)} vault(s) queued.", messages.SUCCESS)


VaultAdmin.actions = [*(VaultAdmin.actions or []), reenrich_all]  # type: ignore[misc]


@admin.register(NoteMetadata)
class NoteMetadataAdmin(admin.ModelAdmin):
    list_display = ["note", "vault", "model", "written_at"]
    list_filter = ["model"]
    readonly_fields = [f.name for f in NoteMetadata._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
