"""What the application's database role may do: read and write rows, never own, alter or empty a table.

The tables belong to the role migrations run as (the `owner` connection); the application connects as another one
(`default`), which is no superuser, so it can neither switch triggers off (`session_replication_role`) nor bypass a
policy, and holds no UPDATE, DELETE or TRUNCATE on the append-only logs: PostgreSQL refuses those to it even where a
trigger could be told to look away. After every migration the owner grants what the application needs.
"""

from __future__ import annotations

from typing import Any

import pgtrigger
from django.apps import apps
from django.conf import settings
from django.db import connections
from psycopg import sql

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
    UPDATE, DELETE and TRUNCATE on the append-only tables; nothing when the application is the owner itself."""
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
    return True


def grant_after_migrate(sender: Any, using: str, **kwargs: Any) -> None:
    # post_migrate is sent once per app with models: the grants cover every table, so the last one's is enough.
    last = [config for config in apps.get_app_configs() if config.models_module is not None][-1]
    if sender.label == last.label:
        privileges_grant(using)
