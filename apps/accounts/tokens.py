"""API tokens: made with a key shown once, kept as a hash, found by the hash of what a client presents, revoked by
their owner, by an administrator or by a password change. Every create and revoke is in the audit log."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone

from apps.accounts.hooks import token_vault_choices
from apps.accounts.models import ApiToken
from apps.audit.services import audit_record
from apps.core.auth import token_limits
from apps.core.validation import validate_text

KEY_PREFIX = "dp_"
VISIBLE_CHARS = 8  # of the random part, after KEY_PREFIX: enough to tell tokens apart, far too few to guess the rest
LAST_USED_PRECISION = timedelta(minutes=1)  # a busy client does not write its token's row on every request


def key_hash(key: str) -> str:
    # The key carries 256 random bits: a fast hash is as strong as a slow one here, and lookups stay one index hit.
    return hashlib.sha256(key.encode("utf-8", errors="surrogatepass")).hexdigest()


@dataclass(frozen=True)
class NewToken:
    token: ApiToken
    key: str  # the only time the key exists outside its owner's hands


def token_list(*, user: User) -> QuerySet[ApiToken]:
    """A person's tokens, live ones first, newest first (revoked and expired ones stay listed, marked)."""
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at", "-id")


def token_get(*, user: User, token_id: object) -> ApiToken:
    try:
        return token_list(user=user).get(pk=int(str(token_id)))
    except (ApiToken.DoesNotExist, ValueError) as exc:
        raise Http404("No token matches the given query.") from exc


def vault_choices(*, user: User) -> list[tuple[int, str]]:
    """The vaults a token of `user` may be limited to (what the vault layer says they read)."""
    return [choice for choices in token_vault_choices(user=user) for choice in choices]


def _checked_vaults(user: User, vault_ids: list[int] | None) -> list[int] | None:
    if vault_ids is None:
        return None
    if not vault_ids:
        raise ValidationError({"vaults": ["name at least one vault, or leave the field out for every vault"]})
    readable = {vault_id for vault_id, _ in vault_choices(user=user)}
    if not set(vault_ids) <= readable:
        raise Http404("No vault matches the given query.")
    return sorted(set(vault_ids))


@transaction.atomic
def token_create(
    *,
    user: User,
    name: str,
    read_only: bool = False,
    vault_ids: list[int] | None = None,
    expires_in_days: int | None = None,
) -> NewToken:
    """A new token of `user`, its key returned this once. A token made with a token is at most as broad as that
    one (read-only stays read-only, vault limits stay), and expires no later."""
    name = validate_text(name, field="name", limit=100, empty="a token needs a name")
    days = settings.API_TOKEN_DAYS if expires_in_days is None else expires_in_days
    if not 1 <= days <= settings.API_TOKEN_MAX_DAYS:
        raise ValidationError({"expires_in_days": [f"a token lives 1 to {settings.API_TOKEN_MAX_DAYS} days"]})
    vault_ids = _checked_vaults(user, vault_ids)
    expires_at = timezone.now() + timedelta(days=days)
    if (limits := token_limits(user)) is not None:
        read_only, vault_ids = limits.narrow(read_only, vault_ids)
        expires_at = min(expires_at, limits.expires_at)
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=key[: len(KEY_PREFIX) + VISIBLE_CHARS],
        key_hash=key_hash(key),
        read_only=read_only,
        vault_ids=vault_ids,
        expires_at=expires_at,
    )
    audit_record(
        actor=user,
        action="token.create",
        object_type="api_token",
        object_id=token.pk,
        vault_id=None,
        changes={
            "name": token.name,
            "prefix": token.prefix,
            "read_only": read_only,
            "vaults": vault_ids,
            "expires_at": expires_at.isoformat(),
        },
    )
    return NewToken(token=token, key=key)


@transaction.atomic
def token_revoke(*, actor: User | None, token: ApiToken, reason: str = "revoked") -> None:
    """Revoke one token (its owner or an administrator); revoking a revoked token changes nothing."""
    if actor is not None and actor.pk != token.user_id and not actor.is_superuser:
        raise Http404("No token matches the given query.")
    revoked = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())
    if revoked:
        token.refresh_from_db(fields=["revoked_at"])
        audit_record(
            actor=actor,
            action="token.revoke",
            object_type="api_token",
            object_id=token.pk,
            vault_id=None,
            changes={"name": token.name, "prefix": token.prefix, "user": token.user_id, "reason": reason},
        )


@transaction.atomic
def tokens_revoke_all(*, user: User, reason: str) -> int:
    """Revoke every live token of `user` (their password changed)."""
    live = list(ApiToken.objects.select_for_update().filter(user=user, revoked_at__isnull=True))
    for token in live:
        token_revoke(actor=None, token=token, reason=reason)
    return len(live)


def token_authenticate(key: str) -> ApiToken | None:
    """The live token whose key this is (with its user), or None: unknown, revoked, expired or of an inactive
    account alike. Records when it was last used, at most once a minute."""
    now = timezone.now()
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=key_hash(key), revoked_at__isnull=True, expires_at__gt=now, user__is_active=True)
        .first()
    )
    if token is not None and (token.last_used_at is None or now - token.last_used_at > LAST_USED_PRECISION):
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
