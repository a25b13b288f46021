"""Weights move only through clamped, atomic adjustments, each with its ledger row; PostgreSQL keeps the ledger."""

from __future__ import annotations

import threading

import pytest
from django.db import DatabaseError, connection, transaction

from apps.graph.learning import DELIBERATE, Outcome, confidence_step, path_value_record, weight_adjust
from apps.graph.models import Dependency, Entity, WeightChange
from tests.factories import make_user, make_vault

pytestmark = pytest.mark.django_db


def _edge(vault, strength=0.5, reason="single-memory", confidence=0.7):
    a = Entity.objects.create(vault=vault, name="Redis", key="redis", kind="thing")
    b = Entity.objects.create(vault=vault, name="Celery", key="celery", kind="thing")
    return Dependency.objects.create(
        vault=vault,
        source=a,
        target=b,
        kind="co_mentioned",
        strength=strength,
        initial_strength=strength,
        confidence=confidence,
        reason=reason,
    )


def _strength(edge):
    return Dependency.objects.get(pk=edge.pk).strength


def test_adjustments_are_clamped_and_each_leaves_its_ledger_row(vault):
    edge = _edge(vault, strength=0.94)
    up = weight_adjust(target="edge_strength", target_id=edge.pk, delta=DELIBERATE, source="feedback", reason="a")
    again = weight_adjust(target="edge_strength", target_id=edge.pk, delta=DELIBERATE, source="feedback", reason="b")
    assert up is not None and again is not None
    assert (up.old, up.new) == (0.94, 0.95) and (again.old, again.new) == (0.95, 0.95)  # clamped at the top
    for _ in range(100):
        weight_adjust(target="edge_strength", target_id=edge.pk, delta=-DELIBERATE, source="feedback", reason="c")
    assert _strength(edge) == pytest.approx(0.05)  # never dead
    rows = WeightChange.objects.filter(target="edge_strength", target_id=edge.pk)
    assert rows.count() == 102 and rows.filter(delta=0).count() > 0  # a clamped move is logged as what it was
    assert edge.initial_strength + sum(rows.values_list("delta", flat=True)) == pytest.approx(_strength(edge))


def test_postgres_refuses_to_rewrite_or_erase_the_ledger(vault):
    edge = _edge(vault)
    weight_adjust(target="edge_strength", target_id=edge.pk, delta=0.01, source="feedback", reason="confirm")
    for statement in (
        "UPDATE graph_weightchange SET new = 0.9",
        "DELETE FROM graph_weightchange",
        "TRUNCATE graph_weightchange",
    ):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert WeightChange.objects.count() == 1


def test_the_database_refuses_a_strength_outside_the_clamp(vault):
    edge = _edge(vault)
    with pytest.raises(DatabaseError), transaction.atomic():
        Dependency.objects.filter(pk=edge.pk).update(strength=1.5)


def test_path_values_learn_from_outcomes_and_the_ladder_moves_one_step(vault):
    edge = _edge(vault)
    first = path_value_record(
        vault_id=vault.pk, intent="what", edge_id=edge.pk, outcome=Outcome(True, 1.0, "feedback", "x")
    )
    second = path_value_record(
        vault_id=vault.pk, intent="what", edge_id=edge.pk, outcome=Outcome(False, 1.0, "feedback", "y")
    )
    assert (first.old, first.new) == (0.5, pytest.approx(2 / 3))
    assert second.new == pytest.approx(2 / 3.25)  # a miss weighs a quarter of a hit
    other = path_value_record(
        vault_id=vault.pk, intent="relate", edge_id=edge.pk, outcome=Outcome(True, 1.0, "feedback", "z")
    )
    assert other.old == 0.5  # keyed by intent too
    moved = confidence_step(edge_id=edge.pk, up=True, source="feedback", reason="confirm")
    assert moved is not None and (moved.old, moved.new) == (0.7, 0.9)
    assert Dependency.objects.get(pk=edge.pk).reason == "multi-memory"
    assert confidence_step(edge_id=edge.pk, up=True, source="feedback", reason="confirm") is None  # not to 1.0
    assert WeightChange.objects.filter(target="edge_confidence").count() == 1


def test_one_vault_s_feedback_never_moves_another_vault_s_weights(vault):
    other = make_vault(make_user("elsewhere"), "Elsewhere")
    mine, theirs = _edge(vault), _edge(other)
    weight_adjust(target="edge_strength", target_id=mine.pk, delta=-0.01, source="feedback", reason="not relevant")
    assert _strength(theirs) == 0.5
    assert set(WeightChange.objects.values_list("vault_id", flat=True)) == {vault.pk}


@pytest.mark.django_db(transaction=True)
def test_concurrent_feedback_on_one_edge_loses_no_update():
    vault = make_vault(make_user("busy"), "Busy")
    edge = _edge(vault)
    errors: list[BaseException] = []

    def vote() -> None:
        try:
            for _ in range(10):
                weight_adjust(target="edge_strength", target_id=edge.pk, delta=0.01, source="feedback", reason="c")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=vote) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _strength(edge) == pytest.approx(0.9)  # 40 votes of 0.01 from 0.5, none lost
    olds = sorted(WeightChange.objects.filter(target_id=edge.pk).values_list("old", flat=True))
    assert olds == pytest.approx([0.5 + 0.01 * i for i in range(40)])  # each moved from the previous value


def test_edges_nobody_walks_fade_slowly_on_the_ledger(vault):
    from datetime import timedelta

    from django.utils import timezone

    from apps.graph.learning import DECAY_STEP, edges_decay

    idle = _edge(vault)
    walked = Dependency.objects.create(
        vault=vault,
        source=idle.target,
        target=idle.source,
        kind="links_to",
        confidence=1.0,
        reason="user-asserted",
        last_walked_at=timezone.now(),
    )
    month_ago = timezone.now() - timedelta(days=30)
    Dependency.objects.filter(pk__in=[idle.pk, walked.pk]).update(created_at=month_ago)

    assert edges_decay() == 1
    assert _strength(idle) == pytest.approx(0.5 - DECAY_STEP) and _strength(walked) == 0.5
    assert WeightChange.objects.get(target_id=idle.pk).source == "decay"
