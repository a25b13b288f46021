"""A HEAD answer has headers and no body, on a page and on the API, as gunicorn serves them: a body would be read
by a keep-alive client as the start of its next answer."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.servers import gunicorn_serving


@pytest.fixture
def gunicorn(django_db_setup) -> Iterator[int]:
    with gunicorn_serving() as port:
        yield port


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
