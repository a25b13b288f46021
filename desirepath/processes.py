"""The long-running processes of a deployment, in one table. `make run` (desirepath/run.py) starts every row;
docker/compose.yml runs one service per row as `python -m desirepath.processes NAME` (tests/test_processes.py
holds the compose file to this table, and fails when a routed Celery queue has no consumer here).

    python -m desirepath.processes             # the table, one process a line (Procfile style)
    python -m desirepath.processes worker      # become that process (its command from the environment)
    python -m desirepath.processes web --health  # exit 0 when this machine's web process answers /healthz
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from desirepath.settings import base

BIN = Path(sys.executable).parent
BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"


@dataclass(frozen=True)
class Process:
    name: str
    does: str
    program: str  # "gunicorn", "worker" or "beat"
    # Names of the settings that hold the Celery queues a worker consumes (their values follow
    # DESIREPATH_TASK_QUEUE, so the test settings' queues are consumed by the same rows).
    queue_settings: tuple[str, ...] = ()
    concurrency_variable: str = ""
    concurrency_default: str = ""
    node: str = ""  # a worker's node name, when two workers may share a machine

    def queues(self) -> list[str]:
        return [getattr(base, setting) for setting in self.queue_settings]


PROCESSES: tuple[Process, ...] = (
    Process("web", "pages and the API (gunicorn)", "gunicorn"),
    Process(
        "worker",
        "imports, embedding, graph, Librarian and every periodic job",
        "worker",
        queue_settings=("CELERY_TASK_DEFAULT_QUEUE",),
        concurrency_variable="DESIREPATH_WORKER_CONCURRENCY",
        concurrency_default="1",
    ),
    # Answers get their own worker: a long import never holds a question up.
    Process(
        "answers",
        "chat answers, including deep research",
        "worker",
        queue_settings=("CHAT_ANSWER_QUEUE",),
        concurrency_variable="DESIREPATH_ANSWER_CONCURRENCY",
        concurrency_default="2",
        node="answers@%h",
    ),
    # Exactly one beat per deployment: two would send every periodic job twice.
    Process("beat", "the periodic schedule (Celery beat, kept in the database)", "beat"),
)


def process_named(name: str) -> Process:
    for process in PROCESSES:
        if process.name == name:
            return process
    raise KeyError(f"no process named {name!r}; the processes are {', '.join(p.name for p in PROCESSES)}")


def web_address(environ: Mapping[str, str] = os.environ) -> str:
    return f"{environ.get('DESIREPATH_BIND', '127.0.0.1')}:{environ.get('DESIREPATH_PORT', '8000')}"


def command(process: Process, *, environ: Mapping[str, str] = os.environ, bin_dir: Path = BIN) -> list[str]:
    """The process's command line, its sizes taken from `environ`."""
    celery = [str(bin_dir / "celery"), "-A", "desirepath"]
    if process.program == "gunicorn":
        return [
            str(bin_dir / "gunicorn"),
            "desirepath.wsgi:application",
            "--bind",
            web_address(environ),
            "--workers",
            environ.get("DESIREPATH_WEB_WORKERS", "2"),
            "--threads",  # a streamed answer holds a thread, not a whole worker
            environ.get("DESIREPATH_WEB_THREADS", "8"),
            "--timeout",
            "120",
            "--access-logfile",
            "-",
        ]
    if process.program == "worker":
        concurrency = environ.get(process.concurrency_variable, process.concurrency_default)
        node = ["-n", process.node] if process.node else []
        queues = ",".join(process.queues())
        return [*celery, "worker", "-l", "INFO", "-Q", queues, *node, "--concurrency", concurrency]
    if process.program == "beat":
        return [*celery, "beat", "-l", "INFO", "--scheduler", BEAT_SCHEDULER]
    raise ValueError(f"process {process.name} runs an unknown program {process.program!r}")


def commands(*, environ: Mapping[str, str] = os.environ, bin_dir: Path = BIN) -> dict[str, list[str]]:
    """Every process's command line by name, in the order they start and stop."""
    return {process.name: command(process, environ=environ, bin_dir=bin_dir) for process in PROCESSES}


def consumed_queues() -> set[str]:
    return {queue for process in PROCESSES for queue in process.queues()}


def web_health(environ: Mapping[str, str] = os.environ, timeout: float = 5.0) -> bool:
    """Whether the web process on this machine answers /healthz with 200 (database and Redis reachable). The
    request names a host the settings allow, as a health check from inside the container has no proxy's."""
    port = environ.get("DESIREPATH_PORT", "8000")
    host = next((h.strip() for h in environ.get("DJANGO_ALLOWED_HOSTS", "").split(",") if h.strip()), "localhost")
    host = "localhost" if host == "*" else ("health" + host if host.startswith(".") else host)
    request = urllib.request.Request(f"http://127.0.0.1:{port}/healthz", headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (a fixed local URL)
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m desirepath.processes", description=__doc__.split("\n")[0])
    parser.add_argument("name", nargs="?", choices=[p.name for p in PROCESSES], help="the process to become")
    parser.add_argument("--health", action="store_true", help="check the web process instead of starting it")
    args = parser.parse_args(argv)
    if args.name is None:
        for process in PROCESSES:
            print(f"{process.name}: {' '.join(command(process, bin_dir=Path()))}")
        return 0
    if args.health:
        if args.name != "web":
            parser.error("--health checks the web process only")
        return 0 if web_health() else 1
    argv_of_process = command(process_named(args.name))
    os.execv(argv_of_process[0], argv_of_process)  # noqa: S606 (a command from the table above)


if __name__ == "__main__":
    raise SystemExit(main())
