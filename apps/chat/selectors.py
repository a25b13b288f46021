"""Reads over conversations, scoped to the requester inside the query."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import Http404

from apps.chat.models import ContextItem, Conversation, Message, Role
from apps.core.validation import is_id
from apps.graph.explore import graph_grew
from apps.graph.models import Dependency, Entity
from apps.notes.models import Chunk
from apps.retrieval.trace import Trace
from apps.vaults.scope import Scope, readable_scope

EXPLORERS, EXPLORERS_STALE = 1, 2  # per session
ROUTINE_SESSIONS = 5  # this many sessions walking the same paths make the graph stale too


def conversation_get(*, user: User, conversation_id: object, for_update: bool = False) -> Conversation:
    """One of the requester's conversations, locked for a write with `for_update`. Missing, deleted and someone
    else's all raise the same 404, so no answer tells them apart."""
    found = None
    if is_id(str(conversation_id)):
        rows = Conversation.objects.select_for_update() if for_update else Conversation.objects.all()
        found = rows.filter(pk=int(str(conversation_id)), owner=user).first()
    if found is None:
        raise Http404("No conversation matches the given query.")
    return found


def explorer_quota(scope: Scope) -> int:
    """Speculative units a session may get: more when nothing new entered the graph for a week, or when the last
    sessions all walked the same paths."""
    return EXPLORERS if graph_grew(scope) and not _routine(scope) else EXPLORERS_STALE


def _routine(scope: Scope) -> bool:
    """The last ROUTINE_SESSIONS sessions in these vaults walked edges, and none walked one the busiest of them did
    not: the same paths every session."""
    answers = Message.objects.filter(role=Role.ASSISTANT, vault_ids__overlap=list(scope.vault_ids))
    answers = answers.order_by("-created_at", "-id")
    latest = answers.values_list("conversation_id", flat=True)[: ROUTINE_SESSIONS * 10]
    sessions = list(dict.fromkeys(latest))[:ROUTINE_SESSIONS]
    if len(sessions) < ROUTINE_SESSIONS:
        return False
    walked: dict[int, set[int]] = {s: set() for s in sessions}
    rows = scope.filter(ContextItem.objects.filter(message__conversation_id__in=sessions, speculative=False))
    for session, trace in rows.values_list("message__conversation_id", "trace"):
        walked[session].update(Trace.parse(trace).edges)
    if not all(walked.values()):
        return False
    return len(set().union(*walked.values())) <= max(len(edges) for edges in walked.values())


def expansion(*, user: User, item_id: int) -> dict[str, Any]:
    """A context unit pulled open: its sources' full text and the path that produced it (entities and edges),
    for the conversation's owner while they can still read the unit's vault; else 404."""
    items = ContextItem.objects.filter(pk=item_id, message__conversation__owner=user)
    item = readable_scope(user).filter(items).first()
    if item is None:
        raise Http404("No context item matches the given query.")
    chunk_ids = [s.get("chunk") for s in item.sources if isinstance(s, dict)]
    chunks = Chunk.objects.filter(pk__in=chunk_ids, vault_id=item.vault_id).select_related("note")
    trace = Trace.parse(item.trace)
    entities = Entity.objects.filter(pk__in=trace.entities, vault_id=item.vault_id)
    edges = Dependency.objects.filter(pk__in=trace.edges, vault_id=item.vault_id)
    names = {e.pk: e.name for e in entities}
    return {
        "item": item.pk,
        "sources": [
            {
                "note": c.note_id,
                "chunk": c.pk,
                "vault": c.vault_id,
                "path": c.note.path,
                "heading": c.heading,
                "text": c.text,
            }
            for c in chunks
        ],
        "path": {
            "intent": trace.intent or None,
            "entities": [{"id": pk, "name": names[pk]} for pk in trace.entities if pk in names],
            "edges": [
                {
                    "id": e.pk,
                    "kind": e.kind,
                    "source": e.source_id,
                    "target": e.target_id,
                    "strength": e.strength,
                    "confidence": e.confidence,
                    "reason": e.reason,
                }
                for e in edges
            ],
        },
    }
