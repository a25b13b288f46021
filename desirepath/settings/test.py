"""Tests: their own data directory (own embedded PostgreSQL and Redis), apart from `make run`'s."""

import os
from pathlib import Path

os.environ.setdefault("DESIREPATH_DATA_DIR", str(Path(__file__).resolve().parents[2] / ".data-test"))
# Under pytest-xdist every test process (gw0, gw1, ...) has its own queues and Redis database: a Celery worker one
# process starts never takes another's tasks, and answer streams keyed by conversation id never cross. The
# processes a test starts inherit the environment and so land on the same ones.
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
_queue = os.environ.get("DESIREPATH_TASK_QUEUE", "desirepath-test")
if XDIST_WORKER and not _queue.endswith(f"-{XDIST_WORKER}"):
    _queue = f"{_queue}-{XDIST_WORKER}"
os.environ["DESIREPATH_TASK_QUEUE"] = _queue
# Metrics of this test process and the servers and workers it starts; apart from other test processes'.
os.environ.setdefault(
    "DESIREPATH_METRICS_DIR", str(Path(os.environ["DESIREPATH_DATA_DIR"]) / f"metrics-{XDIST_WORKER or 'main'}")
)

from desirepath import embedded  # noqa: E402
from desirepath.observability import metrics_directory_use  # noqa: E402

from .base import *  # noqa: E402, F403
from .base import (  # noqa: E402
    DATA_DIR,
    DATABASE_URL,
    DB_NAME,
    METRICS_DIR,
    REDIS_URL,
    STATIC_ROOT,
    database_settings,
    env_bool,
)

if not DATABASE_URL:
    DATABASES = {
        "default": database_settings(embedded.postgres_connection(DATA_DIR, DB_NAME)),
        "owner": database_settings(
            embedded.postgres_connection(DATA_DIR, DB_NAME, role=embedded.OWNER_ROLE), mirror=True
        ),
    }
    DATABASE_APPLICATION_ROLE = embedded.APP_ROLE
if not REDIS_URL:
    REDIS_URL = embedded.ensure_redis(DATA_DIR)
    if XDIST_WORKER:
        REDIS_URL = f"{REDIS_URL.rsplit('/', 1)[0]}/{1 + int(XDIST_WORKER.removeprefix('gw'))}"
    CELERY_BROKER_URL = REDIS_URL
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
metrics_directory_use(METRICS_DIR)

SECRET_KEY = "test-only-not-secret"  # noqa: S105
METRICS_TOKEN = os.environ.get("DESIREPATH_METRICS_TOKEN") or "test-metrics-token-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["*"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Most chat tests answer inside the test (the same `chat_run`, with their scripted model server); the tests that
# start a real Celery worker turn this on and exercise the production path (API waits, page streams from Redis), as
# does a web server a test starts in its own process with DESIREPATH_CHAT_ANSWERS_IN_WORKER=1.
CHAT_ANSWERS_IN_WORKER = env_bool("DESIREPATH_CHAT_ANSWERS_IN_WORKER", False)
