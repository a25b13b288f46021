"""Desire paths: feedback on a unit teaches the path from each of the question's doors (its specific terms) to the
unit's fact, so a different question through the same door is served that fact first."""

from __future__ import annotations

import pytest

from apps.chat.models import ContextItem
from apps.core.text import asked_for
from apps.graph.doors import door_helped, door_lifts, doors_of
from apps.graph.learning import Rates, rates_applied
from apps.graph.models import WeightChange
from apps.graph.services import graph_extract_pending
from apps.notes.models import Chunk, Note
from apps.notes.services.notes import note_update
from tests.factories import api, make_note, make_vault, scope_of

pytestmark = pytest.mark.django_db

TOPICS = [
    "parking permits",
    "the coffee machine",
    "holiday requests",
    "the printer queue",
    "badge access",
    "desk booking",
    "expense claims",
    "the library shelves",
    "bike storage",
    "the quiet room",
    "recycling bins",
    "visitor passes",
    "the kitchen rota",
    "plant watering",
    "lost property",
    "the mail room",
    "first aid kits",
    "meeting rooms",
    "the lockers",
    "fire drills",
    "laptop loans",
    "the notice board",
]


def _vault(owner, name="Ops"):
    vault = make_vault(owner, name)
    for i, topic in enumerate(TOPICS):
        make_note(vault, f"office/{i:02d}.md", f"# Office {i}\n\nThe team handles {topic} every week.\n")
    make_note(vault, "grafana-dashboards.md", "# Dashboards\n\nGrafana dashboards show the queue latency per hour.\n")
    make_note(vault, "grafana-alerts.md", "# Alerts\n\nGrafana alerts page the on-call engineer when disks fill.\n")
    graph_extract_pending(vault_id=vault.pk)
    return vault


def _order(owner, vault, question):
    reply = api(owner).post("/api/chat/", {"vaults": [vault.pk], "message": question}, format="json").json()
    items = ContextItem.objects.filter(message_id=reply["message"]).order_by("position")
    return {i.path: i for i in items}


def test_a_door_is_a_specific_term_of_the_question(owner):
    vault = _vault(owner)
    words = ["grafana", "team", "week", "nonexistentword"]
    # "team" opens every note; a word no note has opens nothing
    assert doors_of(words, scope_of([vault.pk])) == ["grafana"]


def test_a_question_asks_for_a_kind_of_answer():
    asked = ["When did Mel go camping?", "how many dogs?", "Whose idea was it?", "Did it rain?", "Tell me more", ""]
    assert [asked_for(q) for q in asked] == ["when", "how many", "who", "yes-no", "other", "other"]
    polite = ["Can you tell me when Mel went camping?", "Do you remember who called?", "Please remind me where it is"]
    assert [asked_for(q) for q in polite] == ["when", "who", "where"]
    assert asked_for("Can you open the report?") == "yes-no"  # a request is no question word
    loose = ["How  many dogs?", "so, when did it happen", "Can you tell me if it rained?", "Sofa colour?"]
    assert [asked_for(q) for q in loose] == ["how many", "when", "yes-no", "other"]


def test_a_confirm_through_one_question_serves_the_fact_first_to_another_of_its_kind_through_the_same_door(owner):
    vault = _vault(owner)
    later, other_kind = "What is Grafana used for?", "When does Grafana help?"
    before, before_other = _order(owner, vault, later), _order(owner, vault, other_kind)
    low, high = sorted(["grafana-dashboards.md", "grafana-alerts.md"], key=lambda p: -before[p].position)
    assert before[low].position > before[high].position

    # asked twice (one choice per passage shown): confirmed the first time, used the second
    shown = [_order(owner, vault, "What Grafana panel should I open?")[low] for _ in range(2)]
    item = shown[0]
    assert "grafana" in item.trace["doors"] and "team" not in item.trace["doors"] and item.trace["asks"] == "what"
    votes = [
        api(owner).post("/api/feedback/", {"context_item": unit.pk, "signal": signal}, format="json")
        for unit, signal in zip(shown, ("confirm", "used"), strict=True)
    ]
    assert [v.status_code for v in votes] == [201, 201]
    learned = [WeightChange.objects.get(feedback_id=v.json()["id"], target="door_value") for v in votes]
    assert [(w.old, w.new) for w in learned] == [(0.5, pytest.approx(2 / 3)), (pytest.approx(2 / 3), 0.75)]
    # the value keeps counting (0.75 is odds 3), but on the order a fact that helped moves one hit's worth at most
    assert door_lifts(["grafana"], "what", [item.chunk_id], scope_of([vault.pk])) == {item.chunk_id: pytest.approx(2.0)}

    after = _order(owner, vault, later)
    assert after[low].position < after[high].position  # the desire path carried it past the other
    assert {p: i.survived for p, i in after.items()} == {p: i.survived for p, i in before.items()}  # never admits
    after_other = _order(owner, vault, other_kind)  # a "when" question through the same door learned nothing
    assert {p: i.position for p, i in after_other.items()} == {p: i.position for p, i in before_other.items()}


def test_desire_paths_never_cross_into_a_vault_outside_the_scope(owner):
    mine, theirs = _vault(owner, "Mine"), _vault(owner, "Theirs")
    item = _order(owner, mine, "What Grafana panel should I open?")["grafana-alerts.md"]
    api(owner).post("/api/feedback/", {"context_item": item.pk, "signal": "confirm"}, format="json")
    their_chunks = list(Chunk.objects.filter(vault=theirs).values_list("pk", flat=True))
    assert door_lifts(["grafana"], "what", [item.chunk_id], scope_of([mine.pk])) == {item.chunk_id: pytest.approx(2.0)}
    note_update(
        actor=owner,
        note=Note.objects.get(pk=item.note_id),
        body=Note.objects.get(pk=item.note_id).body,
        path="ops/grafana-alerts.md",
    )  # re-chunked: new chunk ids, the same passage
    moved = Chunk.objects.get(note_id=item.note_id)
    assert moved.pk != item.chunk_id
    assert door_lifts(["grafana"], "what", [moved.pk], scope_of([mine.pk])) == {
        moved.pk: pytest.approx(2.0)
    }  # what it learned stays
    assert (
        door_lifts(["grafana"], "what", [item.chunk_id], scope_of([theirs.pk])) == {}
    )  # the value lives in its own vault only
    assert door_lifts(["grafana"], "what", their_chunks, scope_of([theirs.pk, mine.pk])) == {}


def test_facts_that_helped_through_a_door_are_candidates_only_where_read_and_only_within_the_scope(owner):
    mine, theirs = _vault(owner, "Mine"), _vault(owner, "Theirs")
    shown = _order(owner, mine, "What Grafana panel should I open?")
    helped, missed = shown["grafana-alerts.md"], shown["grafana-dashboards.md"]
    api(owner).post("/api/feedback/", {"context_item": helped.pk, "signal": "confirm"}, format="json")
    api(owner).post("/api/feedback/", {"context_item": missed.pk, "signal": "not_relevant"}, format="json")
    scope = scope_of([mine.pk])

    with rates_applied(Rates(door_candidates=0)):
        assert door_helped(["grafana"], "what", set(), scope) == []  # none asked for (`Rates.door_candidates`)
    with rates_applied(Rates(door_candidates=5)):
        assert door_helped(["grafana"], "what", set(), scope) == [helped.chunk_id]  # not the one rejected
        assert door_helped(["grafana"], "what", {helped.chunk_id}, scope) == []  # already a candidate
        assert door_helped(["grafana"], "when", set(), scope) == []  # another kind of answer learned nothing
        assert door_helped(["grafana"], "what", set(), scope_of([theirs.pk])) == []  # nor another vault
