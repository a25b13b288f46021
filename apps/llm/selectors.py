from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db.models import Count, Sum
from django.utils import timezone

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


def latest_calls(*, purpose: str | None = None) -> dict[str, ModelUsage]:
    """Per slot, its latest call (of `purpose` only, if given): the Models page's status and test columns."""
    rows = ModelUsage.objects.all() if purpose is None else ModelUsage.objects.filter(purpose=purpose)
    latest = rows.order_by("slot", "-created_at").distinct("slot")
    return {row.slot: row for row in latest}


def failing_slots() -> list[ModelUsage]:
    """The slots whose latest call, within the last few minutes, failed (each with that call): the banner's."""
    recent = ModelUsage.objects.filter(created_at__gte=timezone.now() - FAILING_WINDOW)
    latest = recent.order_by("slot", "-created_at").distinct("slot")
    return [row for row in latest if row.outcome == Outcome.ERROR]
