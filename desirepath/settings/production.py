"""Production: every secret and server from the environment, no defaults, nothing embedded, HTTPS only."""

import math
import os
import tempfile
import zlib
from collections import Counter
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from desirepath.observability import logging_settings, metrics_directory_use

from .base import *  # noqa: F403
from .base import BASE_DIR, METRICS_TOKEN, OIDC_ENABLED, OIDC_ISSUER, env_bool

_required = ("DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL")  # lower case: not a setting
if _missing := [name for name in _required if not os.environ.get(name)]:
    # Checked before anything connects: production starts no database or broker of its own.
    raise ImproperlyConfigured(f"{__name__} needs {', '.join(_missing)} set in the environment")


def _secret_is_weak(secret: str) -> bool:
    """Short, made of few characters (length × Shannon entropy of its characters under 128 bits), repetitive
    (zlib squeezes it below what 50 random characters never go under), or Django's own insecure placeholder."""
    bits = -sum(n * math.log2(n / len(secret)) for n in Counter(secret).values()) if secret else 0.0
    squeezed = len(zlib.compress(secret.encode("utf-8", errors="replace"), 9))
    return len(secret) < 50 or bits < 128 or squeezed < 44 or secret.startswith("django-insecure-")


SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
# The key signs sessions, password-reset links and CSRF tokens: a guessable one hands out every account.
if _secret_is_weak(SECRET_KEY):
    raise ImproperlyConfigured(
        f"{__name__} refuses a weak DJANGO_SECRET_KEY: use 50 or more random characters "
        "(python -c 'import secrets; print(secrets.token_urlsafe(50))')"
    )
DEBUG = False
ALLOWED_HOSTS = os.environ["DJANGO_ALLOWED_HOSTS"].split(",")
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

# HTTPS only. Behind a proxy that ends TLS, the proxy says so in X-Forwarded-Proto (DJANGO_SECURE_PROXY_SSL_HEADER=1,
# only when that proxy sets the header itself); without it every request would look like plain HTTP and redirect.
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
if env_bool("DJANGO_SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", True)
SESSION_COOKIE_SECURE = True
# The client secret goes to the provider, and its keys and ID tokens come back: never over plain HTTP.
if OIDC_ENABLED and not OIDC_ISSUER.startswith("https://"):
    raise ImproperlyConfigured(f"{__name__} needs DESIREPATH_OIDC_ISSUER to be an https:// address")
CSRF_COOKIE_SECURE = True

SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]  # health checks and scrapes come from inside, over plain HTTP

# JSON lines for a log collector unless DESIREPATH_LOG_JSON=0.
LOG_JSON = env_bool("DESIREPATH_LOG_JSON", True)
LOGGING = logging_settings(json_lines=LOG_JSON, level=os.environ.get("DESIREPATH_LOG_LEVEL", "INFO"))
# The metrics token opens /metrics to anyone who has it: a guessable one is refused like a weak secret key.
if METRICS_TOKEN and len(METRICS_TOKEN) < 32:
    raise ImproperlyConfigured(f"{__name__} refuses a DESIREPATH_METRICS_TOKEN under 32 characters")
# Production keeps nothing in the data directory: by default the machine's temporary directory, which a web
# process and workers on one machine share; containers share a volume instead (docker/compose.yml).
METRICS_DIR = Path(os.environ.get("DESIREPATH_METRICS_DIR") or Path(tempfile.gettempdir()) / "desirepath-metrics")
metrics_directory_use(METRICS_DIR)  # after every refusal: a process refused writes nothing

# Collected when the code is built and shipped with it (the image), not kept in the data volume.
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
