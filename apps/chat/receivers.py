"""What chat does when a room below it reports (subscribed in `ChatConfig.ready`)."""

from __future__ import annotations

from apps.chat.tasks import later_search
from apps.core.queue import queue_after_commit


def learn_from_search(*, user_id: int, query: str) -> None:
    """Units this person was given earlier that contain a term of their search learn a little (automatic)."""
    queue_after_commit(later_search, user_id, query, fallback="one automatic signal is lost")
