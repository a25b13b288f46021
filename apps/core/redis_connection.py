"""The one way the application opens a connection to its Redis (REDIS_URL): the chat's relay and wait slots,
Insights' build marks, the health check and the workers' heartbeats."""

from __future__ import annotations

from typing import Any

from django.conf import settings


def redis_client(*, timeout: float | None = None, connect_timeout: float = 2.0) -> Any:
    """A client of the deployment's Redis; `timeout` bounds each command (None: a blocking read may wait)."""
    import redis

    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=timeout, socket_connect_timeout=connect_timeout)
