"""A HEAD answer has headers and no body, on a page and on the API, as gunicorn serves them: a body would be read
by a keep-alive client as the start of its next answer."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def gunicorn(django_db_setup) -> Iterator[int]:
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "desirepath.settings.test",
        "DESIREPATH_DB_NAME": connection.settings_dict["NAME"],
    }
    command = [sys.executable, "-m", "gunicorn", "desirepath.wsgi:application", "--bind", f"127.0.0.1:{port}"]
    process = subprocess.Popen(
        [*command, "--workers", "1", "--threads", "2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
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
    process.terminate()
    process.wait(timeout=30)


def _exchange(sock: socket.socket, request: bytes) -> bytes:
    """Send one request and read whatever the server sends until it falls quiet."""
    sock.sendall(request)
    received = b""
    sock.settimeout(10.0)
    try:
        while chunk := sock.recv(65536):
            received += chunk
            sock.settimeout(0.5)  # the answer has started: stop once nothing more comes
    except TimeoutError:
        pass
    return received


@pytest.mark.parametrize(("path", "status"), [("/login/", b"200"), ("/api/vaults/", b"401")])
def test_head_answers_carry_no_body_and_the_connection_stays_usable(gunicorn, path, status):
    with socket.create_connection(("127.0.0.1", gunicorn), timeout=5) as sock:
        head = _exchange(sock, f"HEAD {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        headers, _, body = head.partition(b"\r\n\r\n")
        assert headers.startswith(b"HTTP/1.1 " + status), headers[:80]
        assert body == b""
        assert b"content-length: 0" not in headers.lower()  # the length a GET would have, or none
        following = _exchange(sock, f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
        assert following.startswith(b"HTTP/1.1 " + status)
        assert len(following.partition(b"\r\n\r\n")[2]) > 0  # the GET does have a body
