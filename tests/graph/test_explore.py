"""Explorer traversals: one speculative unit per session (two when the graph is stale) from a passage near in
meaning but far in the graph, tagged speculative and never answered from; its bridge climbs the ladder with each
confirm until ordinary walks take it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.chat.models import ContextItem
from apps.chat.selectors import ROUTINE_SESSIONS, explorer_quota
from apps.graph.explore import _near
from apps.graph.models import Dependency, Entity
from apps.graph.services import graph_extract_pending
from apps.graph.traversal import entry_entities, walk
from tests.factories import api, make_note, make_vault, scope_of
from tests.graph.test_doors import TOPICS

pytestmark = pytest.mark.django_db
QUESTION = "How do Celery workers get their jobs from Redis?"


def _vault(owner):
    vault = make_vault(owner, "Ops")
    make_note(vault, "Redis.md", "# Redis\n\nRedis holds the job queue; Celery workers pull jobs from Redis.\n")
    make_note(vault, "Celery.md", "# Celery\n\nCelery workers run the billing jobs and report to Redis.\n")
    for i in range(44):
        make_note(vault, f"office/{i:02d}.md", f"# Office {i}\n\nOn floor {i % 7} we handle {TOPICS[i % 22]}.\n")
    graph_extract_pending(vault_id=vault.pk)
    return vault


def _turn(owner, vault, conversation=None):
    body = {"vaults": [vault.pk], "message": QUESTION, **({"conversation": conversation} if conversation else {})}
    reply = api(owner).post("/api/chat/", body, format="json").json()
    return reply, list(ContextItem.objects.filter(message_id=reply["message"], speculative=True))


def test_a_session_gets_one_speculative_unit_from_far_in_the_graph_and_never_answers_from_it(owner):
    vault = _vault(owner)
    reply, [unit] = _turn(owner, vault)

    assert [c["speculative"] for c in reply["context"]].count(True) == 1  # tagged in the API
    searched = [i.chunk_id for i in ContextItem.objects.filter(message_id=reply["message"], speculative=False)]
    entry, _ = entry_entities(searched, scope_of([vault.pk]))
    assert unit.trace["entities"][-1] not in _near(entry, scope_of([vault.pk]))  # graph-distant
    assert f"[{unit.citation}]" not in reply["answer"]  # shown to be rated, never answered from
    bridge = Dependency.objects.get(pk=unit.trace["edges"][0])
    assert (bridge.kind, bridge.confidence, bridge.reason) == ("bridge", 0.3, "llm-uncertain")

    again, more = _turn(owner, vault, reply["conversation"])
    assert more == [] and not any(c["speculative"] for c in again["context"])  # one per session


def test_a_stale_graph_explores_twice_per_session(owner):
    vault = _vault(owner)
    week_ago = timezone.now() - timedelta(days=8)
    Entity.objects.filter(vault=vault).update(created_at=week_ago)
    Dependency.objects.filter(vault=vault).update(created_at=week_ago)
    first, units = _turn(owner, vault)
    _, more = _turn(owner, vault, first["conversation"])
    _, none = _turn(owner, vault, first["conversation"])
    assert (len(units), len(more), len(none)) == (1, 1, 0)


def test_the_same_paths_every_session_raise_exploration_and_a_new_route_lowers_it_again(sample):
    graph_extract_pending(vault_id=sample.pk)
    owner, outage = sample.owner, "What happened in the Redis outage?"

    def session(question, conversation=None):
        body = {"vaults": [sample.pk], "message": question, **({"conversation": conversation} if conversation else {})}
        reply = api(owner).post("/api/chat/", body, format="json").json()
        items = ContextItem.objects.filter(message_id=reply["message"])
        return reply, [i for i in items if i.speculative], {e for i in items for e in i.trace.get("edges", [])}

    walked = set()
    for _ in range(ROUTINE_SESSIONS - 1):
        walked |= session(outage)[2]
    assert walked  # the sessions walked the graph
    assert explorer_quota(scope_of([sample.pk])) == 1  # four sessions are no routine yet
    session(outage)
    assert explorer_quota(scope_of([sample.pk])) == 2  # five sessions, the same paths

    first, units, _ = session(outage)
    _, more, _ = session(outage, first["conversation"])
    assert (len(units), len(more)) == (1, 1)  # the routine session explores twice

    _, _, elsewhere = session("Who signs a permit to work for the server room?")
    assert elsewhere - walked and explorer_quota(scope_of([sample.pk])) == 1  # somewhere new: back to one


def test_a_bridge_confirmed_again_and_again_becomes_a_road(owner):
    vault = _vault(owner)
    units = [_turn(owner, vault)[1][0] for _ in range(2)]  # two sessions, the same proposal
    assert len({u.trace["edges"][0] for u in units}) == 1
    bridge_id = units[0].trace["edges"][0]
    far = units[0].trace["entities"][-1]  # the explored entity: few edges of its own, the bridge among them
    assert not any(
        s.edge == bridge_id
        for p in walk(entry=[far], scope=scope_of([vault.pk]), intent="what", words=[])[0]
        for s in p.steps
    )
    for unit in units:
        vote = api(owner).post("/api/feedback/", {"context_item": unit.pk, "signal": "confirm"}, format="json")
        assert vote.status_code == 201

    bridge = Dependency.objects.get(pk=bridge_id)
    assert (bridge.confidence, bridge.reason) == (0.5, "pattern-matched")  # promoted: ordinary walks take it
    paths, _ = walk(entry=[far], scope=scope_of([vault.pk]), intent="what", words=[])
    assert any(s.edge == bridge_id for p in paths for s in p.steps)


def test_hubs_do_not_make_everything_near(owner):
    """A city or a speaker named in every passage links everything in one hop; the explorer measures distance
    around such hubs, so it still finds the territory the question's entities do not reach."""
    vault = make_vault(owner, "Diary")
    make_note(
        vault, "Redis.md", "# Redis\n\nIn Berlin Redis held the job queue; Celery workers pull jobs from Redis.\n"
    )
    make_note(vault, "Celery.md", "# Celery\n\nIn Berlin Celery workers ran the billing jobs and reported to Redis.\n")
    for i in range(44):
        make_note(
            vault, f"office/{i:02d}.md", f"# Office {i}\n\nIn Berlin, on floor {i % 7}, we handled {TOPICS[i % 22]}.\n"
        )
    graph_extract_pending(vault_id=vault.pk)
    berlin = Entity.objects.get(vault=vault, key="berlin")
    assert Dependency.objects.filter(source=berlin).count() + Dependency.objects.filter(target=berlin).count() > 40

    reply, units = _turn(owner, vault)

    assert len(units) == 1 and units[0].trace["entities"][-1] != berlin.pk
    searched = [i.chunk_id for i in ContextItem.objects.filter(message_id=reply["message"], speculative=False)]
    entry, _ = entry_entities(searched, scope_of([vault.pk]))
    assert berlin.pk not in _near(entry, scope_of([vault.pk])) - set(entry)  # not a way between meanings
