"""Re-enrichment: rewrite notes' collision metadata with the current model, everything or only what is stale,
within a budget. The note rows are never written (their content-modified and updated times stay as they are)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from django.conf import settings
from django.contrib.auth.models import User

from apps.core.sweep import sweep
from apps.graph.services import extractor_for, graph_extract_step, graph_structure_refresh
from apps.librarian.enrich import current_writer, enrich_note, stale_notes
from apps.notes.models import Note, NoteStep, Tier
from apps.notes.services.failures import step_held, step_run
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
    Librarian is off are skipped untouched. A note whose step fails is recorded against it (`failed`) and the
    sweep goes on; the stale sweep leaves it alone until its backoff has passed."""
    counts = {"enriched": 0, "failed": 0, "vaults_skipped": 0}
    for vault in vaults:
        if not parse(vault.chat_settings).switches["librarian"]:
            counts["vaults_skipped"] += 1
            continue
        writer, extractor = current_writer(vault.chat_settings), extractor_for(vault)
        if everything:
            notes = Note.objects.filter(vault=vault, tier=Tier.HOT).order_by("id")
        else:
            notes = stale_notes(vault.pk, writer).exclude(pk__in=step_held(vault_id=vault.pk, step=NoteStep.METADATA))
        done = []
        for note in notes.select_related("vault")[:budget]:
            enriched = step_run(
                note=note, step=NoteStep.METADATA, model=writer, run=partial(enrich_note, note, user=user)
            )
            # the graph is re-read with the metadata
            extracted = graph_extract_step(note=note, force=everything, model=extractor)
            done.append(note)
            ok = enriched is not None and extracted is not None
            counts["enriched" if ok else "failed"] += 1
            if tick:
                tick(1)
        if done:
            graph_structure_refresh(vault_id=vault.pk, notes=done)
    return counts


def reenrich_stale_everywhere() -> dict[str, int]:
    """The beat job: every vault, stale notes only, within the per-vault budget. A vault that raises is logged and
    left to the next run (`vaults_failed`); the others go on."""
    budget = int(settings.LIBRARIAN_REENRICH_BUDGET)
    done, failed = sweep(
        list(Vault.objects.order_by("id").values_list("pk", flat=True)),
        "metadata of vault",
        lambda vault_id: reenrich(vaults=list(Vault.objects.filter(pk=vault_id)), budget=budget),
    )
    totals = {"enriched": 0, "failed": 0, "vaults_skipped": 0}
    for counts in done.values():
        totals = {key: totals[key] + counts.get(key, 0) for key in totals}
    return totals | ({"vaults_failed": len(failed)} if failed else {})
