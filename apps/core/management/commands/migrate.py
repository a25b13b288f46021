"""`migrate` runs as the role that owns the tables (the `owner` connection) unless told otherwise: the application's
own role may not create or alter them. It creates the application's role first when that is missing and the owner
may (a deployment's first migration); the grants follow every migration (apps/core/database_roles.py)."""

from typing import Any

from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections

from apps.core.database_roles import RoleMissing, application_role_ensure


class Command(DjangoMigrate):
    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        if "owner" in connections.settings:
            parser.set_defaults(database="owner")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            if application_role_ensure(options["database"]):
                self.stdout.write(f"Created the application's database role for {options['database']}.")
        except RoleMissing as missing:
            raise CommandError(str(missing)) from missing
        super().handle(*args, **options)
