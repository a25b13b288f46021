"""The application's database role: no superuser, owner of nothing, and refused by PostgreSQL itself where the
append-only logs and the triggers are concerned — whatever the application's code asks."""

from __future__ import annotations

import pgtrigger
import pytest
from django.apps import apps
from django.db import DatabaseError, connection, transaction

from apps.audit.models import AuditEvent
from apps.audit.services import audit_record
from apps.core.database_roles import append_only_tables
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
