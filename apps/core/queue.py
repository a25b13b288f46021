"""Queueing Celery work once the surrounding transaction commits, without ever failing the write that asked."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

logger = logging.getLogger(__name__)


def queue_after_commit(task: Any, *args: Any, fallback: str) -> None:
    """`task.delay(*args)` after commit; if the queue is unreachable the write stands and `fallback` (who picks
    the work up later) is logged."""

    def send() -> None:
        try:
            task.delay(*args)
        except Exception:  # noqa: BLE001 - the write is saved; a periodic job or a later event catches up
            logger.warning("could not queue %s%r; %s", task.name, args, fallback, exc_info=True)

    transaction.on_commit(send)
