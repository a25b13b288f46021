"""The sign-in pages: the password form (unless local login is off), the single sign-on button and the two ends of
its round trip to the provider, and the admin's own sign-in, which follows the same switch."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.views import LoginView, redirect_to_login
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.views import View
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from apps.accounts.oidc import oidc_setting
from apps.accounts.sso import SignInRefused

PASSWORDS_OFF = "Signing in with a password is turned off here: sign in with {provider}."


def sign_in_options() -> dict[str, Any]:
    """What the sign-in page offers: the password form, the single sign-on button, or both."""
    return {
        "passwords_off": not settings.LOCAL_LOGIN,
        "sso_enabled": settings.OIDC_ENABLED,
        "sso_provider": settings.OIDC_PROVIDER_NAME,
    }


def sign_in_refused(request: HttpRequest, message: str, *, status: int = 403) -> HttpResponse:
    """The sign-in page again, saying why this sign-in did not happen."""
    context = {**sign_in_options(), "sso_error": message, "next": ""}
    response = TemplateResponse(request, "login.html", context, status=status)
    response.render()
    return response


class LoginPage(LoginView):
    template_name = "login.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), **sign_in_options()}

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.LOCAL_LOGIN:
            return sign_in_refused(request, PASSWORDS_OFF.format(provider=settings.OIDC_PROVIDER_NAME))
        return super().post(request, *args, **kwargs)


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's password form, or with local login off the site's sign-in page, coming back to the admin."""
    if settings.LOCAL_LOGIN:
        return admin.site.login(request)
    return redirect_to_login(request.GET.get("next") or "/admin/", settings.LOGIN_URL)


class SsoStart(OIDCAuthenticationRequestView):
    """Sends the browser to the provider with a fresh state, nonce and PKCE challenge kept in its session."""

    get_settings = staticmethod(oidc_setting)

    def __init__(self, **kwargs: Any) -> None:
        View.__init__(self, **kwargs)  # the provider's endpoint is looked up when a sign-in starts, in get

    def get(self, request: HttpRequest) -> HttpResponse:
        if not settings.OIDC_ENABLED:
            raise Http404("Single sign-on is not configured here.")
        try:
            self.OIDC_OP_AUTH_ENDPOINT = oidc_setting("OIDC_OP_AUTHORIZATION_ENDPOINT")
        except SignInRefused as exc:
            return sign_in_refused(request, str(exc), status=503)
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        return super().get(request)


class SsoCallback(OIDCAuthenticationCallbackView):
    """Where the provider sends the browser back: the code is exchanged and its ID token checked (OidcBackend); a
    sign-in that fails shows the sign-in page saying why, and leaves the browser signed out."""

    get_settings = staticmethod(oidc_setting)

    def get(self, request: HttpRequest) -> HttpResponse:
        if not settings.OIDC_ENABLED:
            raise Http404("Single sign-on is not configured here.")
        if request.GET.get("error"):
            super().get(request)  # forgets the state and signs out, as the library does
            # Only the error's code, and only if it looks like one: a crafted link could put any sentence here.
            code = request.GET["error"] if re.fullmatch(r"[a-z_]{1,64}", request.GET["error"]) else "an error"
            return sign_in_refused(request, f"The sign-in provider did not sign you in ({code}).")
        try:
            return super().get(request)
        except SignInRefused as exc:
            return sign_in_refused(request, str(exc))
        except SuspiciousOperation:  # a state this browser's session never held, or held once already
            return sign_in_refused(
                request, "This sign-in was not started in this browser, or was already used: start again.", status=400
            )

    def login_failure(self) -> HttpResponse:
        return sign_in_refused(self.request, "Single sign-on did not sign you in: start again.")
