"""What accounts does when Django saves an account (connected in `AccountsConfig.ready`)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from apps.accounts.hooks import user_created


def user_saved(sender: type[User], instance: User, created: bool, raw: bool = False, **kwargs: Any) -> None:
    """A new account, whatever made it (a service, the admin, single sign-on, `createsuperuser`, `create_user`),
    fires `user_created` inside the transaction that saved it. Fixtures being loaded (`raw`) carry their own rows."""
    if created and not raw:
        user_created(user=instance)
