from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import F, QuerySet
from django.http import Http404

from apps.core.auth import Requester
from apps.notes.models import Correction, CorrectionStatus, ImportJob, Note, NoteLink, NoteStepFailure, Tier
from apps.vaults.models import Vault
from apps.vaults.permissions import vaults_for


def note_list(*, vault: Vault, tier: str = Tier.HOT) -> QuerySet[Note]:
    """Notes of a vault the caller has already resolved with `vault_get` (permission checked)."""
    return Note.objects.filter(vault=vault, tier=tier).order_by("path")


def note_get(*, user: Requester, note_id: object) -> Note:
    """A note in a vault the user may read; 404 for missing and forbidden alike."""
    try:
        return Note.objects.select_related("vault").get(pk=int(str(note_id)), vault__in=vaults_for(user, "read"))
    except (Note.DoesNotExist, ValueError) as exc:
        raise Http404("No note matches the given query.") from exc


def note_links(*, note: Note) -> QuerySet[NoteLink]:
    return NoteLink.objects.filter(source=note, vault_id=note.vault_id).select_related("target")


def notes_for_embedding(*, user: Requester, note_ids: Iterable[int]) -> dict[int, tuple[Note, list[NoteLink]]]:
    """Notes among `note_ids` in vaults the user may read, each with its own links (the ones its embeds follow);
    the others are simply absent."""
    notes = Note.objects.filter(pk__in=list(note_ids), vault__in=vaults_for(user, "read"))
    found: dict[int, tuple[Note, list[NoteLink]]] = {note.pk: (note, []) for note in notes}
    for link in NoteLink.objects.filter(source_id__in=list(found), vault_id=F("source__vault_id")):
        found[link.source_id][1].append(link)
    return found


def note_backlinks(*, note: Note) -> QuerySet[Note]:
    """Live notes of the same vault that link here."""
    return (
        Note.objects.filter(vault_id=note.vault_id, tier=Tier.HOT, outgoing_links__target=note)
        .exclude(pk=note.pk)
        .distinct()
        .order_by("path")
    )


def import_job_get(*, user: Requester, job_id: object) -> ImportJob:
    """An import job of a vault the user may read; 404 otherwise."""
    try:
        return ImportJob.objects.get(pk=int(str(job_id)), vault__in=vaults_for(user, "read"))
    except (ImportJob.DoesNotExist, ValueError) as exc:
        raise Http404("No import job matches the given query.") from exc


def note_metadata(*, note: Note) -> object | None:
    """The note's collision metadata (written by the Librarian), or None while it has none."""
    try:
        return note.metadata  # type: ignore[attr-defined]
    except ObjectDoesNotExist:
        return None


def correction_list(*, vault: Vault, status: str | None = None) -> QuerySet[Correction]:
    """Corrections of a vault the caller resolved with `vault_get(action="contribute")`."""
    rows = Correction.objects.filter(vault=vault).select_related("note", "successor", "proposed_by", "decided_by")
    return rows.filter(status=status) if status else rows


def correction_get(*, user: Requester, correction_id: object) -> Correction:
    """A correction in a vault the user may read (acting on it needs `contribute`); 404 otherwise."""
    try:
        return Correction.objects.select_related("note__vault").get(
            pk=int(str(correction_id)), vault__in=vaults_for(user, "read")
        )
    except (Correction.DoesNotExist, ValueError) as exc:
        raise Http404("No correction matches the given query.") from exc


def note_superseded(*, note: Note) -> list[dict[str, object]]:
    """The note's passages that applied corrections replaced, each with its successor (same vault)."""
    rows = Correction.objects.filter(note=note, vault_id=note.vault_id, status=CorrectionStatus.APPLIED)
    return [
        {"correction": c.pk, "passage": c.passage, "successor": {"id": c.successor_id, "path": c.successor.path}}
        for c in rows.select_related("successor")
        if c.successor is not None
    ]


def step_failure_list(*, user: Requester, vault_id: int) -> QuerySet[NoteStepFailure]:
    """The background steps that failed on notes of a vault the user may read (none otherwise), by step, newest
    failure first."""
    rows = NoteStepFailure.objects.filter(vault_id=vault_id, vault__in=vaults_for(user, "read"))
    return rows.select_related("note").order_by("step", "-failed_at", "id")
