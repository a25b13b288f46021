"""Invariants PostgreSQL holds for the application."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pgtrigger
from django.db import models


def append_only(prefix: str, what: str) -> list[pgtrigger.Trigger]:
    """Row triggers refusing UPDATE and DELETE, and a statement trigger refusing TRUNCATE, on a log table."""
    return [
        pgtrigger.Protect(name=f"{prefix}_append_only", operation=pgtrigger.Update | pgtrigger.Delete),
        pgtrigger.Trigger(
            name=f"{prefix}_no_truncate",
            when=pgtrigger.Before,
            operation=pgtrigger.Truncate,
            level=pgtrigger.Statement,
            func=f"RAISE EXCEPTION '{what} is append-only: TRUNCATE refused'; RETURN NULL;",
        ),
    ]


@dataclass(frozen=True)
class EditLimit:
    """The only columns of a table's rows the application may change (by field name), the rest being a record."""

    model: type[models.Model]
    changeable: tuple[str, ...]
    kept: bool = False  # no row is ever deleted either

    @property
    def table(self) -> str:
        return self.model._meta.db_table

    def columns(self) -> list[str]:
        return [str(self.model._meta.get_field(name).column) for name in self.changeable]  # type: ignore[union-attr]


_EDIT_LIMITS: dict[str, EditLimit] = {}


def edits_limited(model: type[models.Model], *, changeable: Iterable[str] = (), kept: bool = False) -> None:
    """Hold the application to changing only `changeable` fields of `model`'s rows (none: a row, once written, is
    never edited) and, when `kept`, to deleting none: the application's role keeps UPDATE on those columns alone
    and no DELETE or TRUNCATE (`apps.core.database_roles`), which PostgreSQL enforces whatever the code asks, unlike
    a trigger a session may tell to look away."""
    limit = EditLimit(model, tuple(changeable), kept)
    _EDIT_LIMITS[limit.table] = limit


def edit_limits() -> list[EditLimit]:
    return [_EDIT_LIMITS[table] for table in sorted(_EDIT_LIMITS)]
