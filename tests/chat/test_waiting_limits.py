"""One person opening many answer streams cannot take the web tier from everybody else: they hold a few threads at
most, the rest of their streams are told at once that the answer is not streamed, the server keeps answering
others, and a stream whose client has gone gives its thread back within seconds. Served by gunicorn, as in
production."""

from __future__ import annotations

import http.client
import socket
import time

import pytest
from django.test import Client

from apps.chat.models import Conversation, Message, Role, Status
from tests.factories import api, make_user
from tests.servers import gunicorn_serving

LIMITS = {
    "DESIREPATH_CHAT_ANSWERS_IN_WORKER": "1",
    "DESIREPATH_CHAT_WAITS_PER_USER": "2",
    "DESIREPATH_CHAT_WAITS_PER_PROCESS": "3",
    "DESIREPATH_CHAT_WAIT_SECONDS": "120",
    "DESIREPATH_CHAT_UNCLAIMED_SECONDS": "120",
}


def _stuck_answer(user) -> tuple[str, int]:  # type: ignore[no-untyped-def]
    """A session cookie for `user` and an answer of theirs that no worker ever finishes."""
    conversation = Conversation.objects.create(owner=user, title="Stuck")
    question = Message.objects.create(conversation=conversation, role=Role.USER, text="Anything?")
    answer = Message.objects.create(
        conversation=conversation, role=Role.ASSISTANT, reply_to=question, status=Status.RUNNING
    )
    browser = Client()
    browser.force_login(user)
    return browser.cookies["sessionid"].value, answer.pk


def _open_stream(port: int, cookie: str, message_id: int) -> tuple[socket.socket, str]:
    """A stream request and what it first says: `waiting` (held open) or `busy` (not streamed)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=15)
    sock.sendall(
        f"GET /chat/stream/{message_id}/ HTTP/1.1\r\nHost: localhost\r\nCookie: sessionid={cookie}\r\n\r\n".encode()
    )
    received = b""
    while b"waiting" not in received and b"event: busy" not in received:
        chunk = sock.recv(65536)
        assert chunk, received
        received += chunk
    return sock, received.decode(errors="replace")


def _get(port: int, path: str, cookie: str = "") -> int:
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    client.request("GET", path, headers={"Cookie": f"sessionid={cookie}"} if cookie else {})
    status = client.getresponse().status
    client.close()
    return status


@pytest.mark.django_db(transaction=True)
def test_many_streams_from_one_person_leave_the_server_to_everybody_else():
    cookie, stuck = _stuck_answer(make_user("streamer"))
    other_cookie, other_stuck = _stuck_answer(make_user("bystander"))
    with gunicorn_serving(threads=4, env=LIMITS) as port:
        streams = [_open_stream(port, cookie, stuck) for _ in range(8)]
        held = [sock for sock, said in streams if ": waiting" in said]
        busy = [said for _, said in streams if "event: busy" in said]
        assert len(held) == 2 and len(busy) == 6
        assert "you already have 2 answers streaming" in busy[0] and "shows in this conversation" in busy[0]

        # Everybody else is still served while those two wait: the health check, pages, another person's stream.
        assert _get(port, "/healthz") == 200
        assert _get(port, "/chat/", other_cookie) == 200
        other, said = _open_stream(port, other_cookie, other_stuck)
        assert ": waiting" in said

        # The streamer's browser goes away: their threads come back and a new stream is held again.
        for sock in held:
            sock.close()
        deadline = time.monotonic() + 15
        while True:
            sock, said = _open_stream(port, cookie, stuck)
            if ": waiting" in said:
                break
            sock.close()
            assert time.monotonic() < deadline, said
            time.sleep(0.5)
        sock.close()
        other.close()
        for sock, _ in streams:
            sock.close()


@pytest.mark.django_db(transaction=True)
def test_the_api_does_not_wait_for_an_answer_past_the_askers_limit(settings, vault):
    from apps.chat.services.streams import wait_slot_take, wait_slots_held
    from desirepath.celery import app

    settings.CHAT_ANSWERS_IN_WORKER = True
    settings.CHAT_WAITS_PER_USER = 2
    waiting = [wait_slot_take(user_id=vault.owner_id) for _ in range(2)]  # two calls of theirs already wait
    try:
        started = time.monotonic()
        asked = api(vault.owner).post("/api/chat/", {"vaults": [vault.pk], "message": "What changed?"}, format="json")
        assert asked.status_code == 202 and time.monotonic() - started < 5
        assert asked.json()["detail"].startswith("Not waited for: you already have 2 answers streaming")
        assert Message.objects.get(pk=asked.json()["message"]).status == Status.PENDING  # kept, a worker answers
    finally:
        for slot in waiting:
            slot.release()
        with app.connection_for_write() as connection:  # no worker runs here: a later test's worker must not get it
            connection.default_channel.queue_purge(settings.CHAT_ANSWER_QUEUE)
    assert wait_slots_held(user_id=vault.owner_id) == 0
