"""Password sign-in, which a site that signs people in with single sign-on only can turn off."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.http import HttpRequest


class PasswordBackend(ModelBackend):
    """Django's username-and-password check, answering nothing while DESIREPATH_LOCAL_LOGIN is off: whichever form
    or endpoint a password reaches, it signs nobody in. Permissions are Django's as before."""

    def authenticate(  # type: ignore[override]  # ModelBackend's own signature, which its stubs flag too
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        if not settings.LOCAL_LOGIN:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)
