"""What the team's votes say about each note, for staff: how often its passages were confirmed, used, rejected or
corrected, when it last heard a signal, and whether the last weeks went better or worse than the weeks before.
Metadata and counts only: no passage, vote text or correction text leaves this module."""

from __future__ import annotations

import csv
import io
from dataclasses import astuple, dataclass, fields
from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Max, Q
from django.utils import timezone

from apps.feedback.models import Feedback, Signal
from apps.notes.models import Correction, CorrectionStatus, Note

TREND_WINDOW = timedelta(days=30)
CONFIRMED = (Signal.CONFIRM, Signal.ANSWERS)  # a passage pointed to as the answer is a confirm the asker looked for
HELPED = (*CONFIRMED, Signal.USED)
HURT = (Signal.REJECT, Signal.NOT_RELEVANT, Signal.NOT_USEFUL, Signal.CORRECT)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula


@dataclass(frozen=True)
class NoteFeedbackRow:
    note: int
    vault_id: int
    vault: str
    path: str
    title: str
    confirms: int
    used: int
    rejections: int  # reject, not relevant and not useful
    corrections: int  # every correction of the note, from a vote or from its page
    last_signal_at: datetime | None
    net_recent: int  # helped minus hurt in the last TREND_WINDOW
    net_before: int  # the same in the window before it
    trend: str  # better, worse, steady or quiet (no vote in either window)


def may_see_feedback_report(user: User) -> bool:
    """Staff who may observe notes in the admin (every superuser)."""
    return bool(user.is_active and user.is_staff and user.has_perm("notes.view_note"))


def note_feedback_report(
    *, user: User, vault_id: int | None = None, now: datetime | None = None
) -> list[NoteFeedbackRow]:
    """Every note someone voted on or corrected (in one vault, given `vault_id`), weakest first (lowest net over
    all time), then the stalest."""
    if not may_see_feedback_report(user):
        raise PermissionDenied("only staff observe the feedback report")
    now = now or timezone.now()
    recent, before = now - TREND_WINDOW, now - 2 * TREND_WINDOW
    # A person's current choices only: one they undid or replaced no longer speaks for the note.
    votes = Feedback.objects.filter(context_item__note__isnull=False, withdrawn_at__isnull=True)
    corrections = Correction.objects.exclude(status=CorrectionStatus.WITHDRAWN)
    if vault_id is not None:
        votes = votes.filter(context_item__note__vault_id=vault_id)
        corrections = corrections.filter(note__vault_id=vault_id)
    helped, hurt = Q(signal__in=HELPED), Q(signal__in=HURT)
    in_recent, in_before = Q(created_at__gte=recent), Q(created_at__gte=before, created_at__lt=recent)
    tallies = {
        row.pop("context_item__note"): row
        for row in votes.values("context_item__note").annotate(
            confirms=Count("id", filter=Q(signal__in=CONFIRMED)),
            used=Count("id", filter=Q(signal=Signal.USED)),
            rejections=Count("id", filter=Q(signal__in=(Signal.REJECT, Signal.NOT_RELEVANT, Signal.NOT_USEFUL))),
            helped=Count("id", filter=helped),
            hurt=Count("id", filter=hurt),
            helped_recent=Count("id", filter=helped & in_recent),
            hurt_recent=Count("id", filter=hurt & in_recent),
            helped_before=Count("id", filter=helped & in_before),
            hurt_before=Count("id", filter=hurt & in_before),
            last=Max("created_at"),
        )
    }
    corrected = {
        row["note"]: (row["n"], row["last"])
        for row in corrections.values("note").annotate(n=Count("id"), last=Max("created_at"))
    }
    notes = (
        Note.objects.filter(pk__in=set(tallies) | set(corrected))
        .select_related("vault")
        .only("id", "path", "title", "vault_id", "vault__name")
    )
    rows = [_row(note, tallies.get(note.pk), corrected.get(note.pk)) for note in notes]
    never = datetime.min.replace(tzinfo=UTC)
    return sorted(rows, key=lambda r: (r.confirms + r.used - r.rejections - r.corrections, r.last_signal_at or never))


def _row(note: Note, tally: dict[str, Any] | None, corrected: tuple[int, datetime] | None) -> NoteFeedbackRow:
    tally = tally or {}
    corrections, corrected_at = corrected or (0, None)
    net_recent = tally.get("helped_recent", 0) - tally.get("hurt_recent", 0)
    net_before = tally.get("helped_before", 0) - tally.get("hurt_before", 0)
    voted_lately = any(tally.get(k, 0) for k in ("helped_recent", "hurt_recent", "helped_before", "hurt_before"))
    last = max((at for at in (tally.get("last"), corrected_at) if at is not None), default=None)
    return NoteFeedbackRow(
        note=note.pk,
        vault_id=note.vault_id,
        vault=note.vault.name,
        path=note.path,
        title=note.title,
        confirms=tally.get("confirms", 0),
        used=tally.get("used", 0),
        rejections=tally.get("rejections", 0),
        corrections=corrections,
        last_signal_at=last,
        net_recent=net_recent,
        net_before=net_before,
        trend=_trend(net_recent, net_before) if voted_lately else "quiet",
    )


def _trend(net_recent: int, net_before: int) -> str:
    if net_recent == net_before:
        return "steady"
    return "better" if net_recent > net_before else "worse"


REPORT_COLUMNS = tuple(f.name for f in fields(NoteFeedbackRow))


def feedback_report_csv(rows: list[NoteFeedbackRow]) -> str:
    """The report as CSV, one line per note, in the page's order; times in ISO 8601 (UTC)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(REPORT_COLUMNS)
    for row in rows:
        writer.writerow(_cell(value) for value in astuple(row))
    return out.getvalue()


def _cell(value: object) -> object:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value  # a spreadsheet would run a title like "=HYPERLINK(...)" as a formula
    return value
