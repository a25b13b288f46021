"""Which environment starts what: production refuses to start without its servers, and only dev and test start
the embedded PostgreSQL and Redis (never the shared base settings on their own)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from desirepath import embedded

ROOT = Path(__file__).resolve().parents[2]
# Not a secret anywhere: a key as random as production's must be, written down for these checks only.
STRONG_KEY = "production-check-HuJxhS_idfjhJZfusX4VyoQ6_cSGahh2f6vPCFv16_Uq10DFmeh0Eg"
PRODUCTION_SECRETS = {"DJANGO_SECRET_KEY": STRONG_KEY, "DJANGO_ALLOWED_HOSTS": "example.org"}


# What the fresh interpreter never inherits: the servers and secrets each test names itself, and
# DJANGO_ALLOW_ASYNC_UNSAFE, which the browser tests set in this process and no deployment has.
NOT_INHERITED = {
    "DATABASE_URL",
    "REDIS_URL",
    "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS",
    "DESIREPATH_DB_NAME",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "DESIREPATH_METRICS_DIR",  # in the data directory each test names
    "PROMETHEUS_MULTIPROC_DIR",
}


def _run(args: list[str], data_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`args` in a fresh interpreter whose environment names only `env`'s servers and `data_dir`."""
    clean = {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}
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


@pytest.mark.parametrize("missing", ["DATABASE_URL", "REDIS_URL", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS"])
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


@pytest.mark.parametrize(
    "weak",
    ["x", "production-check-" + "x" * 40, "abcde" * 12, "Kq3vT9zLw2Xr7YpB" * 4, "django-insecure-" + STRONG_KEY],
)
def test_production_refuses_a_weak_secret_key_in_one_line(tmp_path, weak):
    data = tmp_path / "data"
    env = {**PRODUCTION_SECRETS, **_stack_urls(), "DJANGO_SETTINGS_MODULE": "desirepath.settings.production"}

    result = _run(["manage.py", "check"], data, **{**env, "DJANGO_SECRET_KEY": weak})

    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("desirepath.settings.production refuses a weak DJANGO_SECRET_KEY")
    assert weak not in line  # the refusal never repeats the key
    assert not data.exists()


def test_production_refuses_a_short_metrics_token_in_one_line(tmp_path):
    data = tmp_path / "data"
    env = {**PRODUCTION_SECRETS, **_stack_urls(), "DJANGO_SETTINGS_MODULE": "desirepath.settings.production"}

    result = _run(["manage.py", "check"], data, **{**env, "DESIREPATH_METRICS_TOKEN": "metrics"})

    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line == "desirepath.settings.production refuses a DESIREPATH_METRICS_TOKEN under 32 characters"
    assert not data.exists()


def test_production_passes_the_deployment_check(tmp_path):
    data = tmp_path / "data"
    env = {**PRODUCTION_SECRETS, **_stack_urls(), "DJANGO_SETTINGS_MODULE": "desirepath.settings.production"}

    result = _run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], data, **env)

    assert result.returncode == 0, result.stderr
    assert "no issues (0 silenced)" in result.stdout


def test_behind_a_proxy_production_redirects_plain_http_but_not_health_checks(tmp_path):
    env = {
        **PRODUCTION_SECRETS,
        **_stack_urls(),
        "DJANGO_SETTINGS_MODULE": "desirepath.settings.production",
        "DJANGO_SECURE_PROXY_SSL_HEADER": "1",
    }
    probe = (
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "c = Client()\n"
        "plain = c.get('/api/vaults/', HTTP_HOST='example.org')\n"
        "tls = c.get('/api/vaults/', HTTP_HOST='example.org', HTTP_X_FORWARDED_PROTO='https')\n"
        "health = c.get('/healthz', HTTP_HOST='example.org')\n"
        "print(plain.status_code, plain.get('Location'), tls.status_code, tls.get('Strict-Transport-Security'),"
        " health.status_code not in (301, 302))\n"
    )

    result = _run(["-c", probe], tmp_path / "data", **env)

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "301",
        "https://example.org/api/vaults/",
        "401",
        "max-age=31536000;",
        "includeSubDomains;",
        "preload",
        "True",  # the health check answers where it is asked (over plain HTTP, from inside)
    ]


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


def test_a_dev_command_says_where_its_data_is_and_stops_the_servers_it_started(tmp_path):
    data = tmp_path / "data"

    result = _run(
        ["manage.py", "check", "--database", "default"], data, DJANGO_SETTINGS_MODULE="desirepath.settings.dev"
    )

    assert result.returncode == 0, result.stderr
    lines = result.stderr.strip().splitlines()
    assert f"Data directory {data.resolve()}, database desirepath; started postgres and redis" in lines[0]
    assert "PostgreSQL: stopped" in lines and "Redis: stopped" in lines
    assert (data / "postgres" / "PG_VERSION").exists()  # they were started, and are gone again
    assert not embedded.postgres_running(data) and not embedded.redis_running(data)


def test_a_dev_command_stopped_by_sigterm_still_stops_the_servers_it_started(tmp_path):
    data = tmp_path / "data"
    clean = {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}
    command = subprocess.Popen(
        [sys.executable, "manage.py", "shell", "-c", "print('working', flush=True); import time; time.sleep(120)"],
        cwd=ROOT,
        env={**clean, "DESIREPATH_DATA_DIR": str(data), "DJANGO_SETTINGS_MODULE": "desirepath.settings.dev"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert command.stdout is not None
        said = [command.stdout.readline().strip() for _ in range(3)]  # the shell's greeting and a blank line first
        assert said[-1] == "working", said
        assert embedded.postgres_running(data) and embedded.redis_running(data)
        command.send_signal(signal.SIGTERM)
        _, stderr = command.communicate(timeout=60)
        assert "PostgreSQL: stopped" in stderr and "Redis: stopped" in stderr, stderr
        assert not embedded.postgres_running(data) and not embedded.redis_running(data)
    finally:
        command.kill()
        embedded.stop_all(data)


def test_a_dev_command_leaves_running_servers_running(tmp_path):
    data = tmp_path / "data"
    embedded.ensure_postgres(data, "desirepath")
    embedded.ensure_redis(data)
    try:
        result = _run(
            ["manage.py", "check", "--database", "default"], data, DJANGO_SETTINGS_MODULE="desirepath.settings.dev"
        )

        assert result.returncode == 0, result.stderr
        assert result.stderr.strip().splitlines() == [f"Data directory {data.resolve()}, database desirepath"]
        assert embedded.postgres_running(data) and embedded.redis_running(data)
    finally:
        assert embedded.stop_all(data) == ["PostgreSQL", "Redis"]
