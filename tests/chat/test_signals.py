"""Automatic signals move what a person's signal moves, a thousandth as far (0.00001 against 0.01), on the ledger as
`automatic`: co-occurrence beside a used unit, and a later search for a term a delivered unit contained."""

from __future__ import annotations

import pytest

from apps.chat.models import ContextItem
from apps.feedback.services.signals import co_occurrence_learn, later_search_learn
from apps.graph.models import WeightChange
from apps.vaults.services import vault_unshare
from tests.factories import api, make_user, share
from tests.graph.test_doors import _vault

pytestmark = pytest.mark.django_db
STEP = (1 + 0.001) / (2 + 0.001) - 0.5  # one automatic outcome on an unlearned value


def _delivered(user, vault, question="What is Grafana used for?"):
    reply = api(user).post("/api/chat/", {"vaults": [vault.pk], "message": question}, format="json").json()
    return list(ContextItem.objects.filter(message_id=reply["message"], survived=True).order_by("position"))


def test_units_delivered_beside_a_used_one_learn_a_thousandth_of_a_vote(owner):
    vault = _vault(owner)
    used, *beside = _delivered(owner, vault)
    assert beside

    moved = co_occurrence_learn(item=used)

    assert moved == len(beside)
    rows = WeightChange.objects.filter(source="automatic")
    doors = rows.filter(target="door_value")
    assert doors.count() == sum(len(u.trace["doors"]) for u in beside) > 0
    assert all(r.delta == pytest.approx(STEP) for r in doors)
    assert all(r.delta == pytest.approx(0.00001) for r in rows.filter(target="edge_strength"))
    assert not rows.filter(target="edge_confidence").exists()  # automatic evidence never climbs the ladder
    assert not WeightChange.objects.exclude(source="automatic").exists()


def test_a_later_search_for_a_delivered_term_moves_only_readable_earlier_units(owner):
    vault = _vault(owner)
    reader = make_user()
    share(vault, "reader", user=reader)
    earlier = _delivered(reader, vault)
    carrying = [u for u in earlier if "latency" in u.text.lower()]
    assert carrying and len(carrying) < len(earlier)

    assert later_search_learn(user_id=reader.pk, text="What was the latency?") == len(carrying)
    moved = WeightChange.objects.filter(source="automatic", target="door_value")
    assert moved.exists() and all(r.reason == "a later search for 'latency'" for r in moved)
    assert later_search_learn(user_id=reader.pk, text="the and of") == 0  # nothing specific asked
    assert later_search_learn(user_id=owner.pk, text="queue latency") == 0  # nothing was delivered to the owner
    assert later_search_learn(user_id=reader.pk, text="latency", before_message_id=earlier[0].message.reply_to_id) == 0

    vault_unshare(actor=owner, vault=vault, user=reader)
    assert later_search_learn(user_id=reader.pk, text="queue latency") == 0  # access lost: nothing moves
