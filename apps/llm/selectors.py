from __future__ import annotations

from typing import Any

from django.db.models import Count, Sum

from apps.llm.models import ModelUsage
from apps.vaults.models import Vault


def usage_for_vault(*, vault: Vault, limit: int = 200) -> dict[str, Any]:
    """Recent model calls charged to a vault and totals per slot (callers checked the manager role)."""
    rows = ModelUsage.objects.filter(vault_id=vault.pk)
    totals = rows.values("slot").annotate(
        calls=Count("id"), tokens_in=Sum("tokens_in"), tokens_out=Sum("tokens_out"), cost_usd=Sum("cost_usd")
    )
    return {"totals": list(totals.order_by("slot")), "rows": list(rows[:limit])}
