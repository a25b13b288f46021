"""Reads of the insights page: a vault's four lists of cards, filtered to the requester's readable vaults inside
the SQL (an unreadable vault is the 404 of a missing one). Only cards that are ready (narrated) are read, minus
those the requester answered for the evidence as it is now. Nothing here calls a model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet
from django.http import Http404

from apps.core.auth import Requester
from apps.insights.building import build_state
from apps.insights.cards import SHOWN
from apps.insights.models import Blend, Card, CardAnswer, CardKind
from apps.insights.selectors import readable_vaults
from apps.vaults.permissions import vaults_for

TITLES: dict[str, str] = {
    CardKind.ACTIONABILITY: "Actionability",
    CardKind.CONTRADICTION: "Contradiction",
    CardKind.DISTANCE: "Semantic distance",
    CardKind.RECENCY: "Recency",
}


@dataclass(frozen=True)
class Insights:
    vault_id: int
    lists: dict[str, list[Card]]
    preparing: int  # active cards whose narrative is still being written
    built: bool  # whether the vault's cards were ever built
    blends: list[Blend]
    building: str = ""  # `queued` or `running` while a build after the latest changes is on its way


def cards_for(*, user: Requester, vault_id: int) -> QuerySet[Card]:
    """The vault's ready cards the requester has not answered for their current evidence, best first."""
    mine = CardAnswer.objects.filter(user_id=user.pk or 0)
    answered = mine.filter(card=OuterRef("pk"), evidence_hash=OuterRef("evidence_hash"))
    return (
        Card.objects.filter(vault_id=vault_id, vault_id__in=readable_vaults(user), active=True)
        .exclude(narrative="")
        .exclude(Exists(answered))
        .order_by("-score", "id")
    )


def insights_get(*, user: Requester, vault_id: int) -> Insights:
    if not vaults_for(user, "read").filter(pk=vault_id).exists():
        raise Http404("No vault matches the given query.")
    ready = cards_for(user=user, vault_id=vault_id)
    lists = {kind: list(ready.filter(kind=kind)[:SHOWN]) for kind in CardKind.values}
    scope = Card.objects.filter(vault_id=vault_id, vault_id__in=readable_vaults(user))
    blends = Blend.objects.filter(vault_id=vault_id, vault_id__in=readable_vaults(user), user_id=user.pk or 0)
    return Insights(
        vault_id=vault_id,
        lists=lists,
        preparing=scope.filter(active=True, narrative="").count(),
        built=scope.exists(),
        blends=list(blends.select_related("parent_a", "parent_b", "note").order_by("-created_at")[:20]),
        building=build_state(vault_id=vault_id),
    )


def card_get(*, user: Requester, card_id: object) -> Card:
    try:
        return Card.objects.select_related("collision").get(pk=int(str(card_id)), vault_id__in=readable_vaults(user))
    except (Card.DoesNotExist, ValueError) as exc:
        raise Http404("No card matches the given query.") from exc


def card_payload(card: Card) -> dict[str, Any]:
    return {
        "id": card.pk,
        "kind": card.kind,
        "title": card.title,
        "narrative": card.narrative,
        "why": card.why,
        "score": card.score,
        "evidence": [{**e, "url": f"/notes/{e['id']}/"} for e in card.evidence],
    }


def blend_payload(blend: Blend) -> dict[str, Any]:
    return {
        "id": blend.pk,
        "parents": [blend.parent_a_id, blend.parent_b_id],
        "note": blend.note_id,
        "url": f"/notes/{blend.note_id}/" if blend.note_id else None,
        "written": blend.note_id is not None,
    }


def insights_payload(insights: Insights) -> dict[str, Any]:
    return {
        "vault": insights.vault_id,
        "lists": [
            {"kind": kind, "title": TITLES[kind], "cards": [card_payload(c) for c in cards]}
            for kind, cards in insights.lists.items()
        ],
        "preparing": insights.preparing,
        "built": insights.built,
        "building": insights.building,
        "blends": [blend_payload(b) for b in insights.blends],
    }
