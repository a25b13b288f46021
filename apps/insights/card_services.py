"""A reader's answer to an insight card: `dismiss` (it stays away until its evidence changes, and the next one of
its list ranks up) or `accept` (an accepted fertile collision is blended, in the worker, into a proposal in the
reader's personal vault). Answers are per person: they never hide a card from anyone else."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from rest_framework.exceptions import ValidationError

from apps.audit.services import audit_record
from apps.insights.blends import blend_request
from apps.insights.models import Blend, Card, CardAnswer, CardKind, CardSignal


def card_answer(*, actor: User, card: Card, signal: str) -> tuple[CardAnswer, Blend | None, bool]:
    """Record the answer for the card's current evidence; (the answer, the blend asked for, whether it was new)."""
    if signal not in CardSignal.values:
        raise ValidationError({"signal": [f"one of {', '.join(CardSignal.values)}"]})
    if not card.active or not card.narrative:
        raise ValidationError({"card": ["this card is no longer shown; reload the insights page"]})
    try:
        with transaction.atomic():
            answer = CardAnswer.objects.create(
                vault_id=card.vault_id, card=card, user=actor, signal=signal, evidence_hash=card.evidence_hash
            )
            new = True
    except IntegrityError:
        answer = CardAnswer.objects.get(card=card, user=actor, evidence_hash=card.evidence_hash)
        new = False
    blend = None
    if answer.signal == CardSignal.ACCEPT and card.kind == CardKind.DISTANCE and card.collision is not None:
        blend = blend_request(actor=actor, collision=card.collision)
    if new:
        audit_record(
            actor=actor,
            action=f"insight.{signal}",
            object_type="insight_card",
            object_id=card.pk,
            vault_id=card.vault_id,
            changes={"kind": card.kind, "key": card.key},
        )
    return answer, blend, new
