"""One place where service errors become HTTP errors."""

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler


class Conflict(DjangoValidationError):
    """A change refused because of the state of what it would change, not because of the request (HTTP 409): the
    same request succeeds once that state changes. `back`: (address, label) of the page a person returns to."""

    def __init__(self, message: str, *, back: tuple[str, str] | None = None) -> None:
        super().__init__(message)
        self.back = back


def sentence(message: str) -> str:
    """A message as a person reads it on a page: capital first letter, closing full stop. Services word their
    messages for the API, where many start in lower case."""
    message = message.strip()
    if not message:
        return message
    message = message[0].upper() + message[1:]
    return message if message[-1] in ".!?" else f"{message}."


def messages_of(exc: DjangoValidationError) -> str:
    """A validation error as sentences for a web page."""
    return " ".join(sentence(message) for message in exc.messages)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Conflict):
        return Response({"detail": messages_of(exc)}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"detail": exc.messages}
        return Response(detail, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    return exception_handler(exc, context)
