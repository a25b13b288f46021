"""The chat page: ask across the vaults you tick, watch the answer stream in (server-sent events), open its
citations, unfold the gate's scores, and rate what you were shown."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from apps.chat.apis import conversation_payload, pending_message
from apps.chat.models import Conversation, Message, Role
from apps.chat.selectors import conversation_get
from apps.chat.services.asking import QUEUE_DOWN
from apps.chat.services.chat import Event, chat_run, chat_start
from apps.chat.services.history import conversation_delete
from apps.chat.services.relay import follow, queue_answer
from apps.chat.services.streams import ANSWERED_LATER, Held, NoWaitSlot, wait_slot_take
from apps.core.auth import actor
from apps.core.exceptions import messages_of
from apps.core.validation import is_id
from apps.notes.selectors import filed_note_count, readable_note_count
from apps.vaults.permissions import vault_ids_for
from apps.vaults.selectors import vault_list


@login_required
@require_GET
def chat_page(request: HttpRequest) -> HttpResponse:
    user = actor(request)
    vaults = vault_list(user=user).annotate(note_count=readable_note_count(user), filed_count=filed_note_count(user))
    find = request.GET.get("find", "").strip()[:200]
    conversations = Conversation.objects.filter(owner=user)
    if find:
        conversations = conversations.filter(title__icontains=find)
    current: dict[str, Any] | None = None
    wanted = request.GET.get("c", "")
    if wanted:
        found = conversation_get(user=user, conversation_id=wanted)
        current = conversation_payload(found, messages=True, user=user)
    archived = [vault for vault in vaults if vault.archived_at is not None]
    ticked = set(current["vaults"]) if current else set()
    return render(
        request,
        "chat.html",
        {
            "vaults": vaults,
            "archived": archived,
            "archived_ticked": any(vault.pk in ticked for vault in archived),
            "conversations": conversations[:50],
            "current": current,
            "find": find,
            "deleted": request.GET.get("deleted") == "1",
            # where a correction can be applied, not only proposed (an archived vault takes proposals only)
            "contributes": [vid for vid in vault_ids_for(user, "contribute") if vid not in {v.pk for v in archived}],
        },
    )


@login_required
@require_POST
def conversation_delete_page(request: HttpRequest, conversation_id: int) -> HttpResponse:
    """The owner deletes a conversation for good (404 for anyone else's) and lands on a new one."""
    conversation_delete(user=actor(request), conversation_id=conversation_id)
    return redirect(f"{reverse('chat-page')}?deleted=1")


@login_required
@require_POST
def chat_send(request: HttpRequest) -> JsonResponse:
    """Store the question (400 with the reason on bad input) and hand back where its answer streams from."""
    raw = request.POST.getlist("vault")
    conversation = request.POST.get("conversation", "")
    if not all(is_id(v) for v in raw) or (conversation and not is_id(conversation)):
        return JsonResponse({"detail": "Vaults and conversations are named by their numeric ids."}, status=400)
    vault_ids = [int(v) for v in raw]
    try:
        message = chat_start(
            user=actor(request),
            vault_ids=vault_ids,
            text=request.POST.get("message", ""),
            conversation_id=int(conversation) if conversation else None,
        )
    except ValidationError as exc:
        return JsonResponse({"detail": messages_of(exc)}, status=400)
    except Http404:
        detail = "One of the chosen vaults or this conversation is not available to you."
        return JsonResponse({"detail": detail}, status=404)
    body = {"conversation": message.conversation_id, "message": message.pk}
    if settings.CHAT_ANSWERS_IN_WORKER:
        try:
            queue_answer(message, actor(request))
        except Exception:  # noqa: BLE001 - the question is stored; the page says so
            return JsonResponse({**body, "detail": QUEUE_DOWN}, status=503)
    return JsonResponse({**body, "stream": reverse("chat-stream", args=[message.pk])})


def _sse(events: Iterator[Event]) -> Iterator[str]:
    for event in events:
        if event.kind == "waiting":
            yield ": waiting\n\n"  # nothing for the page; a write that fails once the client has gone
        else:
            yield f"event: {event.kind}\ndata: {json.dumps(event.data, default=str)}\n\n"


@login_required
@require_GET
def chat_stream(request: HttpRequest, message_id: int) -> StreamingHttpResponse:
    user = actor(request)
    if settings.CHAT_ANSWERS_IN_WORKER:
        if not Message.objects.filter(pk=message_id, role=Role.ASSISTANT, conversation__owner=user).exists():
            raise Http404("No answer of yours matches the given query.")
        try:
            slot = wait_slot_take(user_id=user.pk)
        except NoWaitSlot as busy:
            return _event_stream(_sse(iter([Event("busy", {"detail": f"Not streamed: {busy}. {ANSWERED_LATER}"})])))
        events = follow(message_id, wait=settings.CHAT_WAIT_SECONDS, unclaimed=settings.CHAT_UNCLAIMED_SECONDS)
        return _event_stream(Held(_sse(events), slot))
    message = pending_message(user=user, message_id=message_id)
    if message is None:
        raise Http404("No pending answer matches the given query.")
    return _event_stream(_sse(chat_run(message=message, user=user)))


def _event_stream(lines: Iterator[str]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
