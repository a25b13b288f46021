"""What feedback does when a room below it reports (subscribed in `FeedbackConfig.ready`)."""

from __future__ import annotations

from apps.core.queue import queue_after_commit
from apps.feedback.tasks import later_search


def learn_from_search(*, user_id: int, query: str) -> None:
    """Units this person was given earlier that contain a term of their search learn a little (automatic)."""
    queue_after_commit(later_search, user_id, query, fallback="one automatic signal is lost")


def learn_from_question(*, user_id: int, text: str, message_id: int) -> None:
    """A question asked in chat is a later search too: for the units given before it (automatic)."""
    queue_after_commit(later_search, user_id, text, message_id, fallback="one automatic signal is lost")
