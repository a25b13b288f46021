"""`make run`: embedded PostgreSQL and Redis (unless DATABASE_URL / REDIS_URL), migrations, the admin account,
the sample vault once, then every process of desirepath/processes.py (web, the Celery workers, beat). Ctrl-C (or
SIGTERM) stops the web server and workers, then the services it started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from desirepath import embedded
from desirepath.observability import metrics_directory_empty
from desirepath.processes import commands, web_address
from desirepath.settings.base import BASE_DIR, DATA_DIR, DB_NAME, METRICS_DIR

GRACE_SECONDS = 20


@dataclass
class Services:
    """The embedded servers this run started, and so stops; servers already running are left running."""

    postgres: bool = False
    redis: bool = False


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "desirepath.settings.dev")
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    started = Services()
    children: dict[str, subprocess.Popen[bytes]] = {}
    try:
        services_start(started)
        prepare()
        metrics_directory_empty(METRICS_DIR)  # the last run's processes are gone
        for name, command in commands().items():
            children[name] = subprocess.Popen(command, cwd=BASE_DIR)
        announce()
        return supervise(children)
    except KeyboardInterrupt:
        return 0
    finally:
        _signals_ignore()
        processes_stop(children)
        services_stop(started)
        print("DesirePath stopped.", flush=True)


def _interrupt(signum: int, frame: object) -> None:
    _signals_ignore()
    raise KeyboardInterrupt


def _signals_ignore() -> None:
    # Stopping takes a while; another Ctrl-C must not cut it short and leave processes or servers behind.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def services_start(started: Services) -> None:
    """Start the embedded servers the environment names no URL for; the processes started later reuse them."""
    if not os.environ.get("DATABASE_URL"):
        started.postgres = not embedded.postgres_running(DATA_DIR)
        embedded.ensure_postgres(DATA_DIR, DB_NAME)
    if not os.environ.get("REDIS_URL"):
        started.redis = not embedded.redis_running(DATA_DIR)
        os.environ["REDIS_URL"] = embedded.ensure_redis(DATA_DIR)


def prepare() -> None:
    """Migrations, static files, and the admin account with the sample vault (once)."""
    manage = [sys.executable, str(BASE_DIR / "manage.py")]
    for step in (["migrate", "--noinput"], ["collectstatic", "--noinput", "-v", "0"], ["bootstrap"]):
        subprocess.run(manage + step, check=True, cwd=BASE_DIR)


def announce() -> None:
    saved = DATA_DIR / "admin_password"
    print(
        f"\nDesirePath is running at http://{web_address()}/  (log in as admin"
        f"{'; password in ' + str(saved) if saved.exists() else ''}). Data lives in {DATA_DIR}. Ctrl-C stops it.\n",
        flush=True,
    )


def supervise(children: dict[str, subprocess.Popen[bytes]]) -> int:
    """Wait until a process exits (1: one down takes the rest down); Ctrl-C and SIGTERM interrupt the wait."""
    while True:
        for name, child in children.items():
            if child.poll() is not None:
                print(f"{name} exited with {child.returncode}; stopping everything", file=sys.stderr)
                return 1
        time.sleep(0.5)


def processes_stop(children: dict[str, subprocess.Popen[bytes]]) -> None:
    """SIGTERM to each in order; whatever still runs after the grace period is killed."""
    for child in children.values():
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    for child in children.values():
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def services_stop(started: Services) -> None:
    if started.redis:
        embedded.stop_redis(DATA_DIR)
    if started.postgres:
        embedded.stop_postgres(DATA_DIR / "postgres")


if __name__ == "__main__":
    raise SystemExit(main())
