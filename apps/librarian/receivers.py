"""What the librarian does when a room below it reports (subscribed in `LibrarianConfig.ready`)."""

from __future__ import annotations

from apps.core.queue import queue_after_commit
from apps.librarian.tasks import file_exchange_task


def file_answered(*, message_id: int) -> None:
    """After each exchange, in the worker: was it a concept worth filing, or chatter?"""
    queue_after_commit(file_exchange_task, message_id, fallback="this exchange is not filed")
