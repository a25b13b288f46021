"""What a locked-out sign-in gets: a 429 that says why and for how long, as JSON on the API and as the sign-in page
elsewhere (the form, the admin's form)."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse

from apps.accounts.signin import sign_in_options


def lockout_message() -> str:
    minutes = max(1, math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    return (
        "Too many failed sign-ins for this account from this address: "
        f"signing in is locked for {minutes} minute{'s' if minutes != 1 else ''}."
    )


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    retry_after = str(math.ceil(settings.AXES_COOLOFF_TIME.total_seconds()))
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": lockout_message()}, status=429)
    else:
        context = {**sign_in_options(), "lockout": lockout_message()}
        response = TemplateResponse(request, "login.html", context, status=429)
        response.render()
    response["Retry-After"] = retry_after
    return response
