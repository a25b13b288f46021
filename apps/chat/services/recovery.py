"""Answers a lost worker or an unreachable queue left behind: a question still pending is sent again (a worker
answers it, as the question's page promised), an answer still running past its time limit is failed with the
reason, so the conversation says what happened instead of waiting forever."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from apps.chat.models import Message, Role, Status
from apps.chat.services.relay import queue_answer

logger = logging.getLogger(__name__)

WORKER_LOST = "The worker writing this answer stopped before it was finished; ask again."
RESEND_WITHIN = timedelta(days=1)  # a question older than this is not answered out of the blue


def answers_recover(*, resend_after: float | None = None, running_for: float | None = None) -> dict[str, int]:
    """Pending questions not sent for `resend_after` seconds are sent again; answers running `running_for`
    seconds (a minute past the answer task's time limit) are failed with the reason."""
    now = timezone.now()
    resend = float(settings.CHAT_RESEND_PENDING_SECONDS if resend_after is None else resend_after)
    lost = float(settings.CHAT_ANSWER_TIME_LIMIT + 60 if running_for is None else running_for)
    running = Message.objects.filter(role=Role.ASSISTANT, status=Status.RUNNING).annotate(
        since=Coalesce("claimed_at", "created_at")
    )
    failed = 0
    for stale in running.filter(since__lt=now - timedelta(seconds=lost)):
        # Only if it is still running: a run that finishes meanwhile keeps its answer.
        notices = [*stale.notices, WORKER_LOST]
        failed += Message.objects.filter(pk=stale.pk, status=Status.RUNNING).update(
            status=Status.FAILED, notices=notices
        )
    sent = 0
    if settings.CHAT_ANSWERS_IN_WORKER:
        cutoff = now - timedelta(seconds=resend)
        waiting = Message.objects.filter(
            role=Role.ASSISTANT, status=Status.PENDING, created_at__gt=now - RESEND_WITHIN
        ).filter(Q(sent_at=None, created_at__lt=cutoff) | Q(sent_at__lt=cutoff))
        for message in waiting.select_related("conversation__owner").order_by("id"):
            try:
                queue_answer(message, message.conversation.owner)
            except Exception:  # noqa: BLE001 - the queue is still down: the next sweep tries again
                logger.warning("the answer queue is still unreachable; %s stays pending", message.pk)
                break
            sent += 1
    return {"resent": sent, "failed": failed}
