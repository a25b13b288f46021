"""`migrate` runs as the role that owns the tables (the `owner` connection's credentials) unless told otherwise: the
application's own role may not create or alter them. The `default` connection itself is pointed at the owner for the
command, so a data migration that reads or writes through the models' default manager uses the migrating
connection, not a second one that would wait on the migration's own locks. It creates the application's role first
when that is missing and the owner may (a deployment's first migration); the grants follow every migration
(apps/core/database_roles.py)."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import DEFAULT_DB_ALIAS, connections

from apps.core.database_roles import RoleMissing, application_role, application_role_ensure

OWNER = "owner"
CREDENTIALS = ("USER", "PASSWORD")


class Command(DjangoMigrate):
    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        if OWNER in connections.settings:
            parser.set_defaults(database=OWNER)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["database"] != OWNER:
            super().handle(*args, **options)
            return
        role = application_role()
        password = str(connections[DEFAULT_DB_ALIAS].settings_dict.get("PASSWORD") or "")
        with _default_as_owner():
            try:
                if application_role_ensure(DEFAULT_DB_ALIAS, role=role, password=password):
                    self.stdout.write(f"Created the application's database role {role}.")
            except RoleMissing as missing:
                raise CommandError(str(missing)) from missing
            super().handle(*args, **{**options, "database": DEFAULT_DB_ALIAS})


@contextmanager
def _default_as_owner() -> Iterator[None]:
    default, owner = connections[DEFAULT_DB_ALIAS], connections[OWNER]
    kept = {key: default.settings_dict.get(key) for key in CREDENTIALS}
    default.close()
    default.settings_dict.update({key: owner.settings_dict.get(key) for key in CREDENTIALS})
    try:
        yield
    finally:
        default.close()
        default.settings_dict.update(kept)
