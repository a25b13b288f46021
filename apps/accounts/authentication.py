"""How an API request proves whose it is: `Authorization: Token <key>` (or `Bearer <key>`) with a live API token."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request

from apps.accounts.models import ApiToken
from apps.accounts.tokens import token_authenticate
from apps.core.auth import TokenLimits, token_limits_attach

KEYWORDS = (b"token", b"bearer")
# Asking in chat feels like reading, so the refusal says why it is refused too.
READ_ONLY_REFUSAL = (
    "this token is read-only: a read-only token may search and read; asking stores a conversation, so it is "
    "refused like any write"
)


def token_user(request: Request) -> tuple[User, ApiToken] | None:
    """The user of the live token a request presents, with the token's limits attached (the vault policy applies
    them); None when it presents none; AuthenticationFailed for a malformed, unknown, expired or revoked one."""
    parts = get_authorization_header(request).split()
    if not parts or parts[0].lower() not in KEYWORDS:
        return None
    if len(parts) != 2:
        raise exceptions.AuthenticationFailed("the Authorization header takes one key: Token <key>")
    try:
        key = parts[1].decode("ascii")
    except UnicodeDecodeError as exc:
        raise exceptions.AuthenticationFailed("that token is not valid") from exc
    token = token_authenticate(key)
    if token is None:
        raise exceptions.AuthenticationFailed("that token is unknown, expired or revoked")
    vaults = None if token.vault_ids is None else frozenset(token.vault_ids)
    user = token.user
    token_limits_attach(user, TokenLimits(read_only=token.read_only, vault_ids=vaults, expires_at=token.expires_at))
    return user, token


class ApiTokenAuthentication(BaseAuthentication):
    """A live token authenticates its user with the token's limits attached (the vault policy applies them). A
    read-only token authenticates safe methods only: refusing here covers every view, whatever its permissions."""

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        found = token_user(request)
        if found is not None and found[1].read_only and request.method not in SAFE_METHODS:
            raise exceptions.PermissionDenied(READ_ONLY_REFUSAL)
        return found

    def authenticate_header(self, request: Request) -> str:
        return "Token"


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "apps.accounts.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": 'An API token from /tokens/ or /api/tokens/, sent as "Token <key>" (or "Bearer <key>").',
        }
