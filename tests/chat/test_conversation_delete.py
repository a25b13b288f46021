"""A person deletes one of their conversations: its questions, answers and shown passages go for good (API and chat
page), its votes stay on record (who, what, when, on which vault) with what the vaults learned from them on the
ledger, the Librarian's summary of it stays in the owner's personal vault, nobody else can delete it, and an answer
still being written holds the delete back."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.audit.models import AuditEvent
from apps.chat.models import ContextItem, Conversation, Message, Role, Status
from apps.feedback.models import Feedback
from apps.graph.models import WeightChange
from apps.librarian.models import SummaryNode
from apps.librarian.summaries.write import summarise_conversation
from apps.notes.models import Note
from tests.chat.test_chat_api import ask
from tests.factories import api, make_user, share
from tests.librarian.test_summaries import day, talk

pytestmark = pytest.mark.django_db


def _browser(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_owner_deletes_a_conversation_while_its_votes_and_what_they_taught_stay(sample):
    reply = ask(sample.owner, "What is a PTW?", [sample.pk])
    conversation = reply["conversation"]
    item = reply["context"][0]["id"]
    vote = api(sample.owner).post("/api/feedback/", {"context_item": item, "signal": "confirm"}, format="json")
    assert vote.status_code == 201
    learned = WeightChange.objects.filter(feedback_id=vote.json()["id"]).count()
    assert learned > 0
    kept = ask(sample.owner, "Who signs a PTW?", [sample.pk])["conversation"]

    stranger = make_user()
    share(sample, "manager", user=stranger)  # even a manager of the vault it asked
    assert api(stranger).delete(f"/api/conversations/{conversation}/").status_code == 404
    assert _browser(stranger).post(f"/chat/conversations/{conversation}/delete/").status_code == 404
    assert Conversation.objects.filter(pk=conversation).exists()

    gone = api(sample.owner).delete(f"/api/conversations/{conversation}/")
    assert gone.status_code == 204
    assert not Conversation.objects.filter(pk=conversation).exists()
    assert not Message.objects.filter(conversation_id=conversation).exists()
    assert not ContextItem.objects.filter(pk=item).exists()
    kept_vote = Feedback.objects.get(pk=vote.json()["id"])  # the vote stays, naming its vault and voter
    assert (kept_vote.vault_id, kept_vote.user_id, kept_vote.signal, kept_vote.context_item_id) == (
        sample.pk,
        sample.owner.pk,
        "confirm",
        item,
    )
    assert kept_vote.withdrawn_at is None
    assert WeightChange.objects.filter(feedback_id=vote.json()["id"]).count() == learned  # the learning stays
    # Its item gone, the vote can no longer be undone or replaced.
    assert api(sample.owner).delete(f"/api/feedback/{vote.json()['id']}/").status_code == 404
    again = api(sample.owner).post("/api/feedback/", {"context_item": item, "signal": "reject"}, format="json")
    assert again.status_code == 404
    assert api(sample.owner).get(f"/api/conversations/{conversation}/").status_code == 404
    assert [c["id"] for c in api(sample.owner).get("/api/conversations/").json()] == [kept]
    event = AuditEvent.objects.get(action="conversation.delete", object_id=str(conversation))
    assert event.changes == {"messages": 2}
    assert api(sample.owner).delete(f"/api/conversations/{conversation}/").status_code == 404


def test_an_answer_being_written_holds_the_delete_back(sample):
    reply = ask(sample.owner, "What is a PTW?", [sample.pk])
    Message.objects.filter(pk=reply["message"]).update(status=Status.RUNNING)
    refused = api(sample.owner).delete(f"/api/conversations/{reply['conversation']}/")
    assert refused.status_code == 409 and "still being written" in refused.json()["detail"]
    page = _browser(sample.owner).post(f"/chat/conversations/{reply['conversation']}/delete/")
    assert page.status_code == 409 and b"still being written" in page.content
    assert Message.objects.filter(conversation_id=reply["conversation"]).count() == 2


def test_the_chat_page_offers_the_delete_and_says_it_is_done(sample):
    reply = ask(sample.owner, "What is a PTW?", [sample.pk])
    browser = _browser(sample.owner)
    page = browser.get(f"/chat/?c={reply['conversation']}").content.decode()
    assert (
        "Delete this conversation" in page and f'action="/chat/conversations/{reply["conversation"]}/delete/"' in page
    )
    done = browser.post(f"/chat/conversations/{reply['conversation']}/delete/", follow=True)
    assert done.redirect_chain == [("/chat/?deleted=1", 302)]
    text = done.content.decode()
    assert "The conversation was deleted." in text and "What is a PTW?" not in text


def test_the_librarians_summary_of_a_deleted_conversation_stays_in_the_personal_vault():
    person = make_user()
    conversation = talk(person, day("2026-11-02T09:00:00"), ("Where is the boiler?", "In the basement [1]."))
    node = summarise_conversation(conversation.pk)
    assert node is not None and node.level == 0
    assert api(person).delete(f"/api/conversations/{conversation.pk}/").status_code == 204
    node = SummaryNode.objects.get(pk=node.pk)
    assert node.conversation_id is None and Note.objects.filter(pk=node.note_id, tier="hot").exists()
    assert not Message.objects.filter(role=Role.USER, text="Where is the boiler?").exists()
