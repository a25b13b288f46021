"""Every page says when a model slot is failing, so nobody wonders why answers come without a model."""

from __future__ import annotations

from django.http import HttpRequest

from apps.llm.connections import SLOTS, slot_default_model
from apps.llm.embeddings import current_model
from apps.llm.models import ModelUsage
from apps.llm.selectors import failing_slots


def failing_models(request: HttpRequest) -> dict[str, list[ModelUsage]]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    models = {slot: current_model() if slot == "embedding" else slot_default_model(slot) for slot in SLOTS}
    return {"failing_models": failing_slots(models)}
