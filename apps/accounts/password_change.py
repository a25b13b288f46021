"""The password change page of a signed-in person: Django's own view and form (the old password, the new one twice,
the configured validators), which keeps this browser signed in. The change revokes every API token of the account
(`passwords.RevokeTokensOnPasswordChange`) and ends its other sessions."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.password_validation import password_validators_help_texts
from django.contrib.auth.views import PasswordChangeDoneView, PasswordChangeView
from django.urls import reverse_lazy

from apps.core.auth import actor


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


class PasswordChangedPage(PasswordChangeDoneView):
    template_name = "password_change_done.html"
