"""Production: every secret and server from the environment, no defaults, nothing embedded."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import BASE_DIR

_required = ("DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL")  # lower case: not a setting
if _missing := [name for name in _required if not os.environ.get(name)]:
    # Checked before anything connects: production starts no database or broker of its own.
    raise ImproperlyConfigured(f"{__name__} needs {', '.join(_missing)} set in the environment")

SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = os.environ["DJANGO_ALLOWED_HOSTS"].split(",")
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
# Collected when the code is built and shipped with it (the image), not kept in the data volume.
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
