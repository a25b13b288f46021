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
    for bad in ({"vault": ["²"]}, {"vault": ["-1"]}, {"conversation": "x"}):
        response = client.post("/chat/send/", {"message": "What is a PTW?", **bad})
        assert response.status_code == 400 and "numeric ids" in response.json()["detail"]
    assert client.get("/chat/?c=²").status_code == 404
    assert not Message.objects.exists()


def test_nobody_else_can_run_or_read_an_answer(sample):
    sent = browser(sample.owner).post("/chat/send/", {"message": "What is a PTW?", "vault": [sample.pk]}).json()
    stranger = browser(make_user())
    assert stranger.get(sent["stream"]).status_code == 404
    assert stranger.get(f"/chat/?c={sent['conversation']}").status_code == 404
    assert Message.objects.get(pk=sent["message"]).status == "pending"


def test_one_run_per_answer_and_a_reader_who_leaves_marks_it_failed(sample):
    from apps.chat.services.chat import chat_run, chat_start

    message = chat_start(user=sample.owner, vault_ids=[sample.pk], text="What is a PTW?")
    first = chat_run(message=message, user=sample.owner)
    assert next(first).kind == "status"  # claimed and running
    second = list(chat_run(message=message, user=sample.owner))
    assert [(e.kind, e.data["status"]) for e in second] == [("failure", 409)]
    first.close()  # the page was closed mid-answer
    message.refresh_from_db()
    assert message.status == "failed" and "closed before the answer was finished" in message.notices[-1]


def test_access_lost_between_asking_and_answering_is_a_404_not_an_outage(sample):
    from apps.chat.services.chat import chat_run, chat_start
    from apps.vaults.services import vault_unshare
    from tests.factories import share

    reader = make_user()
    share(sample, "reader", user=reader)
    message = chat_start(user=reader, vault_ids=[sample.pk], text="What is a PTW?")
    vault_unshare(actor=sample.owner, vault=sample, user=reader)
    events = list(chat_run(message=message, user=reader))
    assert [(e.kind, e.data["status"]) for e in events] == [("failure", 404)]
    message.refresh_from_db()
    assert message.status == "failed" and message.reply_to.text == "What is a PTW?"  # the question is kept


def test_the_history_list_finds_conversations_by_title_and_shows_only_the_owner_s(sample):
    from apps.chat.models import Conversation

    owner, other = sample.owner, make_user("history-other")
    Conversation.objects.create(owner=owner, title="Focaccia proofing times")
    Conversation.objects.create(owner=owner, title="Redis outage follow-up")
    Conversation.objects.create(owner=other, title="Focaccia for the picnic")
    client = browser(owner)

    everything = client.get("/chat/").content.decode()
    assert "Focaccia proofing times" in everything and "Redis outage follow-up" in everything
    found = client.get("/chat/?find=focaccia").content.decode()
    assert "Focaccia proofing times" in found and "Redis outage follow-up" not in found
    assert "Focaccia for the picnic" not in found  # another person's conversation never shows
    assert 'value="focaccia"' in found  # the box keeps what was typed
    nothing = client.get("/chat/?find=sourdough").content.decode()
    assert "None whose title has “sourdough”." in nothing


def test_sources_and_citations_open_their_section_and_the_gate_shows_passages_as_plain_text(sample):
    client = browser(sample.owner)
    sent = client.post("/chat/send/", {"message": "What was the root cause of the Redis outage?", "vault": [sample.pk]})
    final = events(client.get(sent.json()["stream"]))[-1][1]

    root_cause = next(i for i in final["context"] if i["section"] == "Root Cause")
    assert root_cause["href"] == f"/notes/{root_cause['note']}/#root-cause"
    assert f'href="/notes/{root_cause["note"]}/#root-cause"' in final["answer_html"]  # its [n] in the answer
    assert 'id="root-cause"' in client.get(f"/notes/{root_cause['note']}/").content.decode()  # the page's heading
    for item in final["candidates"]:
        readable = item["readable"]
        assert "**" not in readable and "[[" not in readable and not readable.startswith("#"), readable
    opening = next(i for i in final["candidates"] if "**Incident:** INC-2041" in i["text"])
    assert "Incident: INC-2041. Date: Thursday 2 May 2024." in opening["readable"]
