"""What the librarian does when a room below it reports (subscribed in `LibrarianConfig.ready`)."""

from __future__ import annotations

from django.db.models import Exists, OuterRef

from apps.core.queue import queue_after_commit
from apps.librarian.enrich import current_writer, stale_notes
from apps.librarian.tasks import enrich_vault, file_exchange_task
from apps.notes.models import NoteStep, NoteStepFailure
from apps.vaults.chat_settings import parse
from apps.vaults.models import Vault


def file_answered(*, message_id: int) -> None:
    """After each exchange, in the worker: was it a concept worth filing, or chatter?"""
    queue_after_commit(file_exchange_task, message_id, fallback="this exchange is not filed")


def enrich_written(*, vault_id: int | None) -> None:
    """Notes of a vault were imported, or embedded after a write: their collision metadata is queued at once, one
    task for the vault. The periodic embedding sweep over every vault (`None`) leaves it to the stale sweep."""
    if vault_id is not None:
        queue_after_commit(enrich_vault, vault_id, fallback="the stale sweep writes the metadata")


def metadata_waiting(*, vault_id: int, note_ids: list[int]) -> tuple[str, int]:
    """How many of these notes have no metadata of their current content by the vault's writer yet (none when the
    vault's Librarian is off), leaving out those whose metadata failed (recorded, retried by the sweep)."""
    vault = Vault.objects.filter(pk=vault_id).first()
    if vault is None or not parse(vault.chat_settings).switches["librarian"]:
        return NoteStep.METADATA, 0
    failed = NoteStepFailure.objects.filter(note_id=OuterRef("pk"), step=NoteStep.METADATA)
    waiting = stale_notes(vault_id, current_writer(vault.chat_settings)).filter(pk__in=note_ids)
    return NoteStep.METADATA, waiting.exclude(Exists(failed)).count()
