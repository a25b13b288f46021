from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET


def _check_db() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            return "ok" if cursor.fetchone() else "no pgvector"
    except Exception as exc:  # noqa: BLE001 - a health check reports, never raises
        return f"error: {type(exc).__name__}"


def _check_redis() -> str:
    import redis
    from django.conf import settings

    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
        return "ok" if client.ping() else "error"
    except Exception as exc:  # noqa: BLE001
        return f"error: {type(exc).__name__}"


def _check_worker() -> str:
    from celery import current_app  # the project's app, set when the `desirepath` package is imported

    try:
        replies = current_app.control.ping(timeout=1.0)
    except Exception:  # noqa: BLE001
        return "down"
    return "ok" if replies else "down"


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness of the parts: database (with pgvector), Redis, and whether any Celery worker answers."""
    body = {"db": _check_db(), "redis": _check_redis(), "worker": _check_worker()}
    healthy = body["db"] == "ok" and body["redis"] == "ok"
    return JsonResponse(body, status=200 if healthy else 503)
