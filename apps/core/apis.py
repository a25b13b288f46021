from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.template import loader
from django.views.decorators.http import require_GET
from django.views.defaults import bad_request, server_error

from apps.core.redis_connection import redis_client
from apps.core.workers import live_workers, task_queues


def _check_db() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            return "ok" if cursor.fetchone() else "no pgvector"
    except Exception as exc:  # noqa: BLE001 - a health check reports, never raises
        return f"error: {type(exc).__name__}"


def _check_redis() -> str:
    try:
        client = redis_client(timeout=1, connect_timeout=1)
        return "ok" if client.ping() else "error"
    except Exception as exc:  # noqa: BLE001
        return f"error: {type(exc).__name__}"


def _check_queues() -> dict[str, str]:
    """Per queue: `ok` when a worker consuming it sent a heartbeat lately, else `down` (`unknown`: Redis is down)."""
    queues = task_queues()
    try:
        live = live_workers(queues)
    except Exception:  # noqa: BLE001
        return dict.fromkeys(queues, "unknown")
    return {queue: "ok" if live[queue] else "down" for queue in queues}


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Which part is down: the database (with pgvector), Redis, and per queue whether a worker consumes it
    (`worker` is `ok` when every queue has one). 503 when the database or Redis is down, as nothing works without
    them; a queue without a worker leaves the pages and the API up (work waits in it), so it says so with 200."""
    queues = _check_queues()
    body = {
        "db": _check_db(),
        "redis": _check_redis(),
        "worker": "ok" if all(state == "ok" for state in queues.values()) else "down",
        "queues": queues,
    }
    healthy = body["db"] == "ok" and body["redis"] == "ok"
    return JsonResponse(body, status=200 if healthy else 503)


def api_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Under /api/, an address that names no operation (or an id that is not a number) answers as the API does,
    in JSON with a reason; pages answer with the site's own page (templates/404.html), its header the signed-in
    person's as on every page, and the same for whatever is missing or withheld."""
    if request.path.startswith("/api/"):
        detail = "No API operation answers at this address: check the path, and that its ids are numbers."
        return JsonResponse({"detail": detail}, status=404)
    get_token(request)  # the sign-out form takes its token from the CSRF cookie: make sure the requester has one
    page = loader.render_to_string("404.html", {"csrf_cookie_name": settings.CSRF_COOKIE_NAME}, request)
    return HttpResponse(page, status=404)


def api_bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A request Django refuses before any view runs (too many fields, a malformed upload): under /api/ the
    reason in JSON, as every other refusal of the API."""
    if request.path.startswith("/api/"):
        reason = str(exception) or "The request could not be read."
        return JsonResponse({"detail": f"Bad request: {reason}"}, status=400)
    return bad_request(request, exception)


def api_server_error(request: HttpRequest) -> HttpResponse:
    """A failure no view handled: under /api/ a JSON reason a client can read; pages get templates/500.html, which
    needs neither the database nor the requester, either of which may be what failed."""
    if request.path.startswith("/api/"):
        detail = "The server failed to answer this request; it has been logged. Try again later."
        return JsonResponse({"detail": detail}, status=500)
    return server_error(request)
