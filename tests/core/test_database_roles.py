"""The application's database role: no superuser, owner of nothing, and refused by PostgreSQL itself where the
append-only logs and the triggers are concerned — whatever the application's code asks."""

from __future__ import annotations

import pgtrigger
import pytest
from django.apps import apps
from django.db import DatabaseError, connection, transaction

from apps.audit.models import AuditEvent
from apps.audit.services import audit_record
from apps.core.database_roles import UnwalledRole, append_only_tables, application_role_require_walled
from desirepath import embedded
from tests.factories import make_note, make_user, make_vault

pytestmark = pytest.mark.django_db


def _refused(statement: str, params: list[object] | None = None) -> str:
    """Run `statement` in a savepoint and return PostgreSQL's refusal (the test fails if it is not refused)."""
    with pytest.raises(DatabaseError) as refusal, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement, params)
    return str(refusal.value)


def _log_triggers() -> list[str]:
    return [
        f"{model._meta.label}:{trigger.name}"
        for model in apps.get_models()
        if model._meta.db_table in append_only_tables()
        for trigger in model._meta.triggers
    ]


def _one(statement: str) -> object:
    with connection.cursor() as cursor:
        cursor.execute(statement)
        return cursor.fetchone()[0]


def test_the_application_connects_as_a_role_that_owns_nothing_and_bypasses_nothing():
    assert _one("SELECT current_user") == embedded.APP_ROLE != embedded.OWNER_ROLE
    powers = "rolsuper OR rolbypassrls OR rolcreaterole OR rolcreatedb"
    assert _one(f"SELECT {powers} FROM pg_roles WHERE rolname = current_user") is False
    assert _one("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = current_user") == 0
    assert _one("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") > 50
    assert "permission denied" in _refused("SET session_replication_role = replica")
    assert "must be owner" in _refused("ALTER TABLE notes_note DISABLE TRIGGER ALL")
    assert "permission denied" in _refused("CREATE TABLE planted (id int)")


@pytest.mark.django_db(databases=["default", "owner"])
def test_the_web_and_the_workers_refuse_a_role_that_row_level_security_does_not_hold():
    application_role_require_walled("default")  # the application's own role: served
    with pytest.raises(UnwalledRole) as refusal:
        application_role_require_walled("owner")  # the tables' owner, a superuser in the embedded default
    assert f"role {embedded.OWNER_ROLE} is a superuser" in str(refusal.value)
    assert "DATABASE_URL" in str(refusal.value)


@pytest.mark.django_db(databases=["default", "owner"])
def test_a_worker_started_as_such_a_role_exits_saying_why(monkeypatch):
    """Celery swallows what a start-up signal's receiver raises: the refusal must be an exit to stop the worker.
    (The receiver is called as `worker_init` calls it; sending the signal here would also run Celery's own
    receivers, which close the test's connections.)"""
    from celery.signals import worker_init

    from apps.core import database_roles
    from desirepath.celery import refuse_an_unwalled_role

    assert refuse_an_unwalled_role in [ref() for _, ref in worker_init.receivers]
    checked = database_roles.application_role_require_walled
    monkeypatch.setattr(database_roles, "application_role_require_walled", lambda using="default": checked("owner"))
    with pytest.raises(SystemExit, match=f"role {embedded.OWNER_ROLE} is a superuser"):
        refuse_an_unwalled_role(signal=worker_init, sender=None)


def test_the_append_only_logs_refuse_the_application_even_with_the_triggers_told_to_look_away():
    owner = make_user("log-owner")
    vault = make_vault(owner, "Logged")
    make_note(vault, "a.md", "# A\nSomething worth an audit row.")
    audit_record(actor=owner, action="test.planted", object_type="vault", object_id=vault.pk, vault_id=vault.pk)
    rows = AuditEvent.objects.count()
    assert rows > 0 and {"audit_auditevent", "graph_weightchange"} <= set(append_only_tables())

    # pgtrigger's own escape hatch is a setting any session may change; the privilege is not.
    with pgtrigger.ignore(*_log_triggers()):
        for table in append_only_tables():
            assert "permission denied" in _refused(f"DELETE FROM {table}")
            assert "permission denied" in _refused(f"UPDATE {table} SET id = id")
            assert "permission denied" in _refused(f"TRUNCATE {table}")
    assert AuditEvent.objects.count() == rows
    # Writing is what the application does with them, and it still can.
    audit_record(actor=owner, action="test.again", object_type="vault", object_id=vault.pk, vault_id=vault.pk)
    assert AuditEvent.objects.count() == rows + 1


def test_records_refuse_the_application_any_edit_but_their_progress():
    """A vote stays as given (it is only ever withdrawn), an import's origin and each file's outcome as recorded, and
    every version of a note's metadata as written; none is ever deleted. PostgreSQL refuses the rest to the
    application's role, whatever its code asks."""
    from apps.core.triggers import edit_limits

    kept = {"chat_feedback", "notes_importjob", "notes_importfileresult", "librarian_notemetadataversion"}
    assert {limit.table for limit in edit_limits() if limit.kept} >= kept
    for statement in [
        "UPDATE chat_feedback SET signal = 'confirm'",
        "UPDATE chat_feedback SET text = '', user_id = user_id",
        "UPDATE chat_feedback SET vault_id = vault_id",
        "DELETE FROM chat_feedback",
        "TRUNCATE chat_feedback",
        "UPDATE notes_importjob SET source = 'elsewhere'",
        "UPDATE notes_importjob SET vault_id = vault_id",
        "UPDATE notes_importfileresult SET outcome = 'created'",
        "DELETE FROM notes_importjob",
        "DELETE FROM notes_importfileresult",
        "TRUNCATE notes_importjob CASCADE",
        "UPDATE librarian_notemetadataversion SET model = ''",
        "DELETE FROM librarian_notemetadataversion",
        "TRUNCATE librarian_notemetadataversion",
    ]:
        assert "permission denied" in _refused(statement), statement
    with connection.cursor() as cursor:  # what the application changes of them, it still can
        cursor.execute("UPDATE chat_feedback SET withdrawn_at = now(), replaced_by_id = NULL WHERE false")
        cursor.execute("UPDATE notes_importjob SET processed = processed + 1, status = status WHERE false")
