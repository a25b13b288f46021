"""Reads of principles and notifications, filtered to the requester's readable vaults inside the SQL: a principle
of an unreadable vault is missing (404), and a notification disappears with the access to its vault."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import Prefetch, QuerySet
from django.http import Http404

from apps.core.auth import Requester
from apps.insights.models import Evidence, Notification, Principle
from apps.vaults.permissions import vaults_for


def readable_vaults(user: Requester) -> QuerySet[Any]:
    """The ids of the vaults `user` reads, as a subquery every insights read filters on."""
    return vaults_for(user, "read").values("id")


def principle_list(*, user: Requester, vault_id: int) -> QuerySet[Principle]:
    if not vaults_for(user, "read").filter(pk=vault_id).exists():
        raise Http404("No vault matches the given query.")
    evidence = Evidence.objects.filter(vault_id__in=readable_vaults(user)).select_related("note")
    return (
        Principle.objects.filter(vault_id=vault_id, vault_id__in=readable_vaults(user))
        .select_related("entity")
        .prefetch_related(Prefetch("evidence", queryset=evidence))
    )


def principle_get(*, user: Requester, principle_id: object) -> Principle:
    try:
        return Principle.objects.select_related("vault", "entity").get(
            pk=int(str(principle_id)), vault_id__in=readable_vaults(user)
        )
    except (Principle.DoesNotExist, ValueError) as exc:
        raise Http404("No principle matches the given query.") from exc


def notification_list(*, user: User, unread_only: bool = False) -> QuerySet[Notification]:
    rows = Notification.objects.filter(user=user, vault_id__in=readable_vaults(user)).select_related("vault")
    return rows.filter(read_at__isnull=True) if unread_only else rows


def notification_get(*, user: User, notification_id: object) -> Notification:
    try:
        return notification_list(user=user).get(pk=int(str(notification_id)))
    except (Notification.DoesNotExist, ValueError) as exc:
        raise Http404("No notification matches the given query.") from exc


def principle_payload(principle: Principle) -> dict[str, Any]:
    return {
        "id": principle.pk,
        "vault": principle.vault_id,
        "entity": principle.entity_id,
        "statement": principle.statement,
        "previous": principle.previous,
        "status": principle.status,
        "created_at": principle.created_at,
        "answered_at": principle.answered_at,
        "evidence": [
            {"note": e.note_id, "path": e.note.path, "chunk": e.chunk_id, "sentence": e.sentence}
            for e in principle.evidence.all()
        ],
    }


def notification_payload(notification: Notification) -> dict[str, Any]:
    return {
        "id": notification.pk,
        "vault": notification.vault_id,
        "principle": notification.principle_id,
        "title": notification.title,
        "text": notification.text,
        "created_at": notification.created_at,
        "read": notification.read_at is not None,
        "url": f"/vaults/{notification.vault_id}/principles/",
    }
