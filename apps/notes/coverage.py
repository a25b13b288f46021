"""What the imports left in a vault, file by file: every path its imports read, with the state that file is in now
and when it was last imported. A person sees at once what is searchable, what was skipped and why, and which notes
a background step failed on."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from apps.core.auth import Requester
from apps.llm.embeddings import current_model
from apps.notes.models import Attachment, FileOutcome, ImportFileResult, Note, NoteStepFailure, Tier
from apps.notes.services.ingest import MISSING_FROM_SOURCE
from apps.notes.vectors import chunks_without_vector
from apps.vaults.permissions import vaults_for

INDEXED = "indexed"  # stored, searchable, every step done
UNCHANGED = "unchanged"  # the last import found it as stored before (and every step done)
WAITING = "waiting"  # stored; its passages wait for their embedding
SKIPPED = "skipped"
FAILED = "failed"  # stored, but a background step failed on it
REMOVED = "removed"  # gone from the source, or deleted in DesirePath since
STATES = (INDEXED, UNCHANGED, WAITING, SKIPPED, FAILED, REMOVED)


@dataclass(frozen=True)
class FileCoverage:
    path: str
    kind: str  # "note" or "file" (an attachment); "" for a file never stored
    state: str
    reason: str
    step: str  # the failed step, when state is "failed"
    imported_at: datetime | None
    job: int
    note: int | None


@dataclass(frozen=True)
class Coverage:
    counts: dict[str, int]
    files: list[FileCoverage]


def import_coverage(*, user: Requester, vault_id: int) -> Coverage:
    """Every file the vault's imports read, by path, as its latest import left it and as it stands now; empty for a
    vault the user may not read."""
    latest = (
        ImportFileResult.objects.filter(vault_id=vault_id, vault__in=vaults_for(user, "read"))
        .order_by("path", "-job__created_at", "-id")
        .distinct("path")
        .values_list("path", "outcome", "reason", "job_id", "job__finished_at", "job__started_at")
    )
    rows = list(latest)
    paths = [row[0] for row in rows]
    notes = {
        path: (pk, tier, cold)
        for pk, path, tier, cold in Note.objects.filter(vault_id=vault_id, path__in=paths).values_list(
            "id", "path", "tier", "cold_reason"
        )
    }
    files = dict(Attachment.objects.filter(vault_id=vault_id, path__in=paths).values_list("path", "tier"))
    failures = {
        note_id: (step, reason)
        for note_id, step, reason in NoteStepFailure.objects.filter(vault_id=vault_id)
        .order_by("note_id", "step")
        .values_list("note_id", "step", "reason")
    }
    waiting = set(
        chunks_without_vector(current_model()).filter(vault_id=vault_id).values_list("note_id", flat=True).distinct()
    )
    out = []
    for path, outcome, reason, job_id, finished_at, started_at in rows:
        kind, state, why, step, note = _state(path, outcome, reason, notes, files, failures, waiting)
        when = finished_at or started_at
        out.append(FileCoverage(path, kind, state, why, step, imported_at=when, job=job_id, note=note))
    counts = Counter(f.state for f in out)
    return Coverage(counts={state: counts.get(state, 0) for state in STATES}, files=out)


def _state(
    path: str,
    outcome: str,
    reason: str,
    notes: dict[str, tuple[int, str, str]],
    files: dict[str, str],
    failures: dict[int, tuple[str, str]],
    waiting: set[int],
) -> tuple[str, str, str, str, int | None]:
    """(kind, state, reason, step, note id) of one file from its latest outcome and what the vault holds now."""
    if outcome == FileOutcome.SKIPPED:
        kind = "note" if path in notes else ("file" if path in files else "")
        note = notes[path][0] if path in notes else None
        return kind, SKIPPED, reason, "", note
    if path in notes:
        note_id, tier, cold_reason = notes[path]
        if tier == Tier.COLD or outcome == FileOutcome.MOVED_TO_COLD:
            gone = cold_reason == MISSING_FROM_SOURCE
            why = reason or ("gone from the source" if gone else "deleted in DesirePath")
            return "note", REMOVED, why, "", note_id
        if note_id in failures:
            step, why = failures[note_id]
            return "note", FAILED, why, step, note_id
        if note_id in waiting:
            return "note", WAITING, "its passages wait for their embedding", "", note_id
        return "note", UNCHANGED if outcome == FileOutcome.UNCHANGED else INDEXED, reason, "", note_id
    if path in files:
        if files[path] == Tier.COLD or outcome == FileOutcome.MOVED_TO_COLD:
            return "file", REMOVED, reason or "deleted in DesirePath", "", None
        return "file", UNCHANGED if outcome == FileOutcome.UNCHANGED else INDEXED, reason, "", None
    return "", REMOVED, reason or "no longer in the vault", "", None
