"""A vault's insights are built soon after its notes change (an import finished, a note written and embedded), not
only by the daily run. One build per vault waits at a time: a burst of edits inside the delay queues a single build,
which then reads every one of them. Redis holds whether a vault's build waits or runs, which the insights page
shows; nothing here is needed for correctness, so Redis being away only costs the early build."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

from apps.core.redis_connection import redis_client

logger = logging.getLogger(__name__)

QUEUED, RUNNING = "queued", "running"
# A waiting mark outlives its delay by the longest a worker busy with an import may take to reach the build; a mark
# a lost task left behind then lapses and the next change queues a build again.
WAIT_MARGIN_SECONDS = 3600


def _key(state: str, vault_id: int) -> str:
    return f"desirepath:insights:build-{state}:{vault_id}"


def build_claim(*, vault_id: int) -> bool:
    """Mark the vault's build as waiting; False when one already waits (the caller queues nothing)."""
    seconds = int(float(settings.INSIGHTS_BUILD_DELAY_SECONDS)) + WAIT_MARGIN_SECONDS
    return bool(redis_client().set(_key(QUEUED, vault_id), "1", nx=True, ex=seconds))


def build_release(*, vault_id: int) -> None:
    """The waiting mark of a build that could not be queued: the next change tries again."""
    redis_client().delete(_key(QUEUED, vault_id))


@contextmanager
def build_running(*, vault_id: int, seconds: int) -> Iterator[None]:
    """While a build runs: a change made now queues the next build (this one may have read past it)."""
    client = redis_client()
    with client.pipeline() as pipe:
        pipe.delete(_key(QUEUED, vault_id))
        pipe.set(_key(RUNNING, vault_id), "1", ex=seconds)
        pipe.execute()
    try:
        yield
    finally:
        client.delete(_key(RUNNING, vault_id))


def build_state(*, vault_id: int) -> str:
    """`running`, `queued` or "" (no build waits, or Redis cannot say)."""
    try:
        running, queued = redis_client().mget([_key(RUNNING, vault_id), _key(QUEUED, vault_id)])
    except Exception:  # noqa: BLE001 - the page shows what is ready; whether more is coming is a courtesy
        logger.warning("could not read whether vault %s's insights are being built", vault_id, exc_info=True)
        return ""
    return RUNNING if running else QUEUED if queued else ""
