"""A conversation that is gone, someone else's, or never was gets one and the same 404 from every operation on it:
nobody learns from the answer that a conversation exists, or once did."""

from __future__ import annotations

import pytest

from apps.chat.models import Conversation
from tests.chat.test_chat_api import ask
from tests.factories import api, make_user, share

pytestmark = pytest.mark.django_db


def test_a_deleted_conversation_and_someone_elses_answer_alike_to_every_method(sample):
    owner = sample.owner
    deleted = ask(owner, "What is a PTW?", [sample.pk])["conversation"]
    assert api(owner).delete(f"/api/conversations/{deleted}/").status_code == 204
    colleague = make_user()
    share(sample, "reader", user=colleague)
    theirs = ask(colleague, "Who signs a PTW?", [sample.pk])["conversation"]
    never = Conversation.objects.order_by("-pk").values_list("pk", flat=True)[0] + 1000

    client = api(owner)
    answers = {}
    for name, conversation in (("deleted", deleted), ("someone else's", theirs), ("never made", never)):
        for operation, response in (
            ("GET", client.get(f"/api/conversations/{conversation}/")),
            ("DELETE", client.delete(f"/api/conversations/{conversation}/")),
            ("POST cancel", client.post(f"/api/conversations/{conversation}/cancel/")),
            (
                "POST follow-up",
                client.post("/api/chat/", {"message": "And then?", "conversation": conversation}, format="json"),
            ),
        ):
            answers[f"{operation} of a {name} conversation"] = (response.status_code, response.json())

    assert set(map(str, answers.values())) == {str((404, {"detail": "Not found."}))}, answers
    assert Conversation.objects.filter(pk=theirs).exists()
