"""Temporal rhythm (DESIGN, "Learning"): the time-of-day and day-of-week features of path values.

Every signal that teaches an edge's `PathValue` also teaches its `RhythmValue` at the hour and the weekday the
question was asked, and at all times together (slot `all`) — same rates, its own ledger rows, `rhythm_value`.
The walk reads them for the hour it scores for — now, or the hour a pre-warm prepares (`scored_as_of`) — as the
odds at that hour and on that weekday relative to the edge's odds at all times, multiplied: an edge that helps
equally at every hour gets 1.0, one that helps at nine more than at other times gets more at nine and less at
three. The path value already counts the outcome itself, so the rhythm is only the time's deviation from it
(absolute rhythm odds would count every vote three times). Hours and weekdays are those of the deployment's time
zone (`TIME_ZONE`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime

from django.utils import timezone

from apps.graph.learning import Moved, Outcome, rhythm_value_record

ALL = "all"  # the slot that counts every outcome: what an hour's and a weekday's odds are compared with
# The hour a walk scores for when it is not now: a pre-warm at 08:50 walks as the 09:00 question will.
_AS_OF: ContextVar[datetime | None] = ContextVar("rhythm_as_of", default=None)


def scoring_moment() -> datetime:
    """The moment walks score for: the one `scored_as_of` set, else now."""
    return _AS_OF.get() or timezone.now()


def slots_at(at: datetime | None = None) -> list[str]:
    """The rhythm slots of a moment: its hour of the day and its ISO weekday, in local time."""
    local = timezone.localtime(at or scoring_moment())
    return [f"h{local.hour:02d}", f"d{local.isoweekday()}"]


@contextmanager
def scored_as_of(when: datetime) -> Iterator[None]:
    """Walks inside this block score paths for `when`'s hour and weekday instead of the present's."""
    token = _AS_OF.set(when)
    try:
        yield
    finally:
        _AS_OF.reset(token)


def rhythm_values_record(*, vault_id: int, edge_id: int, at: datetime, outcome: Outcome) -> list[Moved]:
    """Count one outcome of walking `edge_id` at `at`: for its hour, its weekday and all times."""
    return [
        rhythm_value_record(vault_id=vault_id, edge_id=edge_id, slot=slot, outcome=outcome)
        for slot in [*slots_at(at), ALL]
    ]
