from __future__ import annotations

import time

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET
from django.views.defaults import bad_request, page_not_found


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


# A worker that answered this process within WORKER_OK_SECONDS counts as up: the ping is a broadcast through the
# broker that waits for a worker's reply, which a poller calling every second need not pay on each call.
WORKER_OK_SECONDS = 5.0
_worker_answered_at = float("-inf")


def _check_worker() -> str:
    from celery import current_app  # the project's app, set when the `desirepath` package is imported

    global _worker_answered_at
    if time.monotonic() - _worker_answered_at < WORKER_OK_SECONDS:
        return "ok"
    try:
        replies = current_app.control.ping(timeout=1.0, limit=1)  # done at the first reply, not after the timeout
    except Exception:  # noqa: BLE001
        return "down"
    if not replies:
        return "down"
    _worker_answered_at = time.monotonic()
    return "ok"


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness of the parts: database (with pgvector), Redis, and whether any Celery worker answers."""
    body = {"db": _check_db(), "redis": _check_redis(), "worker": _check_worker()}
    healthy = body["db"] == "ok" and body["redis"] == "ok"
    return JsonResponse(body, status=200 if healthy else 503)


def api_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Under /api/, an address that names no operation (or an id that is not a number) answers as the API does,
    in JSON with a reason; pages keep Django's page."""
    if request.path.startswith("/api/"):
        detail = "No API operation answers at this address: check the path, and that its ids are numbers."
        return JsonResponse({"detail": detail}, status=404)
    return page_not_found(request, exception)


def api_bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A request Django refuses before any view runs (too many fields, a malformed upload): under /api/ the
    reason in JSON, as every other refusal of the API."""
    if request.path.startswith("/api/"):
        reason = str(exception) or "The request could not be read."
        return JsonResponse({"detail": f"Bad request: {reason}"}, status=400)
    return bad_request(request, exception)
