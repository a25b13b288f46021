"""Tests: their own data directory (own embedded PostgreSQL and Redis), apart from `make run`'s."""

import os
from pathlib import Path

os.environ.setdefault("DESIREPATH_DATA_DIR", str(Path(__file__).resolve().parents[2] / ".data-test"))
os.environ.setdefault("DESIREPATH_TASK_QUEUE", "desirepath-test")

from .base import *  # noqa: F403

SECRET_KEY = "test-only-not-secret"  # noqa: S105
DEBUG = False
ALLOWED_HOSTS = ["*"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Most chat tests answer inside the test (the same `chat_run`, with their scripted model server); the tests that
# start a real Celery worker turn this on and exercise the production path (API waits, page streams from Redis).
CHAT_ANSWERS_IN_WORKER = False
