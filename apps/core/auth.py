from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest

# Whoever a read is for: permission helpers and selectors answer an anonymous visitor with nothing rather than fail.
Requester = User | AnonymousUser


def actor(request: HttpRequest) -> User:
    """The authenticated user of a request (API views require authentication by default; pages by login_required)."""
    user = request.user
    assert isinstance(user, User) and user.is_authenticated
    return user


@dataclass(frozen=True)
class TokenLimits:
    """What an API token narrows its user to for one request: the vault policy intersects every role with it, so
    no read path has to remember a token's scope."""

    read_only: bool
    vault_ids: frozenset[int] | None  # None: every vault the user may read
    expires_at: datetime

    def narrow(self, read_only: bool, vault_ids: list[int] | None) -> tuple[bool, list[int] | None]:
        """A token made by this one is at most as broad as this one."""
        if self.vault_ids is None:
            return read_only or self.read_only, vault_ids
        narrowed = sorted(self.vault_ids if vault_ids is None else self.vault_ids & set(vault_ids))
        return read_only or self.read_only, narrowed


def token_limits(user: object) -> TokenLimits | None:
    """The limits of the token a request authenticated with; None for a session or an unlimited token."""
    limits = getattr(user, "token_limits", None)
    return limits if isinstance(limits, TokenLimits) else None


def token_limits_attach(user: User, limits: TokenLimits) -> None:
    # On the user object itself: every selector and service already receives it, so the limits travel with it.
    user.token_limits = limits  # type: ignore[attr-defined]
