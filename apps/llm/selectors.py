from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import Count, Q, Sum
from django.utils import timezone

from apps.core import row_security
from apps.llm.gateway import READER_LEFT
from apps.llm.models import ModelUsage, Outcome
from apps.vaults.models import Vault


def usage_for_vault(*, vault: Vault, limit: int = 200) -> dict[str, Any]:
    """Recent model calls charged to a vault and totals per slot (callers checked the manager role)."""
    rows = ModelUsage.objects.filter(vault_id=vault.pk)
    totals = rows.values("slot").annotate(
        calls=Count("id"), tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"), cost_usd=Sum("cost_usd")
    )
    return {"totals": list(totals.order_by("slot")), "rows": list(rows[:limit])}


# A slot whose latest call in this window failed is shown as failing; after it, a quiet slot is just quiet.
FAILING_WINDOW = timedelta(minutes=15)


@row_security.as_system("the deployment's model health")
def latest_calls(models: dict[str, str]) -> dict[str, ModelUsage]:
    """Per slot, the latest call of the model it is configured with (`models`: slot → model): what a vault's own
    model or a local fallback did says nothing about the deployment's model."""
    latest = {}
    for slot, model in models.items():
        rows = ModelUsage.objects.filter(slot=slot, model=model).exclude(error=READER_LEFT)
        row = rows.order_by("-created_at").first()
        if row is not None:
            latest[slot] = row
    return latest


@row_security.as_system("the deployment's model health")
def latest_purpose(slot: str, purpose: str) -> ModelUsage | None:
    """A slot's latest call made for `purpose`, whatever its model (a test run by a worker configured otherwise)."""
    return ModelUsage.objects.filter(slot=slot, purpose=purpose).order_by("-created_at").first()


@row_security.as_system("the deployment's model health")
def failing_slots(models: dict[str, str]) -> list[ModelUsage]:
    """The slots whose configured model's latest call, within the last few minutes, failed (each with that call).
    Read on every page, so in one statement: a call older than the window is never the one that fails it."""
    configured = Q()
    for slot, model in models.items():
        configured |= Q(slot=slot, model=model)
    recent = ModelUsage.objects.filter(configured, created_at__gte=timezone.now() - FAILING_WINDOW)
    latest = recent.exclude(error=READER_LEFT).order_by("slot", "-created_at").distinct("slot")
    return [row for row in latest if row.outcome == Outcome.ERROR]
