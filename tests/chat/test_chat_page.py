"""The chat page's own routes: sending stores the question, the stream runs the answer once, for its owner only."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from apps.chat.models import Message
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def events(response) -> list[tuple[str, dict]]:
    body = b"".join(response.streaming_content).decode()
    out = []
    for block in body.strip().split("\n\n"):
        kind, data = block.split("\n", 1)
        out.append((kind.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return out


def test_the_page_needs_a_login():
    assert Client().get("/chat/").status_code == 302


def test_a_question_streams_status_context_text_and_the_final_answer(sample):
    client = browser(sample.owner)
    sent = client.post("/chat/send/", {"message": "What is a PTW?", "vault": [sample.pk]}).json()
    assert Message.objects.get(pk=sent["message"]).status == "pending"

    stream = client.get(sent["stream"])
    assert stream["Content-Type"] == "text/event-stream"
    got = events(stream)
    kinds = [kind for kind, _ in got]
    assert kinds[0] == "status" and "context" in kinds and kinds[-1] == "done"
    deltas = "".join(data["text"] for kind, data in got if kind == "delta")
    final = got[-1][1]
    assert deltas == final["answer"] and final["grounded"] and "[1]" in deltas
    assert client.get(sent["stream"]).status_code == 404  # an answer is written once
    page = client.get(f"/chat/?c={sent['conversation']}")
    assert b"What is a PTW?" in page.content


def test_bad_input_is_refused_and_nothing_is_stored(sample):
    client = browser(sample.owner)
    response = client.post("/chat/send/", {"message": "  ", "vault": [sample.pk]})
    assert response.status_code == 400 and "empty" in response.json()["detail"]
    stranger = browser(make_user())
    assert stranger.post("/chat/send/", {"message": "hi there?", "vault": [sample.pk]}).status_code == 404
    assert not Message.objects.exists()


def test_nobody_else_can_run_or_read_an_answer(sample):
    sent = browser(sample.owner).post("/chat/send/", {"message": "What is a PTW?", "vault": [sample.pk]}).json()
    stranger = browser(make_user())
    assert stranger.get(sent["stream"]).status_code == 404
    assert stranger.get(f"/chat/?c={sent['conversation']}").status_code == 404
    assert Message.objects.get(pk=sent["message"]).status == "pending"
