"""Every page says when a model slot is failing, so nobody wonders why answers come without a model."""

from __future__ import annotations

from django.http import HttpRequest

from apps.llm.connections import SLOTS, slot_default_model
from apps.llm.models import ModelUsage
from apps.llm.selectors import failing_slots


def failing_models(request: HttpRequest) -> dict[str, list[ModelUsage]]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    # the embedding slot's calls are not on the usage ledger (only its tests): its banner would speak of tests alone
    completion_slots = {slot: slot_default_model(slot) for slot in SLOTS if slot != "embedding"}
    return {"failing_models": failing_slots(completion_slots)}
