"""Re-enrichment: rewrite notes' collision metadata with the current model, everything or only what is stale,
within a budget. The note rows are never written (their content-modified and updated times stay as they are)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.models import User

from apps.graph.services import graph_extract_note, graph_structure_refresh
from apps.librarian.enrich import current_writer, enrich_note, stale_notes
from apps.notes.models import Note, Tier
from apps.vaults.chat_settings import parse
from apps.vaults.models import Vault


def reenrich(
    *,
    vaults: list[Vault],
    everything: bool = False,
    budget: int | None = None,
    user: User | None = None,
    tick: Callable[[int], None] | None = None,
) -> dict[str, int]:
    """Per vault, at most `budget` notes (None: no limit), metadata and graph extraction; vaults whose
    Librarian is off are skipped untouched."""
    counts = {"enriched": 0, "vaults_skipped": 0}
    for vault in vaults:
        if not parse(vault.chat_settings).switches["librarian"]:
            counts["vaults_skipped"] += 1
            continue
        if everything:
            notes = Note.objects.filter(vault=vault, tier=Tier.HOT).order_by("id")
        else:
            notes = stale_notes(vault.pk, current_writer(vault.chat_settings))
        done = []
        for note in notes.select_related("vault")[:budget]:
            enrich_note(note, user=user)
            graph_extract_note(note=note, force=everything)  # the graph is re-read with the metadata
            done.append(note)
            counts["enriched"] += 1
            if tick:
                tick(1)
        if done:
            graph_structure_refresh(vault_id=vault.pk, notes=done)
    return counts


def reenrich_stale_everywhere() -> dict[str, int]:
    """The beat job: every vault, stale notes only, within the per-vault budget."""
    return reenrich(vaults=list(Vault.objects.order_by("id")), budget=int(settings.LIBRARIAN_REENRICH_BUDGET))
