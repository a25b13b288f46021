"""What the graph does when a lower app reports a change (subscribed in `GraphConfig.ready`)."""

from __future__ import annotations

from django.db.models import Exists, OuterRef

from apps.core.queue import queue_after_commit
from apps.graph.models import Extraction
from apps.graph.services import extractor_for
from apps.graph.tasks import extract_pending, extract_written
from apps.notes.models import Note, NoteStep, NoteStepFailure, Tier
from apps.vaults.models import Vault


def extract_imported(*, vault_id: int) -> None:
    """After every import, one task for the vault: the graph material of what changed, then its communities (the
    constellation shows clusters soon after an import, not an hour later). Queued, so the import never waits for
    it; the periodic sweeps catch up if the queue is down."""
    queue_after_commit(extract_written, vault_id, fallback="the periodic sweep extracts the graph")


def extract_embedded(*, vault_id: int | None) -> None:
    """Graph extraction follows an embedding run as a task of its own: embedding never waits for it."""
    queue_after_commit(extract_pending, vault_id, fallback="the periodic sweep extracts the graph")


def extraction_waiting(*, vault_id: int, note_ids: list[int]) -> tuple[str, int]:
    """How many of these notes have no extraction of their current content by the vault's extractor yet, leaving
    out those whose extraction failed (recorded, retried by the sweep)."""
    vault = Vault.objects.filter(pk=vault_id).first()
    if vault is None:
        return NoteStep.GRAPH_EXTRACTION, 0
    current = Extraction.objects.filter(
        note_id=OuterRef("pk"), model=extractor_for(vault), content_hash=OuterRef("content_hash")
    )
    failed = NoteStepFailure.objects.filter(note_id=OuterRef("pk"), step=NoteStep.GRAPH_EXTRACTION)
    waiting = Note.objects.filter(vault_id=vault_id, pk__in=note_ids, tier=Tier.HOT)
    return NoteStep.GRAPH_EXTRACTION, waiting.exclude(Exists(current)).exclude(Exists(failed)).count()
