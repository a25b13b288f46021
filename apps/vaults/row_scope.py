"""Each request reads, at the database, only what its requester may read (the second wall, `apps.core.row_security`).

The binding follows `request.user` as it is when a statement runs: the session's user from the start, the token's
once an API view authenticated it. Staff on the admin site observe every vault's metadata (what the admin shows of
it, never a body, is the admin's own choice), under a system binding that says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.core.signals import request_finished, request_started
from django.http import HttpRequest, HttpResponse

from apps.core import row_security
from apps.core.auth import Requester
from apps.vaults.permissions import vault_ids_for

ADMIN_PREFIX = "/admin/"


def _readable(user: object) -> tuple[int, ...]:
    return tuple(vault_ids_for(user, "read"))  # type: ignore[arg-type]


def requester_binding(user: Requester, within: Iterable[int] | None = None) -> row_security.RowScope:
    """What a job run for `user` outside a request (their answer, in the worker) reads: their vaults now, or those
    of them `within` the vaults the job was asked for."""
    readable = _readable(user)
    if within is not None:
        asked = set(within)
        readable = tuple(v for v in readable if v in asked)
    return row_security.vaults(readable)


def request_binding(request: HttpRequest) -> row_security.RowScope:
    user = request.user
    if request.path.startswith(ADMIN_PREFIX) and getattr(user, "is_staff", False) and user.is_active:
        return row_security.system("staff observe through the admin")
    return row_security.for_requester(lambda: request.user, _readable)


class RowScopeMiddleware:
    """Binds each request to its requester until the response is finished (streamed bodies included)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        row_security.bind(request_binding(request))
        return self.get_response(request)


def _unbind(**_: Any) -> None:
    row_security.bind(None)


def install() -> None:
    # A request starts and ends with no binding of its own: nothing of one request reaches the next.
    request_started.connect(_unbind, dispatch_uid="row_scope_request_started")
    request_finished.connect(_unbind, dispatch_uid="row_scope_request_finished")
