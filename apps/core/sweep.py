"""A periodic job over many vaults (or conversations) goes on past one whose step raised: its error is logged and
the next sweep tries it again; the others are not held back by it."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TypeVar

from celery.exceptions import SoftTimeLimitExceeded

logger = logging.getLogger(__name__)

T = TypeVar("T")


def sweep(ids: Iterable[int], what: str, run: Callable[[int], T]) -> tuple[dict[int, T], list[int]]:
    """`run` for every id (a vault's, a conversation's): the results by id, and the ids that failed. No transaction
    around one run: a sweep commits as it goes (its own steps are atomic), it does not hold locks for an hour."""
    done: dict[int, T] = {}
    failed: list[int] = []
    for one in ids:
        try:
            done[one] = run(one)
        except SoftTimeLimitExceeded:  # the task's time is up: nothing after this one would get any either
            raise
        except Exception:  # logged; retried by the next sweep
            logger.exception("%s failed for %s; going on with the others", what, one)
            failed.append(one)
    return done, failed
