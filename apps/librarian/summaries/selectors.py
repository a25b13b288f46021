"""Reading the summary DAG: only its owner ever reads a node (it lives in their personal vault); the owner and the
readable-vault filter sit in the queryset, and someone else's node is the same 404 as a missing one. A node whose
note carries a vault its owner can no longer read (`drawn_from`) keeps its place in the DAG but is withheld, as an
answer in the conversation's history is: its title, gist, path and text give way to a notice."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404

from apps.chat.models import Message, Role
from apps.chat.services.chat import WITHHELD
from apps.librarian.models import SummaryNode
from apps.vaults.permissions import vault_ids_for, vaults_for

SHORT = 200
LIST_LIMIT = 500
WITHHELD_SUMMARY = "(This summary drew on a vault you can no longer read, so it is no longer shown.)"


def _own(user: User) -> QuerySet[SummaryNode]:
    return SummaryNode.objects.filter(owner=user, vault__in=vaults_for(user, "read")).select_related("note")


def _withheld(node: SummaryNode, readable: set[int]) -> bool:
    return not set(node.note.drawn_from) <= readable


def _brief(node: SummaryNode, readable: set[int]) -> dict[str, Any]:
    withheld = _withheld(node, readable)
    return {
        "id": node.pk,
        "level": node.level,
        "key": node.key,
        "withheld": withheld,
        "title": WITHHELD_SUMMARY if withheld else node.note.title,
        "gist": WITHHELD_SUMMARY if withheld else node.gist,
        "note": None if withheld else node.note_id,
        "path": "" if withheld else node.note.path,
        "conversation": node.conversation_id,
        "period_start": node.period_start,
        "period_end": node.period_end,
    }


def summary_list(*, user: User, level: int | None = None, conversation: int | None = None) -> list[dict[str, Any]]:
    """The requester's summary nodes, oldest period first, optionally of one level or one conversation."""
    rows = _own(user)
    if level is not None:
        rows = rows.filter(level=level)
    if conversation is not None:
        rows = rows.filter(conversation_id=conversation)
    readable = set(vault_ids_for(user, "read"))
    return [_brief(n, readable) for n in rows.order_by("period_start", "level", "id")[:LIST_LIMIT]]


def summary_get(*, user: User, summary_id: int) -> dict[str, Any]:
    """One of the requester's nodes with its text, its children, its parents and the messages it points at
    (an answer that read a vault the requester can no longer read is withheld, as in the conversation)."""
    node = _own(user).filter(pk=summary_id).first()
    if node is None:
        raise Http404("No summary matches the given query.")
    children = _own(user).filter(parent_links__parent=node).order_by("period_start", "id")
    parents = _own(user).filter(child_links__child=node).order_by("level", "period_start", "id")
    readable = set(vault_ids_for(user, "read"))
    messages = Message.objects.filter(
        pk__in=node.message_links.values("message_id"), conversation__owner=user
    ).order_by("created_at", "id")
    return {
        **_brief(node, readable),
        "text": WITHHELD_SUMMARY if _withheld(node, readable) else node.note.body,
        "children": [_brief(c, readable) for c in children],
        "parents": [_brief(p, readable) for p in parents],
        "messages": [_message(m, readable) for m in messages],
    }


def _message(message: Message, readable: set[int]) -> dict[str, Any]:
    withheld = message.role == Role.ASSISTANT and not set(message.vault_ids) <= readable
    text = WITHHELD if withheld else message.text
    return {"id": message.pk, "role": message.role, "created_at": message.created_at, "text": text[:SHORT]}
