"""Background steps over a vault's notes fail one note at a time: a failure is recorded against its note, logged,
and the sweep goes on. The failed note is retried by a later sweep once its backoff has passed; success clears it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from apps.notes.models import Note, NoteStep, NoteStepFailure

logger = logging.getLogger(__name__)

T = TypeVar("T")
BACKOFF = timedelta(minutes=15)  # the sweep's own period: the first retry is the next sweep
BACKOFF_CAP = timedelta(days=1)
REASON_CHARS = 2000


def backoff(retries: int) -> timedelta:
    """How long a note that failed `retries` times after its first failure waits before the next try."""
    return min(BACKOFF * 2 ** min(retries, 16), BACKOFF_CAP)


def step_failure_record(*, note: Note, step: NoteStep, model: str, error: BaseException) -> NoteStepFailure:
    """Record (or count again) the step's failure on this note."""
    reason = f"{type(error).__name__}: {error}"[:REASON_CHARS]
    now = timezone.now()
    row, created = NoteStepFailure.objects.get_or_create(
        note=note,
        step=step,
        defaults={"vault_id": note.vault_id, "model": model, "reason": reason, "failed_at": now},
    )
    if not created:
        NoteStepFailure.objects.filter(pk=row.pk).update(
            model=model, reason=reason, failed_at=now, retries=F("retries") + 1
        )
        row.refresh_from_db()
    return row


def step_held(*, vault_id: int, step: NoteStep, now: datetime | None = None) -> set[int]:
    """The notes of a vault whose last failure of this step is still within its backoff: a sweep skips them."""
    now = now or timezone.now()
    rows = NoteStepFailure.objects.filter(vault_id=vault_id, step=step).values_list("note_id", "failed_at", "retries")
    return {note_id for note_id, failed_at, retries in rows if failed_at + backoff(retries) > now}


def step_run(*, note: Note, step: NoteStep, model: str, run: Callable[[], T]) -> T | None:
    """Run one note's step in a savepoint of its own; on failure record it and return None, on success clear any
    earlier failure. A task's time limit is not a note's failure: it ends the sweep."""
    try:
        with transaction.atomic():
            result = run()
    except SoftTimeLimitExceeded:
        raise
    except Exception as error:  # recorded against the note; the sweep goes on
        logger.exception("%s failed on note %s (vault %s)", step.label, note.pk, note.vault_id)
        step_failure_record(note=note, step=step, model=model, error=error)
        return None
    NoteStepFailure.objects.filter(note=note, step=step).delete()
    return result
