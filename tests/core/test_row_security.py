"""The second wall: PostgreSQL itself shows the application's role only the rows of the vaults it is bound to.

Checked on a connection of its own as the application's role, with the settings set by hand: what the product's
code filters is not involved.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.db import connection
from psycopg import sql

from apps.audit.services import audit_record
from apps.graph.services import graph_extract_pending
from apps.vaults.scope import system_scope
from desirepath import embedded
from tests.factories import api, import_sample, make_note, make_user, make_vault, vault_tables, walled_tables

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def _as_application(vaults: str | None = None, system: str | None = None) -> Iterator[psycopg.Connection]:
    place = connection.settings_dict
    with psycopg.connect(host=place["HOST"], dbname=place["NAME"], user=embedded.APP_ROLE, autocommit=True) as raw:
        if vaults is not None:
            raw.execute("SELECT set_config('desirepath.vaults', %s, false)", [vaults])
        if system is not None:
            raw.execute("SELECT set_config('desirepath.system', %s, false)", [system])
        yield raw


def _rows(raw: psycopg.Connection, table: str, where: str = "true", params: list[object] | None = None) -> int:
    statement = sql.SQL("SELECT count(*) FROM {} WHERE ").format(sql.Identifier(table)) + sql.SQL(where)
    return int(raw.execute(statement, params or []).fetchone()[0])


def test_every_table_that_carries_a_vault_is_walled():
    assert set(vault_tables()) <= set(walled_tables())
    assert "chat_feedback" in vault_tables()  # a vote names its vault: it outlives the passage it was on
    assert "chat_prewarmedcontext" in walled_tables()  # passages of every vault its array names


def test_the_application_reads_only_the_vaults_it_is_bound_to_and_nothing_unbound():
    owner = make_user("walled-owner")
    first, second = make_vault(owner, "First"), make_vault(owner, "Second")
    import_sample(first)
    make_note(second, "plans.md", "# Plans\nThe launch moves to [[Friday]] after the review with Dana.")
    make_note(second, "Friday.md", "# Friday\nLaunch day. Dana brings the checklist.")
    for vault in (first, second):
        graph_extract_pending(vault_id=vault.pk)
    asked = api(owner).post("/api/chat/", {"vaults": [second.pk], "message": "When is the launch?"}, format="json")
    assert asked.status_code == 200 and asked.json()["context"]
    item = asked.json()["context"][0]["id"]
    voted = api(owner).post("/api/feedback/", {"context_item": item, "signal": "confirm"}, format="json")
    assert voted.status_code == 201
    audit_record(actor=owner, action="test.walled", object_type="vault", object_id=second.pk, vault_id=second.pk)

    walled = [t for t in walled_tables() if t in vault_tables()]
    with _as_application(vaults="*", system="the test counts every row") as everything:
        of_second = {t: _rows(everything, t, "vault_id = %s", [second.pk]) for t in walled}
        of_first = {t: _rows(everything, t, "vault_id = %s", [first.pk]) for t in walled}
    assert sum(1 for n in of_second.values() if n) >= 12, of_second  # the check below can fail: B has rows
    assert of_second["chat_feedback"] == 1

    with _as_application(vaults=str(first.pk)) as bound_to_first:
        assert {t: _rows(bound_to_first, t, "vault_id = %s", [second.pk]) for t in walled} == dict.fromkeys(walled, 0)
        assert {t: _rows(bound_to_first, t, "vault_id = %s", [first.pk]) for t in walled} == of_first
    with _as_application(vaults=f"{first.pk},{second.pk}", system="the graph of two vaults") as system_two:
        assert {t: _rows(system_two, t, "vault_id = %s", [second.pk]) for t in walled} == of_second
    with _as_application() as unbound:
        seen = {t: _rows(unbound, t, "vault_id IS NOT NULL") for t in walled}
        assert seen == dict.fromkeys(walled, 0)
    with _as_application(vaults="*") as requester_claiming_all:  # only the system may ask for every vault
        assert sum(_rows(requester_claiming_all, t, "vault_id IS NOT NULL") for t in walled) == 0


def test_a_bound_requester_cannot_write_into_a_vault_outside_its_binding():
    owner = make_user("walled-writer")
    first, second = make_vault(owner, "Mine"), make_vault(owner, "Theirs")
    note = make_note(second, "kept.md", "# Kept\nUntouched by anyone bound to the first vault.")
    asked = api(owner).post("/api/chat/", {"vaults": [second.pk], "message": "What is kept?"}, format="json")
    item = asked.json()["context"][0]["id"]
    with _as_application(vaults=str(first.pk)) as bound_to_first:
        # A vote names its passage's vault whatever it claims, and only on a passage the binding shows.
        for claimed in (first.pk, second.pk):
            with pytest.raises(psycopg.errors.RaiseException, match="a vote is on a passage its voter may read"):
                bound_to_first.execute(
                    "INSERT INTO chat_feedback (context_item_id, vault_id, user_id, signal, text, created_at)"
                    " VALUES (%s, %s, %s, 'confirm', '', now())",
                    [item, claimed, owner.pk],
                )
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            bound_to_first.execute(
                "INSERT INTO audit_auditevent (at, actor_label, action, object_type, object_id, vault_id, changes,"
                " actor_id) VALUES (now(), 'planted', 'planted', 'vault', %s, %s, '{}', %s)",
                [second.pk, second.pk, owner.pk],
            )
    with _as_application(vaults=str(second.pk)) as bound_to_second:
        named = bound_to_second.execute(
            "INSERT INTO chat_feedback (context_item_id, vault_id, user_id, signal, text, created_at)"
            " VALUES (%s, %s, %s, 'confirm', '', now()) RETURNING vault_id",
            [item, first.pk, owner.pk],
        )
        assert named.fetchone()[0] == second.pk
    with _as_application(vaults=str(first.pk)) as bound_to_first:
        changed = bound_to_first.execute("UPDATE notes_note SET path = 'taken.md' WHERE id = %s", [note.pk])
        assert changed.rowcount == 0
        assert bound_to_first.execute("DELETE FROM notes_chunk WHERE vault_id = %s", [second.pk]).rowcount == 0
    note.refresh_from_db()
    assert note.path == "kept.md"


def test_the_audit_log_and_the_ledger_refuse_deletion_even_to_the_system_binding():
    owner = make_user("walled-auditor")
    vault = make_vault(owner, "Audited")
    audit_record(actor=owner, action="test.kept", object_type="vault", object_id=vault.pk, vault_id=vault.pk)
    with _as_application(vaults="*", system="an attempt to empty the logs") as system_bound:
        logged = _rows(system_bound, "audit_auditevent", "vault_id = %s", [vault.pk])
        assert logged >= 2  # the vault's creation and the event above
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            system_bound.execute("SET session_replication_role = replica")
        for table in ("audit_auditevent", "graph_weightchange", "llm_modelusage"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                system_bound.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(table)))
        assert _rows(system_bound, "audit_auditevent", "vault_id = %s", [vault.pk]) == logged


def test_a_system_scope_is_bound_to_its_own_vaults_only():
    owner = make_user("walled-system")
    first, second = make_vault(owner, "Job's"), make_vault(owner, "Not the job's")
    make_note(first, "a.md", "# A\nAlpha.")
    make_note(second, "b.md", "# B\nBravo.")
    scope = system_scope([first.pk], reason="a job for the first vault")
    with _as_application(vaults=",".join(map(str, scope.vault_ids)), system=scope.reason) as job:
        assert _rows(job, "notes_note", "vault_id = %s", [first.pk]) == 1
        assert _rows(job, "notes_note", "vault_id = %s", [second.pk]) == 0
