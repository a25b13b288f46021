"""Leiden finds the communities planted in a graph, and a vault's run stores them as landmarks."""

from __future__ import annotations

import random

import pytest

from apps.graph.communities import communities_detect, leiden
from apps.graph.models import Community, CommunityRun, Dependency, Entity
from apps.graph.services import graph_extract_pending


def test_leiden_recovers_a_planted_partition():
    rng = random.Random(7)
    groups = [list(range(g * 20, g * 20 + 20)) for g in range(4)]
    edges = []
    for a in range(80):
        for b in range(a + 1, 80):
            same = a // 20 == b // 20
            if rng.random() < (0.5 if same else 0.02):
                edges.append((a, b, 1.0))
    found = leiden(edges)
    assert sorted(sorted(m) for m in found.members) == groups
    assert found.modularity > 0.5 and all(c > 0.8 for c in found.cohesion)


def test_weights_decide_between_two_readings_of_the_same_edges():
    ring = [(i, (i + 1) % 6, 1.0) for i in range(6)]  # a ring of six, then strengthen two triangles
    heavy = [*ring, (0, 2, 5.0), (3, 5, 5.0)]
    found = leiden(heavy)
    assert sorted(sorted(m) for m in found.members) == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.django_db
def test_a_vault_run_stores_named_communities_with_members(sample):
    graph_extract_pending(vault_id=sample.pk)
    run = communities_detect(vault_id=sample.pk)
    assert 0.0 < run.modularity < 1.0 and run.entities > 100
    communities = list(Community.objects.filter(run=run))
    assert len(communities) >= 3 and all(c.size >= 2 and 0 < c.cohesion <= 1 for c in communities)
    biggest = max(communities, key=lambda c: c.size)
    members = Dependency.objects.filter(kind="member_of", target=biggest.entity)
    assert members.count() == biggest.size
    assert biggest.name.split(" · ")[0] in set(Entity.objects.filter(vault=sample).values_list("name", flat=True))

    again = communities_detect(vault_id=sample.pk)  # a new run replaces the landmarks, never piles them up
    assert Community.objects.filter(vault=sample).count() == Community.objects.filter(run=again).count()
    assert CommunityRun.objects.filter(vault=sample).count() == 2


def test_a_task_queued_for_a_vault_deleted_since_does_nothing(owner):
    from apps.graph.tasks import detect_communities, extract_pending, tend_entities
    from apps.insights.tasks import discover_principles
    from tests.factories import make_vault

    gone = make_vault(owner, "Gone")
    gone_id = gone.pk
    gone.delete()  # an evaluation's vault, torn down before the worker got to it

    assert (detect_communities(gone_id), extract_pending(gone_id), tend_entities(gone_id)) == (0, {}, {})
    assert discover_principles(gone_id) == 0
