"""The Celery side as Redis sees it: which queues the deployment routes work to, how many messages wait in each,
and which workers said they were alive, and when.

Every worker writes its heartbeat into Redis (a sorted set per queue it consumes, host → time), on Celery's own
heartbeat every two seconds; /healthz and /metrics read them there in one round trip, instead of a broadcast
through the broker that waits for the workers' replies."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from kombu.transport.redis import PRIORITY_STEPS, Channel

from apps.core.redis_connection import redis_client

REDIS_TIMEOUT_SECONDS = 1.0  # a health check or a scrape never waits longer on Redis
FORGET_SECONDS = 86400.0  # a worker silent this long leaves the list


def _redis() -> Any:
    return redis_client(timeout=REDIS_TIMEOUT_SECONDS, connect_timeout=REDIS_TIMEOUT_SECONDS)


def task_queues() -> list[str]:
    """The queues work is sent to: the default one and each routed one."""
    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values() if "queue" in route}
    return sorted({settings.CELERY_TASK_DEFAULT_QUEUE, *routed})


def _heartbeats_key(queue: str) -> str:
    return f"desirepath:workers:{queue}"


def heartbeat_write(*, worker: str, queues: Iterable[str]) -> None:
    """`worker` (its node name) is alive and consumes `queues`."""
    now = time.time()
    with _redis() as client, client.pipeline() as pipe:
        for queue in queues:
            pipe.zadd(_heartbeats_key(queue), {worker: now})
            pipe.zremrangebyscore(_heartbeats_key(queue), "-inf", now - FORGET_SECONDS)
        pipe.execute()


def heartbeat_remove(*, worker: str, queues: Iterable[str]) -> None:
    """`worker` stopped: it is down at once, not once its last heartbeat has grown old."""
    with _redis() as client, client.pipeline() as pipe:
        for queue in queues:
            pipe.zrem(_heartbeats_key(queue), worker)
        pipe.execute()


def heartbeats(queues: Iterable[str]) -> dict[str, dict[str, float]]:
    """Queue → worker → the time of its last heartbeat (seconds since the epoch). Raises when Redis is down."""
    names = list(queues)
    with _redis() as client, client.pipeline(transaction=False) as pipe:
        for queue in names:
            pipe.zrange(_heartbeats_key(queue), 0, -1, withscores=True)
        replies = pipe.execute()
    return {
        queue: {member.decode(): float(at) for member, at in reply} for queue, reply in zip(names, replies, strict=True)
    }


def live_workers(queues: Iterable[str]) -> dict[str, list[str]]:
    """Queue → the workers whose last heartbeat is recent (WORKER_HEARTBEAT_SECONDS)."""
    since = time.time() - float(settings.WORKER_HEARTBEAT_SECONDS)
    return {queue: sorted(w for w, at in seen.items() if at >= since) for queue, seen in heartbeats(queues).items()}


def queue_depths(queues: Iterable[str]) -> dict[str, int]:
    """Queue → messages waiting in it (every priority's list of kombu's Redis transport; not those a worker has
    already taken). Raises when Redis is down."""
    names = list(queues)
    with _redis() as client, client.pipeline(transaction=False) as pipe:
        for queue in names:
            for priority in PRIORITY_STEPS:
                pipe.llen(f"{queue}{Channel.sep}{priority}" if priority else queue)
        lengths = pipe.execute()
    steps = len(PRIORITY_STEPS)
    return {queue: sum(lengths[i * steps : (i + 1) * steps]) for i, queue in enumerate(names)}
