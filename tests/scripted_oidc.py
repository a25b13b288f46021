"""A scripted OpenID Connect provider on 127.0.0.1: real HTTP for the real client (discovery document, JWKS with an
RSA key made here, an authorization endpoint that sends the browser straight back with a code, a token endpoint
that checks the client and PKCE and answers with a signed ID token, userinfo). No internet."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

KEY_ID = "scripted-key-1"


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass
class Provider:
    """Who the next sign-in is: `claims` go into the ID token (with iss, aud, exp, iat, nonce added) and
    `userinfo` into the userinfo answer (with the same sub). `tamper` spoils the next ID tokens: "signature"
    (signed by a key the JWKS does not hold, under the same key id), "audience" (issued for another client) or
    "expired" (its lifetime ended an hour ago)."""

    claims: dict[str, Any] = field(default_factory=dict)
    userinfo: dict[str, Any] = field(default_factory=dict)
    tamper: str = ""
    deny: bool = False  # the person declines at the provider: it sends the browser back with error=access_denied
    client_id: str = "desirepath-test"
    client_secret: str = "scripted-client-secret"
    issuer: str = ""
    key: rsa.RSAPrivateKey = field(default_factory=new_key)
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    token_requests: list[dict[str, str]] = field(default_factory=list)

    def sign_in_as(self, sub: str, **claims: Any) -> None:
        self.claims = {"sub": sub, **claims}

    def jwks(self) -> dict[str, Any]:
        public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        return {"keys": [{**public, "kid": KEY_ID, "alg": "RS256", "use": "sig"}]}

    def id_token(self, nonce: str) -> str:
        now = int(time.time())
        payload = {"iss": self.issuer, "aud": self.client_id, "iat": now, "exp": now + 300, "nonce": nonce}
        payload.update(self.claims)
        key = self.key
        if self.tamper == "signature":
            key = new_key()
        elif self.tamper == "audience":
            payload["aud"] = "another-application"
        elif self.tamper == "expired":
            payload.update(iat=now - 7200, exp=now - 3600)
        return jwt.encode(payload, key, algorithm="RS256", headers={"kid": KEY_ID})


def _pkce_matches(verifier: str, challenge: str) -> bool:
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode()
    return secrets.compare_digest(digest, challenge)


def _handler(provider: Provider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/.well-known/openid-configuration":
                return self._send(
                    200,
                    {
                        "issuer": provider.issuer,
                        "authorization_endpoint": f"{provider.issuer}/authorize",
                        "token_endpoint": f"{provider.issuer}/token",
                        "userinfo_endpoint": f"{provider.issuer}/userinfo",
                        "jwks_uri": f"{provider.issuer}/jwks",
                        "response_types_supported": ["code"],
                        "subject_types_supported": ["public"],
                        "id_token_signing_alg_values_supported": ["RS256"],
                        "code_challenge_methods_supported": ["S256"],
                    },
                )
            if url.path == "/jwks":
                return self._send(200, provider.jwks())
            if url.path == "/authorize":
                if query.get("client_id") != provider.client_id or query.get("code_challenge_method") != "S256":
                    return self._send(400, {"error": "invalid_request"})
                if provider.deny:
                    self.send_response(302)
                    self.send_header("Location", f"{query['redirect_uri']}?error=access_denied&state={query['state']}")
                    self.end_headers()
                    return None
                code = secrets.token_urlsafe(16)
                provider.codes[code] = {
                    "nonce": query["nonce"],
                    "redirect_uri": query["redirect_uri"],
                    "challenge": query["code_challenge"],
                }
                back = urlencode({"code": code, "state": query["state"]})
                self.send_response(302)
                self.send_header("Location", f"{query['redirect_uri']}?{back}")
                self.end_headers()
                return None
            if url.path == "/userinfo":
                if self.headers.get("Authorization") != "Bearer scripted-access-token":
                    return self._send(401, {"error": "invalid_token"})
                return self._send(200, {"sub": provider.claims.get("sub"), **provider.userinfo})
            return self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            if self.path != "/token":
                return self._send(404, {"error": "not found"})
            form = {k: v[0] for k, v in parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode()).items()}
            provider.token_requests.append(form)
            grant = provider.codes.pop(form.get("code", ""), None)
            if (form.get("client_id"), form.get("client_secret")) != (provider.client_id, provider.client_secret):
                return self._send(401, {"error": "invalid_client"})
            if (
                grant is None
                or form.get("grant_type") != "authorization_code"
                or form.get("redirect_uri") != grant["redirect_uri"]
                or not _pkce_matches(form.get("code_verifier", ""), grant["challenge"])
            ):
                return self._send(400, {"error": "invalid_grant"})
            return self._send(
                200,
                {
                    "access_token": "scripted-access-token",
                    "token_type": "Bearer",
                    "expires_in": 300,
                    "id_token": provider.id_token(grant["nonce"]),
                },
            )

        def _send(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler


@contextmanager
def scripted_provider(provider: Provider | None = None) -> Iterator[Provider]:
    provider = provider or Provider()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(provider))
    provider.issuer = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
