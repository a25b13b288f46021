"""Reads of discovered concepts, filtered to the requester's readable vaults inside the SQL (a concept of an
unreadable vault is missing: 404), and people's answer to one: accept or dismiss (contributors of its vault)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch, QuerySet
from django.http import Http404
from django.utils import timezone
from rest_framework.exceptions import ValidationError

from apps.audit.services import audit_record
from apps.core.auth import Requester
from apps.insights.models import Concept, ConceptMember, ConceptStatus
from apps.insights.selectors import readable_vaults
from apps.vaults.permissions import user_may, vaults_for

VERDICTS = {"accept": ConceptStatus.ACCEPTED, "dismiss": ConceptStatus.DISMISSED}


def concept_list(*, user: Requester, vault_id: int) -> QuerySet[Concept]:
    """The vault's concepts, newest first, with their member notes (404 for a vault the user cannot read)."""
    if not vaults_for(user, "read").filter(pk=vault_id).exists():
        raise Http404("No vault matches the given query.")
    members = ConceptMember.objects.filter(vault_id__in=readable_vaults(user)).select_related("note").order_by("id")
    return (
        Concept.objects.filter(vault_id=vault_id, vault_id__in=readable_vaults(user))
        .select_related("hub")
        .prefetch_related(Prefetch("memberships", queryset=members))
    )


def concept_get(*, user: Requester, concept_id: object) -> Concept:
    try:
        return Concept.objects.select_related("vault").get(pk=int(str(concept_id)), vault_id__in=readable_vaults(user))
    except (Concept.DoesNotExist, ValueError) as exc:
        raise Http404("No concept matches the given query.") from exc


def concept_answer(*, actor: User, concept: Concept, verdict: str) -> Concept:
    """Accept or dismiss a proposed concept (it stays a proposal either way: accepting says it is worth keeping)."""
    if verdict not in VERDICTS:
        raise ValidationError({"verdict": [f"one of {', '.join(VERDICTS)}"]})
    if not user_may(actor, "contribute", concept.vault):
        raise PermissionDenied("Only the vault's contributors answer for it.")
    concept.status, concept.answered_at = VERDICTS[verdict], timezone.now()
    concept.save(update_fields=["status", "answered_at"])
    audit_record(
        actor=actor,
        action=f"concept.{verdict}",
        object_type="concept",
        object_id=concept.pk,
        vault_id=concept.vault_id,
        changes={"status": concept.status},
    )
    return concept


def concept_payload(concept: Concept) -> dict[str, Any]:
    return {
        "id": concept.pk,
        "vault": concept.vault_id,
        "entity": concept.entity_id,
        "label": concept.label,
        "description": concept.description,
        "provenance": concept.provenance,
        "status": concept.status,
        "written_by": concept.written_by,
        "hub": concept.hub_id,
        "members": [
            {"note": m.note_id, "path": m.note.path, "co_visits": m.co_visits} for m in concept.memberships.all()
        ],
        "relations": concept.relations,
        "created_at": concept.created_at,
    }
