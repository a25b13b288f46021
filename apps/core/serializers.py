"""The error bodies every API shares, in the shapes `apps.core.exceptions.api_exception_handler` produces."""

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers


class ErrorOut(serializers.Serializer):
    detail = serializers.CharField(help_text="what went wrong, in a sentence")


# A validation error names each field it refuses (or `detail`, `non_field_errors`), with what is wrong with it.
_FIELD_ERRORS = {
    "type": "object",
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
    "description": "field → what is wrong with it",
}

ERRORS = {
    400: OpenApiResponse(_FIELD_ERRORS, description="The request was refused: each field with the reasons."),
    403: OpenApiResponse(ErrorOut, description="Your role does not allow this."),
    404: OpenApiResponse(ErrorOut, description="Missing, or not yours to see (the same answer)."),
    409: OpenApiResponse(ErrorOut, description="Refused by the state of what it would change (an archived vault)."),
    429: OpenApiResponse(ErrorOut, description="Too many attempts; wait and try again."),
}


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """The shared error responses of an operation, for `@extend_schema(responses={..., **errors(400, 404)})`."""
    return {code: ERRORS[code] for code in codes}
