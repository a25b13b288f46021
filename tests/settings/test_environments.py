"""Which environment starts what: production refuses to start without its servers, and only dev and test start
the embedded PostgreSQL and Redis (never the shared base settings on their own)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION_SECRETS = {"DJANGO_SECRET_KEY": "production-check-" + "x" * 40, "DJANGO_ALLOWED_HOSTS": "example.org"}


def _run(args: list[str], data_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`args` in a fresh interpreter whose environment names only `env`'s servers and `data_dir`."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DESIREPATH_DB_NAME"}
    }
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**clean, "DESIREPATH_DATA_DIR": str(data_dir), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _stack_urls() -> dict[str, str]:
    """URLs of the servers this test session runs on (the test database, the test Redis)."""
    db = connection.settings_dict
    credentials = quote(db["USER"], safe="") + (f":{quote(db['PASSWORD'], safe='')}" if db["PASSWORD"] else "")
    if str(db["HOST"]).startswith("/"):  # the embedded server's unix socket
        database_url = f"postgresql://{credentials}@/{db['NAME']}?host={quote(db['HOST'], safe='')}"
    else:
        database_url = f"postgresql://{credentials}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"
    return {"DATABASE_URL": database_url, "REDIS_URL": settings.REDIS_URL}


@pytest.mark.parametrize("missing", ["DATABASE_URL", "REDIS_URL", "DJANGO_SECRET_KEY"])
def test_production_without_a_required_variable_says_which_in_one_line_and_starts_nothing(tmp_path, missing):
    data = tmp_path / "data"
    env = {**PRODUCTION_SECRETS, **_stack_urls(), "DJANGO_SETTINGS_MODULE": "desirepath.settings.production"}
    del env[missing]

    result = _run(["manage.py", "check"], data, **env)

    assert result.returncode != 0
    assert result.stderr.strip().splitlines() == [
        f"desirepath.settings.production needs {missing} set in the environment"
    ]
    # No embedded server, no data directory: nothing was started or written.
    assert not data.exists()


def test_production_without_any_server_names_both(tmp_path):
    data = tmp_path / "data"
    env = {**PRODUCTION_SECRETS, "DJANGO_SETTINGS_MODULE": "desirepath.settings.production"}

    result = _run(["manage.py", "check"], data, **env)

    assert result.returncode != 0
    assert "DATABASE_URL, REDIS_URL" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not data.exists()


def test_production_runs_on_the_servers_it_is_given(tmp_path):
    data = tmp_path / "data"
    env = {**PRODUCTION_SECRETS, **_stack_urls(), "DJANGO_SETTINGS_MODULE": "desirepath.settings.production"}

    result = _run(["manage.py", "check", "--database", "default"], data, **env)

    assert result.returncode == 0, result.stderr
    assert not data.exists()


def test_dev_uses_given_servers_instead_of_starting_its_own(tmp_path):
    data = tmp_path / "data"
    env = {**_stack_urls(), "DJANGO_SETTINGS_MODULE": "desirepath.settings.dev"}

    result = _run(["manage.py", "check", "--database", "default"], data, **env)

    assert result.returncode == 0, result.stderr
    assert not (data / "postgres").exists() and not (data / "redis").exists()


def test_importing_the_base_settings_starts_nothing(tmp_path):
    data = tmp_path / "data"
    show = "from desirepath.settings import base; print(base.DATABASES, repr(base.REDIS_URL))"

    result = _run(["-c", show], data)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "{} ''"
    assert not data.exists()
