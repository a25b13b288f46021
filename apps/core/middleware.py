"""Response rules every page and API answer follows."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase, StreamingHttpResponse


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
