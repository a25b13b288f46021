"""Reads of the votes for the pages of rooms below feedback (they reach it through `apps.chat.hooks`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from apps.chat.models import ContextItem
from apps.feedback.models import CHOICES, Feedback, Signal


def items_said(*, items: Sequence[ContextItem]) -> dict[int, dict[str, Any]]:
    """item → what its asker said of it, as the chat page shows it after a reload: every current signal, the one
    choice (its vote's id, for undoing it) and whether they pointed to it as what answers the question. Only the
    conversation's owner rates its items, so every vote on an item the caller may show is theirs."""
    said: dict[int, dict[str, Any]] = {i.pk: {"signals": [], "choice": None, "picked": False} for i in items}
    current = Feedback.objects.filter(context_item__in=list(said), withdrawn_at__isnull=True).order_by("pk")
    for vote in current.only("pk", "context_item_id", "signal"):
        mine = said[vote.context_item_id]
        mine["signals"] = sorted({*mine["signals"], vote.signal})
        if vote.signal in CHOICES:
            mine["choice"] = {"id": vote.pk, "signal": vote.signal}
        mine["picked"] = mine["picked"] or vote.signal == Signal.ANSWERS
    return said
