"""Single sign-on over OpenID Connect with mozilla-django-oidc: the provider's endpoints from its discovery document,
the ID token's checks the library leaves out (audience, issuer, a clear refusal for each failure), and the backend
that hands a verified sign-in to the account services (sso.py)."""

from __future__ import annotations

import logging
from typing import Any

import jwt
import requests
from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import User
from django.core.cache import cache
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import import_from_settings

from apps.accounts.sso import SignInRefused, sso_sign_in

logger = logging.getLogger(__name__)

DISCOVERY_PATH = "/.well-known/openid-configuration"
# mozilla-django-oidc reads the provider's endpoints as settings; here they are the discovery document's.
ENDPOINTS = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}
UNREACHABLE = "The sign-in provider cannot be reached right now; try again in a moment, or ask an administrator."


def refused(reason: str, user_message: str) -> SignInRefused:
    """A refusal: the technical reason goes to the log, the person's message to the page."""
    logger.warning("single sign-on refused: %s", reason)
    return SignInRefused(user_message)


def provider_metadata() -> dict[str, Any]:
    """The issuer's discovery document, fetched on first use and kept for DESIREPATH_OIDC_DISCOVERY_SECONDS.

    Fetched lazily rather than at start-up: a provider that is down then stops its sign-ins only, not every web
    process's start and every `manage.py` command. Signing keys are fetched at each sign-in (the library does),
    so a rotated key is used at once."""
    key = f"oidc-discovery:{settings.OIDC_ISSUER}"
    document = cache.get(key)
    if document is None:
        document = _discover(settings.OIDC_ISSUER)
        cache.set(key, document, settings.OIDC_DISCOVERY_SECONDS)
    return dict(document)


def _discover(issuer: str) -> dict[str, Any]:
    url = issuer.rstrip("/") + DISCOVERY_PATH
    try:
        response = requests.get(url, timeout=settings.OIDC_TIMEOUT)
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise refused(f"discovery document {url}: {exc}", UNREACHABLE) from exc
    if not isinstance(document, dict) or document.get("issuer") != issuer:
        named = document.get("issuer") if isinstance(document, dict) else None
        raise refused(
            f"discovery document {url} names issuer {named!r}, not {issuer!r}",
            "The sign-in provider is not the one this site is configured for; ask an administrator.",
        )
    needed = ("authorization_endpoint", "token_endpoint", "jwks_uri")  # userinfo is optional
    if missing := [name for name in needed if not document.get(name)]:
        raise refused(f"discovery document {url} lacks {', '.join(missing)}", UNREACHABLE)
    return document


def oidc_setting(attr: str, *default: Any) -> Any:
    """A setting as mozilla-django-oidc asks for it, its endpoints taken from the discovery document."""
    if attr in ENDPOINTS:
        return provider_metadata().get(ENDPOINTS[attr])
    return import_from_settings(attr, *default)


class OidcBackend(OIDCAuthenticationBackend):
    """Signs in whoever the provider vouches for with an ID token that verifies: signed by one of the provider's
    keys, issued by the configured issuer for this client, not expired, carrying the nonce this browser was given.
    The account is then found, linked or made by `sso_sign_in`."""

    get_settings = staticmethod(oidc_setting)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Django makes a backend to load the user of every signed-in request: the provider is asked nothing then.
        self.UserModel = User

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> AbstractBaseUser | None:
        # Only the callback view passes a nonce: a password form that carries ?code=&state= never reaches here.
        if not settings.OIDC_ENABLED or request is None or "nonce" not in kwargs:
            return None
        self.OIDC_OP_TOKEN_ENDPOINT = oidc_setting("OIDC_OP_TOKEN_ENDPOINT")
        self.OIDC_OP_USER_ENDPOINT = oidc_setting("OIDC_OP_USER_ENDPOINT")
        self.OIDC_OP_JWKS_ENDPOINT = oidc_setting("OIDC_OP_JWKS_ENDPOINT")
        self.OIDC_RP_CLIENT_ID = settings.OIDC_RP_CLIENT_ID
        self.OIDC_RP_CLIENT_SECRET = settings.OIDC_RP_CLIENT_SECRET
        self.OIDC_RP_SIGN_ALGO = settings.OIDC_RP_SIGN_ALGO
        self.OIDC_RP_IDP_SIGN_KEY = None
        try:
            return super().authenticate(request, **kwargs)
        except requests.RequestException as exc:
            raise refused(f"provider request failed: {exc}", UNREACHABLE) from exc

    def get_user(self, user_id: int) -> AbstractBaseUser | None:
        return ModelBackend.get_user(self, user_id)  # the library's would keep a deactivated account signed in

    def verify_token(self, token: str, **kwargs: Any) -> dict[str, Any]:
        if not token:
            raise refused("no id_token in the token response", "The sign-in provider sent no ID token.")
        try:
            payload: dict[str, Any] = super().verify_token(token, **kwargs)
        except SuspiciousOperation as exc:  # a nonce not this browser's, a key or algorithm not the provider's
            raise refused(str(exc), "The sign-in provider's ID token does not verify; start again.") from exc
        except (jwt.PyJWTError, KeyError) as exc:  # not a JWT, or a key or token without the key id it needs
            raise refused(f"unreadable ID token: {exc!r}", "The sign-in provider's ID token cannot be read.") from exc
        return payload

    def _verify_jws(self, payload: str, key: Any) -> dict[str, Any]:
        """The token's signature, issuer, audience and lifetime (the library checks the signature and lifetime
        only)."""
        algorithm = jwt.get_unverified_header(payload).get("alg")
        if algorithm != self.OIDC_RP_SIGN_ALGO:
            raise SuspiciousOperation(f"the ID token is signed with {algorithm!r}, not {self.OIDC_RP_SIGN_ALGO!r}")
        try:
            claims: dict[str, Any] = jwt.decode(
                payload,
                key,
                algorithms=[self.OIDC_RP_SIGN_ALGO],
                audience=self.OIDC_RP_CLIENT_ID,
                issuer=settings.OIDC_ISSUER,
                leeway=settings.OIDC_CLOCK_SKEW_SECONDS,
                options={"require": ["iss", "sub", "aud", "exp", "iat"]},
            )
        except jwt.ExpiredSignatureError as exc:
            raise refused(str(exc), "The sign-in had expired when it reached this site; start again.") from exc
        except jwt.InvalidAudienceError as exc:
            raise refused(str(exc), "The ID token was issued for another application, not this site.") from exc
        except jwt.InvalidIssuerError as exc:
            raise refused(str(exc), "The ID token was issued by another provider than this site's.") from exc
        except jwt.InvalidSignatureError as exc:
            raise refused(
                str(exc), "The ID token's signature does not verify: it was not signed by the provider."
            ) from exc
        except jwt.InvalidTokenError as exc:
            raise refused(str(exc), f"The sign-in provider's ID token is not valid ({exc}).") from exc
        audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        if len(audiences) > 1 and claims.get("azp") != self.OIDC_RP_CLIENT_ID:
            raise refused(f"azp {claims.get('azp')!r} with audiences {audiences}", "The ID token is not for this site.")
        return claims

    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> User:
        # The ID token's own claims win; the userinfo endpoint fills in what it left out (groups, often).
        claims = {**self._userinfo(access_token, id_token, payload), **payload}
        return sso_sign_in(issuer=settings.OIDC_ISSUER, claims=claims)

    def _userinfo(self, access_token: str, id_token: str, payload: dict[str, Any]) -> dict[str, Any]:
        if not self.OIDC_OP_USER_ENDPOINT or not access_token:
            return {}
        info = self.get_userinfo(access_token, id_token, payload)
        if not isinstance(info, dict) or info.get("sub") != payload.get("sub"):
            raise refused(
                "userinfo names another subject than the ID token", "The sign-in provider's answers disagree."
            )
        return info
