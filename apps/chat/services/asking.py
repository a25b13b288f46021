"""Ask and wait: the question stored, its answer handed to the answers worker, and the asker's request waiting for
it within the chat's waiting limits (`streams`). The chat API and the MCP `ask` tool both answer through here, so
a question asked either way is gated, grounded or fallen back, and cited the same."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.models import User

from apps.chat.models import Message, Status
from apps.chat.services.chat import Event, chat_run, chat_start
from apps.chat.services.relay import follow, queue_answer
from apps.chat.services.streams import ANSWERED_LATER, Held, NoWaitSlot, wait_slot_take

QUEUE_DOWN = "The answer queue cannot be reached right now; your question is kept in the conversation."


@dataclass(frozen=True)
class Asked:
    """The answer message as the wait left it, and the last event seen: `done`, `failure` (its `detail` and the
    HTTP `status` that says it), `timeout`, or `unwaited` (no waiting slot: answered later, status 202)."""

    message: Message
    last: Event


def chat_ask(*, user: User, vault_ids: list[int], text: str, conversation_id: int | None = None) -> Asked:
    """Store the question (400 on a bad one, 404 on an unreadable vault or conversation) and wait for its answer:
    written by the answers worker, or in this process when the settings say answers are not sent to a worker."""
    message = chat_start(user=user, vault_ids=vault_ids, text=text, conversation_id=conversation_id)
    if not settings.CHAT_ANSWERS_IN_WORKER:
        events: Iterable[Event] = chat_run(message=message, user=user)
    else:
        try:
            queue_answer(message, user)
        except Exception:  # noqa: BLE001 - the question is stored; say so rather than fail opaquely
            return Asked(message, Event("failure", {"detail": QUEUE_DOWN, "status": 503}))
        try:
            slot = wait_slot_take(user_id=user.pk)
        except NoWaitSlot as busy:
            return Asked(message, Event("unwaited", {"detail": f"Not waited for: {busy}. {ANSWERED_LATER}"}))
        events = Held(
            follow(message.pk, wait=settings.CHAT_WAIT_SECONDS, unclaimed=settings.CHAT_UNCLAIMED_SECONDS), slot
        )
    finals = [e for e in events if e.kind in ("failure", "done", "timeout")]  # to the end of either source
    message.refresh_from_db()
    return Asked(message, finals[-1] if finals else Event("timeout", {}))


QUEUED = "Waiting its turn: the workers are busy with other answers; your question is kept and will be answered."
UNCLAIMED = "No worker has picked this answer up yet; your question is kept and will be answered."
STILL_WRITING = "Still being answered: fetch the conversation for the finished answer."


def not_answered(asked: Asked) -> tuple[int, str]:
    """For an answer the wait ended without (`timeout`): the HTTP status that says why, and the words."""
    if asked.message.status == Status.PENDING and asked.last.data.get("queued"):
        return 202, QUEUED
    if asked.message.status == Status.PENDING:
        return 503, UNCLAIMED
    return 202, STILL_WRITING
