"""The password change page of a signed-in person: Django's own view and form (the old password, the new one twice,
the configured validators), which keeps this browser signed in. The change revokes every API token of the account
(`passwords.RevokeTokensOnPasswordChange`) and ends its other sessions.

A wrong current password counts as a failed sign-in of the account from this address (django-axes), so a session
left open cannot be used to guess the password without limit: at the limit the page refuses to check it, and the
account's sign-in from this address is locked as after any other run of failures."""

from __future__ import annotations

from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib.auth.forms import PasswordChangeForm
from django.contrib.auth.password_validation import password_validators_help_texts
from django.contrib.auth.signals import user_login_failed
from django.contrib.auth.views import PasswordChangeDoneView, PasswordChangeView
from django.http import HttpRequest, HttpResponse
from django.urls import reverse_lazy

from apps.accounts.lockout import password_lockout_message, retry_after
from apps.core.auth import actor


def _credentials(request: HttpRequest) -> dict[str, str]:
    return {"username": actor(request).get_username()}


class PasswordChangePage(PasswordChangeView):
    template_name = "password_change.html"
    success_url = reverse_lazy("password-change-done")

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {
            **super().get_context_data(**kwargs),
            # An account single sign-on made has no password here: the page says so instead of asking for it.
            "has_password": actor(self.request).has_usable_password(),
            "sso_provider": settings.OIDC_PROVIDER_NAME,
            "password_rules": [rule for rule in password_validators_help_texts() if rule],  # as configured
        }

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # Locked out, the current password is not even checked, as on the sign-in form.
        if not AxesProxyHandler.is_allowed(request, _credentials(request)):
            return self.locked_out()
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: PasswordChangeForm) -> HttpResponse:
        if form.has_error("old_password", code="password_incorrect"):
            user_login_failed.send(sender=__name__, credentials=_credentials(self.request), request=self.request)
            if getattr(self.request, "axes_locked_out", False):
                return self.locked_out()
        return super().form_invalid(form)

    def locked_out(self) -> HttpResponse:
        """The page again, empty, saying the account is locked (429, as a locked sign-in is answered)."""
        context = self.get_context_data(form=self.get_form_class()(user=self.request.user))
        response = self.render_to_response({**context, "lockout": password_lockout_message()}, status=429)
        response["Retry-After"] = retry_after()
        return response


class PasswordChangedPage(PasswordChangeDoneView):
    template_name = "password_change_done.html"
