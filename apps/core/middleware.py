"""Response rules every page and API answer follows."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import render

from apps.core.exceptions import Conflict, messages_of


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
