"""Where an import stands once its files are in: the follow-up steps its notes wait for (embedding here, graph
extraction and metadata in higher apps, asked through `hooks.steps_waiting`) and the failures recorded against
them. Derived every time from the notes' state and their `NoteStepFailure` rows, never stored beside them."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import QuerySet

from apps.llm.embeddings import current_model
from apps.notes.hooks import steps_waiting
from apps.notes.models import (
    FileOutcome,
    ImportJob,
    ImportPhase,
    ImportStatus,
    Note,
    NoteStepFailure,
)
from apps.notes.vectors import chunks_without_vector

EMBEDDING = "embedding"  # retried as a whole by its sweep: never a note's recorded failure
FAILURES_SHOWN = 100


class JobStatus:
    """What a job shows: the import's own status, refined once it succeeded by what its notes still wait for."""

    QUEUED = "queued"
    RUNNING = "running"
    FAILED = "failed"
    FOLLOWING_UP = "following_up"
    SUCCEEDED_WITH_FAILURES = "succeeded_with_failures"
    SUCCEEDED = "succeeded"
    NOTHING_IMPORTED = "nothing_imported"
    LABELS = {
        QUEUED: "queued",
        RUNNING: "running",
        FAILED: "failed",
        FOLLOWING_UP: "follow-up running",
        SUCCEEDED_WITH_FAILURES: "succeeded with failures",
        SUCCEEDED: "succeeded",
        NOTHING_IMPORTED: "finished: nothing imported",
    }


@dataclass
class StepState:
    step: str
    label: str
    waiting: int = 0
    failures: list[NoteStepFailure] = field(default_factory=list)


@dataclass
class FollowUp:
    status: str
    steps: list[StepState]
    left_out: dict[str, int] = field(default_factory=dict)  # when nothing was imported: files per outcome

    @property
    def label(self) -> str:
        counted = ", ".join(f"{n} {LEFT_OUT_WORDS.get(outcome, outcome)}" for outcome, n in self.left_out.items())
        return JobStatus.LABELS[self.status] + (f" — {counted}" if counted else "")


# The outcomes that put (or keep) a file's content in the vault: a job with none of them imported nothing.
IMPORTED = (FileOutcome.CREATED, FileOutcome.UPDATED, FileOutcome.UNCHANGED)
LEFT_OUT_WORDS: dict[str, str] = {FileOutcome.SKIPPED: "skipped", FileOutcome.MOVED_TO_COLD: "moved to the cold tier"}


def job_notes(job: ImportJob) -> QuerySet[Note]:
    """The notes this job created or updated (found again by path in its vault)."""
    paths = job.outcomes().filter(outcome__in=[FileOutcome.CREATED, FileOutcome.UPDATED])
    return Note.objects.filter(vault_id=job.vault_id, path__in=paths.values("path"))


def import_job_follow_up(job: ImportJob) -> FollowUp:
    """The job's shown status (a job whose every file was skipped says it imported nothing) and, once its files are
    in, each follow-up step: how many of its notes wait for it and the failures recorded on them (newest first).
    The caller has read access to the job's vault."""
    if job.status != ImportStatus.SUCCEEDED:
        return FollowUp(status=str(job.status), steps=[])
    if not any(job.counts.get(str(outcome)) for outcome in IMPORTED):
        left_out = {str(o): job.counts[str(o)] for o in LEFT_OUT_WORDS if job.counts.get(str(o))}
        return FollowUp(status=JobStatus.NOTHING_IMPORTED, steps=[], left_out=left_out)
    note_ids = list(job_notes(job).values_list("pk", flat=True))
    unembedded = chunks_without_vector(current_model()).filter(note_id__in=note_ids)
    steps = [StepState(EMBEDDING, "embedding", waiting=unembedded.values("note_id").distinct().count())]
    labels = dict(NoteStepFailure._meta.get_field("step").choices or [])
    for step, waiting in steps_waiting(vault_id=job.vault_id, note_ids=note_ids):
        steps.append(StepState(step, str(labels.get(step, step)), waiting=waiting))
    failures = NoteStepFailure.objects.filter(vault_id=job.vault_id, note_id__in=note_ids).select_related("note")
    by_step = {s.step: s for s in steps}
    for row in failures.order_by("-failed_at", "id"):
        state = by_step.setdefault(row.step, StepState(row.step, row.get_step_display()))
        if state not in steps:
            steps.append(state)
        state.failures.append(row)
    if any(s.waiting for s in steps):
        status = JobStatus.FOLLOWING_UP
    elif any(s.failures for s in steps):
        status = JobStatus.SUCCEEDED_WITH_FAILURES
    else:
        status = JobStatus.SUCCEEDED
    return FollowUp(status=status, steps=steps)


def job_progress(job: ImportJob) -> float:
    """Share of the import done: reading is the first half, embedding the second (1.0 once the files are in)."""
    if job.status == ImportStatus.SUCCEEDED or job.phase == ImportPhase.LINKING:
        return 1.0
    if job.phase == ImportPhase.EMBEDDING:
        return round(0.5 + (job.embed_done / job.embed_total / 2 if job.embed_total else 0.5), 4)
    return round(job.processed / job.total / 2, 4) if job.total else 0.0
