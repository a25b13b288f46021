"""Local development and `make run`: embedded services unless URLs name others, a secret kept in the data directory."""

import os
import secrets

from desirepath import embedded
from desirepath.observability import metrics_directory_use

from .base import *  # noqa: F403
from .base import (
    DATA_DIR,
    DATABASE_URL,
    DB_NAME,
    METRICS_DIR,
    REDIS_URL,
    STATIC_ROOT,
    database_settings,
    env_bool,
)


def _local_secret() -> str:
    path = DATA_DIR / "secret_key"
    if not path.exists():
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


if not DATABASE_URL:
    DATABASES = {
        "default": database_settings(embedded.postgres_connection(DATA_DIR, DB_NAME)),
        "owner": database_settings(
            embedded.postgres_connection(DATA_DIR, DB_NAME, role=embedded.OWNER_ROLE), mirror=True
        ),
    }
    DATABASE_APPLICATION_ROLE = embedded.APP_ROLE
if not REDIS_URL:
    REDIS_URL = CELERY_BROKER_URL = embedded.ensure_redis(DATA_DIR)
# whitenoise warns at every start about a missing static root; collectstatic fills it.
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
metrics_directory_use(METRICS_DIR)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or _local_secret()
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")
# `curl localhost:8000/metrics` works on the machine itself; anything further needs the token or a network.
METRICS_NETWORKS = [
    n.strip() for n in os.environ.get("DESIREPATH_METRICS_NETWORKS", "127.0.0.1,::1").split(",") if n.strip()
]
