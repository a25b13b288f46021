"""People's answers to a discovered principle (contributors of its vault; one per person and signal):

- `confirm`: it is real — its edges climb the ladder to single-memory (0.7), so walks go through it, and
  strengthen; the principle entity strengthens;
- `correct` with a text: it is refined — the statement is replaced, the old one kept;
- `reject`: it fades — its edges step down and weaken, the entity weakens and moves to the cold tier (nothing
  deleted; a manager can revive it like any demoted entity).
Every weight moves through `apps.graph.learning` (clamped, on the ledger) and each answer is audited."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from apps.audit.services import audit_record
from apps.graph.learning import DELIBERATE, confidence_step, weight_adjust
from apps.graph.models import LADDER, Dependency, Entity, Reason, Tier
from apps.insights.models import Answer, Notification, Principle, PrincipleStatus
from apps.vaults.permissions import user_may

SIGNALS = ("confirm", "correct", "reject")
MAX_TEXT = 500
CONFIRMED_AT = LADDER[Reason.SINGLE_MEMORY]


def principle_answer(*, actor: User, principle: Principle, signal: str, text: str = "") -> tuple[Principle, bool]:
    """Apply one person's answer; (the principle, whether this answer was new)."""
    if signal not in SIGNALS:
        raise ValidationError({"signal": [f"one of {', '.join(SIGNALS)}"]})
    text = (text or "").strip()
    if signal == "correct" and not text:
        raise ValidationError({"text": ["say what the principle should say"]})
    if len(text) > MAX_TEXT or "\x00" in text:
        raise ValidationError({"text": [f"at most {MAX_TEXT} characters of plain text"]})
    if not user_may(actor, "contribute", principle.vault):
        raise PermissionDenied("Only the vault's contributors answer for it.")
    try:
        with transaction.atomic():
            Answer.objects.create(
                vault_id=principle.vault_id, principle=principle, user=actor, signal=signal, text=text
            )
    except IntegrityError:
        return principle, False
    reason = f"principle {signal}ed by a person"
    {"confirm": _confirm, "correct": _correct, "reject": _reject}[signal](principle, text, reason)
    principle.answered_at = timezone.now()
    principle.save(update_fields=["status", "statement", "previous", "answered_at"])
    Notification.objects.filter(principle=principle, user=actor, read_at__isnull=True).update(read_at=timezone.now())
    audit_record(
        actor=actor,
        action=f"principle.{signal}",
        object_type="principle",
        object_id=principle.pk,
        vault_id=principle.vault_id,
        changes={"statement": principle.statement},
    )
    return principle, True


def _edges(principle: Principle) -> list[int]:
    return list(
        Dependency.objects.filter(vault_id=principle.vault_id, source_id=principle.entity_id).values_list(
            "pk", flat=True
        )
    )


def _confirm(principle: Principle, text: str, reason: str) -> None:
    principle.status = PrincipleStatus.CONFIRMED
    for edge in _edges(principle):
        weight_adjust(target="edge_strength", target_id=edge, delta=DELIBERATE, source="feedback", reason=reason)
        while Dependency.objects.filter(pk=edge, confidence__lt=CONFIRMED_AT).exists():
            if confidence_step(edge_id=edge, up=True, source="feedback", reason=reason) is None:
                break
    weight_adjust(
        target="entity_strength", target_id=principle.entity_id, delta=DELIBERATE, source="feedback", reason=reason
    )
    Entity.objects.filter(pk=principle.entity_id).update(tier=Tier.HOT)


def _correct(principle: Principle, text: str, reason: str) -> None:
    principle.previous = [*principle.previous, principle.statement]
    principle.statement = text
    principle.status = PrincipleStatus.REFINED
    Entity.objects.filter(pk=principle.entity_id).update(name=text[:300])


def _reject(principle: Principle, text: str, reason: str) -> None:
    principle.status = PrincipleStatus.REJECTED
    for edge in _edges(principle):
        weight_adjust(target="edge_strength", target_id=edge, delta=-DELIBERATE, source="feedback", reason=reason)
        confidence_step(edge_id=edge, up=False, source="feedback", reason=reason)
    weight_adjust(
        target="entity_strength", target_id=principle.entity_id, delta=-DELIBERATE, source="feedback", reason=reason
    )
    Entity.objects.filter(pk=principle.entity_id).update(tier=Tier.COLD)


def notification_read(*, actor: User, notification: Notification) -> Notification:
    if notification.read_at is None:
        notification.read_at = timezone.now()
        notification.save(update_fields=["read_at"])
    return notification


def notifications_seen(*, actor: User, notification_ids: list[int]) -> int:
    """Mark the actor's notifications a page has just shown as read: the header's count clears once they are seen."""
    unread = Notification.objects.filter(user=actor, pk__in=notification_ids, read_at__isnull=True)
    return unread.update(read_at=timezone.now())
