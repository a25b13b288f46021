"""Response rules every page and API answer follows."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

import structlog
from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import render

from apps.core.exceptions import Conflict, messages_of
from apps.core.http import client_ip


class HeadWithoutBody:
    """A HEAD response carries the headers of the GET and no body. gunicorn sends whatever the application
    returns, and a body after a HEAD answer desynchronises keep-alive clients (the body is read as the next
    response)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if request.method != "HEAD":
            return response
        if isinstance(response, StreamingHttpResponse):
            response.streaming_content = []
        elif not response.streaming:
            content = getattr(response, "content", b"")
            if content and not response.has_header("Content-Length"):
                response["Content-Length"] = str(len(content))
            response.content = b""  # type: ignore[attr-defined]
        return response


class ConflictPage:
    """A page whose change is refused by the state of its object (an archived vault) answers 409 with the reason
    and a way back, rather than an error page: the API answers the same refusal through its exception handler."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponseBase | None:
        if not isinstance(exception, Conflict):
            return None
        return render(request, "refused.html", {"reason": messages_of(exception), "back": exception.back}, status=409)


# What a request id may look like when a proxy or client sends one: anything else is replaced, so a log line never
# carries someone's arbitrary text under the name of an id.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


class RequestId:
    """Settles the request's id before django-structlog (placed after this) binds it to every log line and to the
    tasks the request queues: the incoming X-Request-ID when it looks like one, else a new one. The response
    carries it back in X-Request-ID. Binds the client's address too, as far as the trusted proxies allow."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        request_id = str(request.META.get("HTTP_X_REQUEST_ID", ""))
        if not REQUEST_ID.fullmatch(request_id):
            request_id = request.META["HTTP_X_REQUEST_ID"] = str(uuid.uuid4())
        structlog.contextvars.bind_contextvars(ip=client_ip(request))
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response
