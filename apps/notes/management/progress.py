"""The terminal's view of a running import: one bar per phase, moving with every file read and every embedding
call (the same steps the job page shows)."""

from __future__ import annotations

from tqdm import tqdm

from apps.core.progress import progress_bar
from apps.notes.models import ImportJob, ImportPhase


class ImportBar:
    def __init__(self, desc: str) -> None:
        self.desc = desc
        self.phase = ""
        self.bar: tqdm | None = None

    def __call__(self, job: ImportJob) -> None:
        if job.phase != self.phase:
            self.close()
            self.phase = job.phase
            if job.phase in (ImportPhase.READING, ImportPhase.EMBEDDING):
                unit = "file" if job.phase == ImportPhase.READING else "chunk"
                self.bar = progress_bar(desc=f"{self.desc}: {job.get_phase_display()}", unit=unit)
        if self.bar is None:
            return
        if self.phase == ImportPhase.READING:
            total, done = job.total, job.processed
        else:
            total, done = job.embed_total, job.embed_done
        self.bar.total = total
        # update() redraws at most once per interval; closing the bar draws its last state
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
