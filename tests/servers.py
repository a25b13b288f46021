"""The web tier as production runs it: gunicorn with threads, in its own process, on the test database."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def gunicorn_serving(*, threads: int = 2, env: dict[str, str] | None = None, log: Path | None = None) -> Iterator[int]:
    """One gunicorn worker with `threads` threads on a free port, up once the application answers; its port.
    What it logs goes to `log` when named."""
    port = free_port()
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "desirepath.settings.test",
        "DESIREPATH_DB_NAME": connection.settings_dict["NAME"],
        "DESIREPATH_WEB_THREADS": str(threads),
        **(env or {}),
    }
    command = [sys.executable, "-m", "gunicorn", "desirepath.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    output = log.open("a") if log else subprocess.DEVNULL
    process = subprocess.Popen(
        [*command, "--workers", "1", "--threads", str(threads)],
        cwd=ROOT,
        env=environment,
        stdout=output,
        stderr=subprocess.STDOUT,
    )
    if log:
        output.close()  # type: ignore[union-attr]  # the child holds its own descriptor
    try:
        deadline = time.time() + 60
        while True:
            assert process.poll() is None and time.time() < deadline, "gunicorn did not start"
            try:  # up once the application answers, not merely once the port listens
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                probe.request("GET", "/healthz")
                probe.getresponse().read()
                probe.close()
                break
            except OSError:
                time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)
