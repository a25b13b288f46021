"""Admin: the Librarian's metadata and its history (read-only) and a "Re-enrich all" action on vaults, queued to
the worker."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from apps.core.admin import ReadOnlyAdmin
from apps.librarian.models import NoteMetadata, NoteMetadataVersion
from apps.librarian.tasks import reenrich_vaults
from apps.vaults.admin import VaultAdmin


@admin.action(description="Re-enrich all notes' metadata with the current model (queued)")
def reenrich_all(modeladmin: Any, request: HttpRequest, queryset: QuerySet[Any]) -> None:
    ids = list(queryset.values_list("pk", flat=True))
    reenrich_vaults.delay(ids, True)
    modeladmin.message_user(request, f"Re-enrichment of {len(ids)} vault(s) queued.", messages.SUCCESS)


VaultAdmin.actions = [*(VaultAdmin.actions or []), reenrich_all]  # type: ignore[misc]


@admin.register(NoteMetadata)
class NoteMetadataAdmin(ReadOnlyAdmin):
    """Who wrote a note's metadata, with which model, for which version; its claim and tensions restate the note,
    so they are not shown."""

    content_fields = ("core_claim", "tensions")
    list_display = ["note", "vault", "model", "bridging_domains", "written_at"]
    list_filter = ["model"]


@admin.register(NoteMetadataVersion)
class NoteMetadataVersionAdmin(ReadOnlyAdmin):
    """Every version of a note's metadata as written: who wrote it, for which version of the note, when (the
    history holds no claim or tension, only their digest)."""

    list_display = ["note_id", "vault_id", "model", "bridging_domains", "claim_hash", "written_at"]
    list_filter = ["model"]
