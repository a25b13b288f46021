"""What the application's database role may do: read and write rows, never own, alter or empty a table.

The tables belong to the role migrations run as (the `owner` connection); the application connects as another one
(`default`), which is no superuser, so it can neither switch triggers off (`session_replication_role`) nor bypass a
policy, and holds no UPDATE, DELETE or TRUNCATE on the append-only logs: PostgreSQL refuses those to it even where a
trigger could be told to look away. After every migration the owner grants what the application needs.
"""

from __future__ import annotations

import logging
from typing import Any

import pgtrigger
from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from psycopg import sql

from apps.core.triggers import edit_limits

logger = logging.getLogger(__name__)

APPEND_ONLY_SUFFIX = "_append_only"
MAINTAIN_SINCE = 170000  # PostgreSQL 17 added the MAINTAIN privilege


def application_role() -> str:
    """The role the application connects as (the `default` connection's)."""
    return str(settings.DATABASE_APPLICATION_ROLE or connections["default"].settings_dict["USER"])


def append_only_tables() -> list[str]:
    """The tables whose rows are never changed or removed (models with an append-only trigger)."""
    return sorted(
        model._meta.db_table
        for model in apps.get_models()
        if any(
            isinstance(trigger, pgtrigger.Trigger) and (trigger.name or "").endswith(APPEND_ONLY_SUFFIX)
            for trigger in getattr(model._meta, "triggers", [])
        )
    )


class UnwalledRole(ImproperlyConfigured):
    """The application connects as a role that PostgreSQL's row-level security does not apply to."""


def application_role_require_walled(using: str = "default") -> None:
    """Refuse to serve when the role `using` connects as is a superuser or may bypass row-level security: every
    policy would silently let it read every vault, and the append-only logs could be emptied (the web and the
    workers call this as they start)."""
    checking = connections.create_connection(using)  # its own, closed after: nothing of it is left to a request
    try:
        with checking.cursor() as cursor:
            cursor.execute("SELECT current_user, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
            role, superuser, bypasses = cursor.fetchone()
    finally:
        checking.close()
    if superuser or bypasses:
        power = "a superuser" if superuser else "allowed to bypass row-level security (BYPASSRLS)"
        raise UnwalledRole(
            f"The application's database role {role} is {power}, so PostgreSQL would not keep requesters to their "
            "vaults. Connect DATABASE_URL as a role without that power and give migrations the owner's role in "
            'DATABASE_OWNER_URL (docs/operations.md, "Database roles").'
        )


def application_role_refuse_unwalled(using: str = "default") -> None:
    """Stop a starting web process or worker whose role row-level security does not hold. A database away at start
    is not a refusal: the process comes up and reports the outage (/healthz), as it would later."""
    try:
        application_role_require_walled(using)
    except UnwalledRole as refused:
        raise SystemExit(str(refused)) from refused
    except Exception:  # noqa: BLE001 - unreachable now; the first request will say so
        logger.warning("could not check the application's database role at start", exc_info=True)


class RoleMissing(RuntimeError):
    """The application's role does not exist and the owner may not create it."""


def application_role_ensure(using: str, *, role: str, password: str) -> bool:
    """Create the application's role `role` (login with `password`, no other power) when the owner connected as
    `using` may and it is missing: the first `migrate` of a deployment sets it up. Returns whether it was created."""
    owner_connection = connections[using]
    if not role or role == owner_connection.settings_dict["USER"]:
        return False
    with owner_connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
        if cursor.fetchone():
            return False
        cursor.execute("SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user")
        if not cursor.fetchone()[0]:
            raise RoleMissing(f"the application's database role {role} does not exist: create it (docs/operations.md)")
        cursor.execute(
            sql.SQL("CREATE ROLE {} LOGIN {} NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS").format(
                sql.Identifier(role),
                sql.SQL("PASSWORD {}").format(sql.Literal(password)) if password else sql.SQL(""),
            )
        )
    return True


def privileges_grant(using: str) -> bool:
    """Grant the application's role what it needs on every table, sequence and function of the schema, less
    UPDATE, DELETE and TRUNCATE on the append-only tables, UPDATE on the columns of a record that are never edited
    and DELETE and TRUNCATE on records that are kept (`apps.core.triggers.edits_limited`); nothing when the
    application is the owner itself."""
    owner_connection = connections[using]
    role = application_role()
    if not role or role == owner_connection.settings_dict["USER"]:
        return False
    grantee = sql.Identifier(role)
    statements = [
        sql.SQL("GRANT USAGE ON SCHEMA public TO {}"),
        sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {}"),
        sql.SQL("GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {}"),
        sql.SQL("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO {}"),
    ]
    with owner_connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('server_version_num')::int")
        if cursor.fetchone()[0] >= MAINTAIN_SINCE:
            # ANALYZE and VACUUM after bulk writes: statistics, not data, and no trigger is skipped by them.
            statements.append(sql.SQL("GRANT MAINTAIN ON ALL TABLES IN SCHEMA public TO {}"))
        for statement in statements:
            cursor.execute(statement.format(grantee))
        for table in append_only_tables():
            revoke = sql.SQL("REVOKE UPDATE, DELETE, TRUNCATE ON {} FROM {}")
            cursor.execute(revoke.format(sql.Identifier(table), grantee))
        for limit in edit_limits():
            # Revoking the table's UPDATE takes its columns' with it; then only the changeable ones come back.
            cursor.execute(sql.SQL("REVOKE UPDATE ON {} FROM {}").format(sql.Identifier(limit.table), grantee))
            if limit.changeable:
                columns = sql.SQL(", ").join(sql.Identifier(column) for column in limit.columns())
                grant = sql.SQL("GRANT UPDATE ({}) ON {} TO {}")
                cursor.execute(grant.format(columns, sql.Identifier(limit.table), grantee))
            if limit.kept:
                revoke = sql.SQL("REVOKE DELETE, TRUNCATE ON {} FROM {}")
                cursor.execute(revoke.format(sql.Identifier(limit.table), grantee))
    return True


def grant_after_migrate(sender: Any, using: str, **kwargs: Any) -> None:
    # post_migrate is sent once per app with models: the grants cover every table, so the last one's is enough.
    last = [config for config in apps.get_app_configs() if config.models_module is not None][-1]
    if sender.label == last.label:
        privileges_grant(using)
