"""What follows a password change."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User


class RevokeTokensOnPasswordChange:
    """Listed with the password validators because Django tells each of them when a password changed (the admin,
    `changepassword`, any `set_password` then `save`): a changed password ends every API token of its account, as
    it ends the account's other sessions. It never refuses a password."""

    def validate(self, password: str, user: User | None = None) -> None:
        return None

    def password_changed(self, password: str, user: Any = None) -> None:
        from apps.accounts.tokens import tokens_revoke_all  # settings load validators before the apps are ready

        if user is not None and user.pk is not None:
            tokens_revoke_all(user=user, reason="password changed")

    def get_help_text(self) -> str:
        return ""
