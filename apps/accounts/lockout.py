"""What a locked-out sign-in gets: a 429 that says why and for how long, as JSON on the API and as the sign-in page
elsewhere (the form, the admin's form). The password change page counts wrong current passwords too and says so on
its own form."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse

from apps.accounts.signin import sign_in_options


def _cool_off() -> str:
    minutes = max(1, math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def retry_after() -> str:
    """Seconds until a lock made now ends, for the Retry-After header."""
    return str(math.ceil(settings.AXES_COOLOFF_TIME.total_seconds()))


def lockout_message() -> str:
    return f"Too many failed sign-ins for this account from this address: signing in is locked for {_cool_off()}."


def password_lockout_message() -> str:
    return (
        "Too many wrong passwords for this account from this address: changing the password, and signing in, "
        f"are locked for {_cool_off()}."
    )


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": lockout_message()}, status=429)
    elif original_response is not None and original_response.status_code == 429:
        # A signed-in page that checks the password (the password change) already says so on its own form.
        response = original_response
    else:
        context = {**sign_in_options(), "lockout": lockout_message()}
        response = TemplateResponse(request, "login.html", context, status=429)
        response.render()
    response["Retry-After"] = retry_after()
    return response
