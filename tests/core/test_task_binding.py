"""What a Celery task reads at the database: the signals the worker sends around every task bind it, to the vaults
it was given, to the person it runs for, or to every vault."""

from __future__ import annotations

import pytest
from celery.signals import task_postrun, task_prerun

from apps.feedback.tasks import later_search
from apps.graph.tasks import extract_written
from apps.notes.models import ImportJob, Note
from apps.notes.tasks import export_run, import_run
from tests.factories import make_note, make_user, make_vault, share

pytestmark = pytest.mark.django_db


def _notes_seen(vaults, task, *args, **kwargs):  # type: ignore[no-untyped-def]
    """Inside the binding the worker gives `task` called with these arguments: the notes each of `vaults` shows."""
    task_prerun.send(sender=task, task_id="bound-task", task=task, args=args, kwargs=kwargs)
    try:
        return {vault: Note.objects.filter(vault_id=vault).count() for vault in vaults}
    finally:
        task_postrun.send(sender=task, task_id="bound-task", task=task, args=args, kwargs=kwargs, retval=None)


def test_a_task_given_one_vault_reads_that_vault_alone_and_the_others_every_vault():
    owner = make_user()
    mine, other = make_vault(owner, "Mine"), make_vault(owner, "Other")
    make_note(mine, "a.md", "# A\nalpha", embed=False)
    make_note(other, "b.md", "# B\nbeta", embed=False)
    both = [mine.pk, other.pk]

    assert _notes_seen(both, extract_written, mine.pk) == {mine.pk: 1, other.pk: 0}  # positional, as `.delay(v)`
    assert _notes_seen(both, extract_written, vault_id=other.pk) == {mine.pk: 0, other.pk: 1}
    assert _notes_seen(both, export_run, job_id=1) == {mine.pk: 1, other.pk: 1}  # no vault given: every vault
    # An import works on one vault's record: its job names the vault, and the task reads that vault alone.
    job = ImportJob.objects.create(vault=other, created_by=owner, source="notes.zip")
    assert _notes_seen(both, import_run, job.pk) == {mine.pk: 0, other.pk: 1}
    assert _notes_seen(both, import_run, job_id=job.pk + 1000) == {mine.pk: 0, other.pk: 0}  # no such job: nothing
    assert Note.objects.filter(vault_id__in=both).count() == 2  # the test's own binding is back after each


def test_a_task_run_for_one_person_reads_what_that_person_reads_now():
    owner, reader = make_user(), make_user()
    shared, private = make_vault(owner, "Shared"), make_vault(owner, "Private")
    make_note(shared, "a.md", "# A\nalpha", embed=False)
    make_note(private, "b.md", "# B\nbeta", embed=False)
    share(shared, "reader", user=reader)
    both = [shared.pk, private.pk]

    assert _notes_seen(both, later_search, reader.pk, "alpha") == {shared.pk: 1, private.pk: 0}
    assert _notes_seen(both, later_search, user_id=owner.pk, text="alpha") == {shared.pk: 1, private.pk: 1}
    reader.is_active = False
    reader.save(update_fields=["is_active"])
    assert _notes_seen(both, later_search, reader.pk, "alpha") == {shared.pk: 0, private.pk: 0}  # gone: nothing
    assert _notes_seen(both, later_search, user_id=None, text="alpha") == {shared.pk: 0, private.pk: 0}
