"""What the MCP tools do, for the person a token names: each goes through the selector or service the REST API
uses, so the vault policy (and the token's limits, attached to the user) decides in SQL what they read or write,
and a vault, note or context item they may not read is not found, exactly as over REST. Every result names the
vault and path it comes from and the address of the note's page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from apps.chat.models import Status
from apps.chat.services.asking import chat_ask, not_answered
from apps.core.auth import token_limits
from apps.feedback.services.votes import correction_of, feedback_record
from apps.notes.selectors import note_get
from apps.notes.serializers import NoteCreateIn
from apps.notes.services.notes import note_create
from apps.retrieval.filed import search_results
from apps.retrieval.hooks import searched
from apps.retrieval.search import hybrid_search
from apps.retrieval.serializers import SearchHitOut, SearchQuery
from apps.vaults.permissions import roles_for
from apps.vaults.scope import scope_for
from apps.vaults.selectors import vault_get, vault_list

READ_ONLY = "this token is read-only: it may search, ask and read, not write notes or give feedback"


@dataclass(frozen=True)
class Caller:
    """Who calls a tool (their token's limits attached) and the site's address, for the links in results."""

    user: User
    site: str  # scheme and host, no trailing slash

    def url(self, name: str, object_id: int) -> str:
        return self.site + reverse(name, args=[object_id])

    def writes(self) -> None:
        limits = token_limits(self.user)
        if limits is not None and limits.read_only:
            raise PermissionDenied(READ_ONLY)


def _valid(serializer: Any) -> dict[str, Any]:
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def search(caller: Caller, *, query: str, vaults: list[int] | None, k: int) -> dict[str, Any]:
    """Hybrid search over the vaults the caller reads (the REST search: same validation, same SQL)."""
    data = _valid(SearchQuery(data={"q": query, "vault": vaults or [], "k": k}))
    result = hybrid_search(scope=scope_for(caller.user, data.get("vault")), query=data["q"], k=data["k"])
    searched(user_id=caller.user.pk, query=data["q"])
    # One list serializer, as the REST search's: a serializer per hit would copy its fields once for each hit.
    rows = SearchHitOut(search_results(user=caller.user, query=data["q"], hits=result.hits), many=True).data
    return {"results": [{**hit, "url": caller.url("note-page", hit["note"])} for hit in rows]}


def list_vaults(caller: Caller) -> dict[str, Any]:
    vaults = list(vault_list(user=caller.user))
    roles = roles_for(caller.user, vaults)
    return {
        "vaults": [
            {
                "vault": v.pk,
                "name": v.name,
                "role": roles.get(v.pk),
                "personal": v.is_personal,
                "archived": v.archived_at is not None,
                "url": caller.url("vault-page", v.pk),
            }
            for v in vaults
        ]
    }


def get_note(caller: Caller, *, note: int) -> dict[str, Any]:
    found = note_get(user=caller.user, note_id=note)
    return {
        "note": found.pk,
        "vault": found.vault_id,
        "path": found.path,
        "title": found.title,
        "body": found.body,
        "tier": found.tier,
        "updated_at": found.updated_at.isoformat(),
        "url": caller.url("note-page", found.pk),
    }


def write_note(caller: Caller, *, vault: int, path: str, body: str) -> dict[str, Any]:
    """A new note (contributors and managers of the vault; never through a read-only token)."""
    caller.writes()
    data = _valid(NoteCreateIn(data={"path": path, "body": body}))
    target = vault_get(user=caller.user, vault_id=vault, action="contribute")
    created = note_create(actor=caller.user, vault=target, path=data["path"], body=data["body"])
    return {
        "note": created.pk,
        "vault": created.vault_id,
        "path": created.path,
        "title": created.title,
        "url": caller.url("note-page", created.pk),
    }


def ask(caller: Caller, *, question: str, vaults: list[int] | None, conversation: int | None) -> dict[str, Any]:
    """The chat's answer path: the question stored, answered by the answers worker while this waits (within the
    chat's waiting limits), gated, grounded or fallen back; each [n] of the answer listed with its source."""
    asked = chat_ask(user=caller.user, vault_ids=vaults or [], text=question, conversation_id=conversation)
    message = asked.message
    items = message.context.filter(survived=True, citation__isnull=False).order_by("citation")
    result: dict[str, Any] = {
        "conversation": message.conversation_id,
        "message": message.pk,
        "status": message.status,
        "answer": message.text,
        "grounded": bool(message.grounded),
        "fallback": message.fallback or None,
        "notices": message.notices,
        "citations": [
            {
                "n": item.citation,
                "context_item": item.pk,
                "vault": item.vault_id,
                "path": item.path,
                "title": item.title,
                "note": item.note_id,
                "url": caller.url("note-page", item.note_id) if item.note_id else None,
            }
            for item in items
        ],
    }
    if asked.last.kind in ("failure", "unwaited"):
        result["detail"] = asked.last.data["detail"]
    elif message.status != Status.COMPLETE:
        result["detail"] = not_answered(asked)[1]
    return result


def feedback(caller: Caller, *, context_item: int, signal: str, text: str) -> dict[str, Any]:
    """A vote on a passage an answer of the caller's showed (never through a read-only token)."""
    caller.writes()
    vote, created = feedback_record(user=caller.user, item_id=context_item, signal=signal, text=text)
    item = vote.context_item
    result: dict[str, Any] = {
        "feedback": vote.pk,
        "context_item": item.pk,
        "signal": vote.signal,
        "created": created,
        "vault": item.vault_id,
        "path": item.path,
        "url": caller.url("note-page", item.note_id) if item.note_id else None,
    }
    correction = correction_of(vote)
    if correction is not None:
        result["correction"] = {"id": correction.pk, "status": correction.status}
    return result
