from __future__ import annotations

import pgtrigger
import pytest
from django.core.management.commands import flush

from tests.factories import import_sample, make_user, make_vault

_original_flush = flush.Command.handle


def _flush_past_the_audit_guard(self, *args, **options):  # type: ignore[no-untyped-def]
    # Transactional tests end with a TRUNCATE of every table; the audit log refuses that in production.
    with pgtrigger.ignore("audit.AuditEvent:audit_no_truncate", "audit.AuditEvent:audit_append_only"):
        return _original_flush(self, *args, **options)


flush.Command.handle = _flush_past_the_audit_guard


@pytest.fixture(scope="session")
def sample_vault_id(django_db_setup, django_db_blocker) -> int:
    """The sample vault, imported (and embedded) once per test session as committed baseline data.

    pytest-django runs transactional tests (which flush the database) after all the others."""
    with django_db_blocker.unblock():
        owner = make_user("sample-owner")
        vault = make_vault(owner, "Sample vault")
        import_sample(vault)
        return vault.pk


@pytest.fixture
def sample(db, sample_vault_id):
    from apps.vaults.models import Vault

    return Vault.objects.select_related("owner").get(pk=sample_vault_id)


@pytest.fixture
def owner(db):
    return make_user("owner")


@pytest.fixture
def vault(owner):
    return make_vault(owner, "Team vault")
