"""Automatic signals (DESIGN, "Learning"): evidence nobody pressed a button for, moving a weight by 0.00001 where a
person's signal moves it by 0.01, each move on the ledger as source `automatic`.

- Co-occurrence: when a unit is marked `used`, the units delivered beside it in the same run rode along with an
  answer that was used.
- A later search: when someone asks or searches for a term that a unit delivered to them earlier contained, that
  unit's path led somewhere they came back to.
Both run in the worker; only units of vaults the person can still read move."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import timezone

from apps.chat.models import ContextItem
from apps.core.text import STOP
from apps.feedback.learners import Vote, paths_learn
from apps.graph.learning import AUTOMATIC, DELIBERATE
from apps.retrieval.trace import Trace
from apps.vaults.permissions import vault_ids_for

WEIGHT = AUTOMATIC / DELIBERATE  # paths_learn scales a person's step (0.01) by this: 0.00001
LOOKBACK_DAYS = 30
MAX_UNITS = 50  # units one search can move
MIN_TERM = 4


def co_occurrence_learn(*, item: ContextItem) -> int:
    """`item` was used: every other unit delivered in the same answer learns a little. Returns units moved."""
    siblings = ContextItem.objects.filter(
        message_id=item.message_id, survived=True, speculative=False, vault_id=item.vault_id
    )
    moved = 0
    for unit in siblings.exclude(pk=item.pk):
        moved += bool(automatic_learn(unit, f"delivered beside unit {item.pk}, which was used"))
    return moved


def later_search_learn(*, user_id: int, text: str, before_message_id: int | None = None) -> int:
    """The person behind `user_id` searched for `text`: units delivered to them earlier (in the last 30 days,
    before `before_message_id` when the search is itself a chat turn) that contain one of its terms learn a
    little. Returns units moved."""
    terms = sorted({w for w in re.findall(r"[a-z0-9][a-z0-9'-]+", text.lower()) if len(w) >= MIN_TERM} - STOP)
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if not terms or user is None:
        return 0
    units = ContextItem.objects.filter(
        message__conversation__owner=user,
        survived=True,
        speculative=False,
        vault_id__in=vault_ids_for(user, "read"),
        message__created_at__gte=timezone.now() - timedelta(days=LOOKBACK_DAYS),
    )
    if before_message_id is not None:
        units = units.filter(message_id__lt=before_message_id)
    contains = Q()
    for term in terms[:16]:
        contains |= Q(text__icontains=term)
    moved = 0
    for unit in units.filter(contains).order_by("-id")[:MAX_UNITS]:
        found = next((t for t in terms if t in unit.text.lower()), "")
        moved += bool(automatic_learn(unit, f"a later search for '{found}'"))
    return moved


def automatic_learn(
    unit: ContextItem, why: str, *, feedback_id: int | None = None, at: datetime | None = None, question: str = ""
) -> Any:
    """`unit` helped, by evidence nobody pressed a button for: its path learns at the automatic tier."""
    return paths_learn(
        vault_id=unit.vault_id,
        trace=Trace.parse(unit.trace),
        chunk_id=unit.chunk_id,
        vote=Vote(
            "used", feedback_id=feedback_id, weight=WEIGHT, source="automatic", reason=why, at=at, question=question
        ),
    )
