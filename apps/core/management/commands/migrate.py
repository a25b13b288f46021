"""`migrate` runs as the role that owns the tables (the `owner` connection) unless told otherwise; the
application's own role may not create or alter them."""

from typing import Any

from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections


class Command(DjangoMigrate):
    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        if "owner" in connections.settings:
            parser.set_defaults(database="owner")
