"""One choice per person and passage: a new choice replaces the earlier one, and a choice can be undone. Either way
what the earlier vote taught is taken back by new rows on the weight ledger (which only grows), so what was
learned is as if it had never been given; the conversation shows the current choice only."""

from __future__ import annotations

import pytest

from apps.chat.models import ContextItem
from apps.feedback.models import Feedback
from apps.graph.models import (
    Dependency,
    DoorValue,
    Entity,
    FactValue,
    PathValue,
    QuestionValue,
    RhythmValue,
    WeightChange,
)
from apps.notes.models import Correction
from apps.retrieval.trace import Trace
from tests.factories import api, make_user, share
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db

QUESTION = "What is a PTW and when do I need one?"


def _learned(vault_id: int) -> dict[str, object]:
    """Everything a vote can move in a vault: strengths, ladder places and the counts of every learned value (a
    value row nobody has counted yet is the same as none)."""
    values = {}
    for model in (PathValue, FactValue, DoorValue, QuestionValue, RhythmValue):
        for row in model.objects.filter(vault_id=vault_id):
            if round(row.helped, 9) or round(row.failed, 9):
                values[(model.__name__, row.pk)] = (round(row.helped, 9), round(row.failed, 9))
    edges = Dependency.objects.filter(vault_id=vault_id).values_list("pk", "strength", "reason")
    entities = Entity.objects.filter(vault_id=vault_id).values_list("pk", "strength")
    return {
        "edges": {pk: (round(strength, 9), reason) for pk, strength, reason in edges},
        "entities": {pk: round(strength, 9) for pk, strength in entities},
        "values": values,
    }


def _ask(user, vault):
    reply = api(user).post("/api/chat/", {"vaults": [vault.pk], "message": QUESTION}, format="json")
    assert reply.status_code == 200, reply.content
    return reply.json()


def _walked(reply) -> dict:
    """A passage of the answer whose path crossed graph edges, so that a vote moves strengths and ladder places."""
    return next(i for i in reply["context"] if Trace.parse(ContextItem.objects.get(pk=i["id"]).trace).edges)


def _vote(user, item_id, signal, status=201, **more):
    response = api(user).post("/api/feedback/", {"context_item": item_id, "signal": signal, **more}, format="json")
    assert response.status_code == status, response.content
    assert_matches_schema(response)
    return response.json()


def _item(user, conversation: int, item_id: int) -> dict:
    detail = api(user).get(f"/api/conversations/{conversation}/")
    assert_matches_schema(detail)
    return next(i for i in detail.json()["turns"][0]["candidates"] if i["id"] == item_id)


def test_a_new_choice_replaces_the_earlier_and_the_ledger_takes_the_earlier_back(sample):
    reply = _ask(sample.owner, sample)
    item = _walked(reply)
    before = _learned(sample.pk)

    helpful = _vote(sample.owner, item["id"], "confirm")
    assert _learned(sample.pk) != before
    confirmed = WeightChange.objects.filter(feedback_id=helpful["id"]).count()
    assert WeightChange.objects.filter(feedback_id=helpful["id"], target="edge_strength").exists()

    wrong = _vote(sample.owner, item["id"], "not_relevant")
    assert wrong["replaced"] == helpful["id"] and wrong["created"] is True
    earlier = Feedback.objects.get(pk=helpful["id"])
    assert earlier.withdrawn_at is not None and earlier.replaced_by_id == wrong["id"]
    # The confirm's rows stay; new rows under the same vote take back exactly what it moved, and say by what.
    rows = WeightChange.objects.filter(feedback_id=helpful["id"])
    taken_back = rows.filter(reason__startswith="taken back: confirm replaced by not_relevant")
    assert rows.count() == 2 * confirmed and taken_back.count() == confirmed  # one reversal per row
    for target, target_id in rows.filter(target="edge_strength").values_list("target", "target_id").distinct():
        net = sum(rows.filter(target=target, target_id=target_id).values_list("delta", flat=True))
        assert abs(net) < 1e-9
    shown = _item(sample.owner, reply["conversation"], item["id"])
    assert shown["choice"] == {"id": wrong["id"], "signal": "not_relevant"} and shown["signals"] == ["not_relevant"]

    again = _vote(sample.owner, item["id"], "not_relevant", status=200)  # the same choice again moves nothing
    assert again["id"] == wrong["id"] and again["created"] is False
    ledger = WeightChange.objects.count()
    _vote(sample.owner, item["id"], "not_relevant", status=200)
    assert WeightChange.objects.count() == ledger

    # Undoing the latest leaves what was learned as it was before either vote.
    assert api(sample.owner).delete(f"/api/feedback/{wrong['id']}/").status_code == 204
    assert _learned(sample.pk) == before
    assert Feedback.objects.filter(user=sample.owner, withdrawn_at__isnull=True).count() == 0


def test_undo_takes_a_choice_back_once_and_only_for_the_person_who_gave_it(sample):
    reply = _ask(sample.owner, sample)
    item = _walked(reply)
    before = _learned(sample.pk)
    vote = _vote(sample.owner, item["id"], "confirm")

    reader, stranger = make_user("undo-reader"), make_user("undo-stranger")
    share(sample, "reader", user=reader)
    for other in (reader, stranger):  # someone else's vote does not exist for them
        assert api(other).delete(f"/api/feedback/{vote['id']}/").status_code == 404
    assert api(sample.owner).delete("/api/feedback/999999999/").status_code == 404
    assert Feedback.objects.get(pk=vote["id"]).withdrawn_at is None

    undone = api(sample.owner).delete(f"/api/feedback/{vote['id']}/")
    assert undone.status_code == 204
    assert _learned(sample.pk) == before
    shown = _item(sample.owner, reply["conversation"], item["id"])
    assert shown["choice"] is None and shown["signals"] == []
    ledger = WeightChange.objects.count()
    assert api(sample.owner).delete(f"/api/feedback/{vote['id']}/").status_code == 204  # again: harmless
    assert WeightChange.objects.count() == ledger and _learned(sample.pk) == before

    # Given again after the undo, it is a new vote that teaches again.
    again = _vote(sample.owner, item["id"], "confirm")
    assert again["id"] != vote["id"] and _learned(sample.pk) != before
    # Opening a note from the answer is noticed, not chosen: there is nothing to undo.
    opened = _vote(sample.owner, item["id"], "opened")
    refused = api(sample.owner).delete(f"/api/feedback/{opened['id']}/")
    assert refused.status_code == 400 and "nothing to undo" in refused.content.decode()
    assert Feedback.objects.filter(user=sample.owner, withdrawn_at__isnull=True).count() == 2  # confirm, opened


def test_a_contributor_may_only_propose_a_correction_and_a_replaced_proposal_is_withdrawn(sample):
    reply = _ask(sample.owner, sample)
    item = reply["context"][0]
    text = "Facilities issue a PTW, not IT."
    proposed = _vote(sample.owner, item["id"], "correct", text=text, propose=True)
    assert proposed["correction"]["status"] == "proposed"
    fixed = _vote(sample.owner, item["id"], "correct", text=text + " Ask them a day ahead.")  # other text: new
    assert fixed["replaced"] == proposed["id"] and fixed["correction"]["status"] == "applied"
    assert Correction.objects.get(pk=proposed["correction"]["id"]).status == "withdrawn"

    reader = make_user("correcting-reader")
    share(sample, "reader", user=reader)
    theirs = _ask(reader, sample)["context"][0]
    asked = _vote(reader, theirs["id"], "correct", text=text)
    assert asked["correction"]["status"] == "proposed"  # a reader proposes whatever they ask for
    assert api(reader).delete(f"/api/feedback/{asked['id']}/").status_code == 204
    assert Correction.objects.get(pk=asked["correction"]["id"]).status == "withdrawn"
