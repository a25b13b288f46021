"""Invariants PostgreSQL holds for the application."""

from __future__ import annotations

import pgtrigger


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
