"""Discovery's budgets and its usage report. Every model call discovery makes is a usage row of the gateway with
one of the purposes below, so the ledger is the budget's own count: a tier's calls today for a vault are its rows
since midnight, local defaults included (the budget bounds the work, whatever model does it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any

from django.conf import settings
from django.db.models import Count, Q
from django.db.models.functions import TruncDate
from django.utils import timezone

from apps.core import row_security
from apps.insights.models import CardAnswer, CardSignal, Concept, ConceptStatus
from apps.llm.models import ModelUsage
from apps.vaults.chat_settings import parse
from apps.vaults.models import Vault

PURPOSES = {
    "screening": "discovery screening",
    "formation": "discovery formation",
    "collisions": "collision verdicts",
    "cards": "insight cards",
    "blends": "collision blend",  # asked for by a person accepting a collision: counted, never held back
}
SLOTS = {"screening": "scoring", "formation": "reasoning", "collisions": "scoring", "cards": "reasoning"}


def daily_budget(vault: Vault, tier: str) -> int:
    """The model calls `tier` may make for `vault` a day: the vault's own setting, else the deployment's."""
    own = parse(vault.chat_settings).discovery_budgets.get(tier)
    return int(settings.DISCOVERY_DAILY_CALLS[tier] if own is None else own)


def calls_today(vault_id: int, tier: str, now: datetime | None = None) -> int:
    start = timezone.make_aware(datetime.combine(timezone.localdate(now or timezone.now()), time.min))
    return ModelUsage.objects.filter(vault_id=vault_id, purpose=PURPOSES[tier], created_at__gte=start).count()


def calls_left(vault: Vault, tier: str, now: datetime | None = None) -> int:
    """What is left of the tier's budget today; zero with discovery off (off means no call at all)."""
    if not parse(vault.chat_settings).switches["discovery"]:
        return 0
    return max(daily_budget(vault, tier) - calls_today(vault.pk, tier, now), 0)


@dataclass(frozen=True)
class UsageReport:
    days: list[dict[str, Any]]  # newest first: {"day", "vault", "screening", "formation"}
    calls: int
    accepted: int
    formed: int

    @property
    def calls_per_accepted(self) -> float | None:
        return round(self.calls / self.accepted, 2) if self.accepted else None


@row_security.as_system("discovery's usage report, for staff")
def usage_report(*, vault_ids: list[int] | None = None, since: date | None = None) -> UsageReport:
    """Discovery's model calls per tier per day and vault, and the calls spent per accepted suggestion (a concept or
    an insight card a person accepted) (staff)."""
    rows = ModelUsage.objects.filter(purpose__in=PURPOSES.values())
    concepts = Concept.objects.all()
    if vault_ids is not None:
        rows, concepts = rows.filter(vault_id__in=vault_ids), concepts.filter(vault_id__in=vault_ids)
    if since is not None:
        start = timezone.make_aware(datetime.combine(since, time.min))
        rows, concepts = rows.filter(created_at__gte=start), concepts.filter(created_at__gte=start)
    per_day = (
        rows.annotate(day=TruncDate("created_at"))
        .values("day", "vault_id")
        .annotate(**{tier: Count("id", filter=Q(purpose=purpose)) for tier, purpose in PURPOSES.items()})
        .order_by("-day", "vault_id")
    )
    days = [{"day": r["day"], "vault": r["vault_id"], **{tier: r[tier] for tier in PURPOSES}} for r in per_day]
    cards = CardAnswer.objects.filter(signal=CardSignal.ACCEPT)
    if vault_ids is not None:
        cards = cards.filter(card__vault_id__in=vault_ids)
    if since is not None:
        cards = cards.filter(created_at__gte=start)
    return UsageReport(
        days=days,
        calls=rows.count(),
        accepted=concepts.filter(status=ConceptStatus.ACCEPTED).count() + cards.values("card").distinct().count(),
        formed=concepts.count(),
    )
