"""The walk is bounded by construction, scores paths by prior × learned value, and feedback on a unit moves
exactly the edges of the path that produced it."""

from __future__ import annotations

import pytest

from apps.chat.models import ContextItem
from apps.graph.intent import intent_of
from apps.graph.learning import Outcome, path_value_record
from apps.graph.models import Dependency, Entity, WeightChange
from apps.graph.services import graph_extract_pending
from apps.graph.traversal import EDGES_PER_ENTITY, MAX_PATHS, gather, walk
from apps.llm.embeddings import embed_query
from apps.notes.models import Chunk
from tests.factories import api, make_note, make_vault, scope_of

pytestmark = pytest.mark.django_db


def _tree(vault, fanout=8, depth=4):
    """A hub, `fanout` children per entity down to `depth`, every edge at confidence 0.7 except one weak child
    per entity (confidence 0.4, never walked) — strengths vary so the best four are well defined."""
    root = Entity.objects.create(vault=vault, name="root", key="root", kind="thing")
    level, n = [root], 0
    for _ in range(depth):
        below = []
        for parent in level:
            for i in range(fanout):
                n += 1
                child = Entity.objects.create(vault=vault, name=f"e{n}", key=f"e{n}", kind="thing")
                weak = i == 0
                Dependency.objects.create(
                    vault=vault,
                    source=parent,
                    target=child,
                    kind="co_mentioned",
                    reason="single-memory",
                    confidence=0.4 if weak else 0.7,
                    strength=0.9 if weak else 0.2 + 0.05 * i,
                )
                below.append(child)
        level = below[:20]
    return root


def test_the_walk_is_bounded_by_construction(vault):
    root = _tree(vault)
    paths, _ = walk(entry=[root.pk], scope=scope_of([vault.pk]), intent="what", words=[])

    assert 0 < len(paths) <= MAX_PATHS
    assert all(2 <= len(p.steps) <= 3 for p in paths)  # no single hop scored, depth at most 3
    assert all(s.confidence >= 0.5 for p in paths for s in p.steps)  # weak edges ignored
    used: dict[int, set[int]] = {}
    for p in paths:
        for s in p.steps:
            used.setdefault(s.source, set()).add(s.edge)
    assert max(len(edges) for edges in used.values()) <= EDGES_PER_ENTITY
    first_hops = {p.steps[0].target for p in paths}
    best_four = set(
        Dependency.objects.filter(source=root, confidence__gte=0.5)
        .order_by("-strength")[:4]
        .values_list("target_id", flat=True)
    )
    assert first_hops <= best_four  # the four strongest edges, by confidence × strength
    assert paths == sorted(paths, key=lambda p: -p.score)


def test_a_learned_value_lifts_its_path_and_is_kept_per_intent(vault):
    root = _tree(vault, fanout=5, depth=2)
    before, _ = walk(entry=[root.pk], scope=scope_of([vault.pk]), intent="what", words=[])
    last = before[-1]
    for step in last.steps:
        for _ in range(5):
            path_value_record(
                vault_id=vault.pk,
                intent="what",
                edge_id=step.edge,
                outcome=Outcome(True, 1.0, "feedback", "test"),
            )
    after, _ = walk(entry=[root.pk], scope=scope_of([vault.pk]), intent="what", words=[])
    assert after[0].entities == last.entities and after[0].score > before[0].score
    other, _ = walk(entry=[root.pk], scope=scope_of([vault.pk]), intent="relate", words=[])
    assert [p.entities for p in other] == [p.entities for p in before]  # another intent learned nothing


def test_intent_picks_the_walk():
    assert intent_of("What is a PTW?") == "what"
    assert intent_of("When did Caroline go to the support group?") == "lookup"
    assert intent_of("How does Redis relate to Celery?") == "relate"
    assert intent_of("What should we do about the Redis outage?") == "should"
    assert intent_of("What changed about the job queue since March?") == "changed"
    assert intent_of("haha nice, thanks!") == "chatter"


def test_feedback_moves_exactly_the_edges_of_the_unit_s_path(sample):
    graph_extract_pending(vault_id=sample.pk)
    client = api(sample.owner)
    reply = client.post(
        "/api/chat/", {"vaults": [sample.pk], "message": "What happened in the Redis outage?"}, format="json"
    ).json()
    items = ContextItem.objects.filter(message_id=reply["message"])
    walked = next(i for i in items.order_by("position") if i.trace.get("edges"))
    before = dict(Dependency.objects.filter(vault=sample).values_list("pk", "strength"))

    vote = client.post("/api/feedback/", {"context_item": walked.pk, "signal": "not_relevant"}, format="json")
    assert vote.status_code == 201
    after = dict(Dependency.objects.filter(vault=sample).values_list("pk", "strength"))
    changed = {pk for pk in after if after[pk] != before[pk]}
    assert changed == set(walked.trace["edges"])
    assert all(after[pk] == pytest.approx(before[pk] - 0.01) for pk in changed)
    ledger = WeightChange.objects.filter(feedback_id=vote.json()["id"], target="edge_strength")
    assert set(ledger.values_list("target_id", flat=True)) == changed

    hop = WeightChange.objects.get(feedback_id=vote.json()["id"], target="fact_value")
    assert hop.new < hop.old and walked.trace["mention"]  # the last hop (this fact via this entity) learned too

    again = client.post("/api/feedback/", {"context_item": walked.pk, "signal": "not_relevant"}, format="json")
    assert again.status_code == 200  # the same vote again moves nothing
    assert dict(Dependency.objects.filter(vault=sample).values_list("pk", "strength")) == after


def test_a_confirmed_fact_is_served_higher_when_the_question_comes_again(sample):
    graph_extract_pending(vault_id=sample.pk)
    client = api(sample.owner)
    question = {"vaults": [sample.pk], "message": "What happened in the Redis outage?"}
    first = client.post("/api/chat/", question, format="json").json()
    items = list(ContextItem.objects.filter(message_id=first["message"]).order_by("position"))
    chosen = next(i for i in items[3:] if i.trace.get("mention") and i.probability)
    for signal in ("confirm", "used"):
        assert (
            client.post("/api/feedback/", {"context_item": chosen.pk, "signal": signal}, format="json").status_code
            == 201
        )

    again = client.post("/api/chat/", question, format="json").json()
    rated = list(ContextItem.objects.filter(message_id=again["message"]).order_by("position"))
    same = next(i for i in rated if i.chunk_id == chosen.chunk_id)
    assert same.probability > chosen.probability and same.position < chosen.position


def test_the_same_name_links_two_vaults_only_for_someone_walking_both(owner):
    ours, ops = make_vault(owner, "Ours"), make_vault(owner, "Ops")
    make_note(ours, "Redis.md", "# Redis\nRedis runs on the Hetzner box in Falkenstein for the billing team.\n")
    make_note(ops, "Rota.md", "# Rota\nKafka and Redis share the ops rota run by Priya Raman every week.\n")
    for vault in (ours, ops):
        graph_extract_pending(vault_id=vault.pk)
    redis_ours = Entity.objects.get(vault=ours, key="redis")
    redis_ops = Entity.objects.get(vault=ops, key="redis")

    both, _ = walk(entry=[redis_ours.pk], scope=scope_of([ours.pk, ops.pk]), intent="what", words=["redis"])
    crossing = [p for p in both if p.steps[0].edge == 0]
    assert crossing and all(p.steps[0].target == redis_ops.pk for p in crossing)  # through the same name
    reached = {e for p in crossing for e in p.entities[2:]}
    assert reached and set(Entity.objects.filter(pk__in=reached).values_list("vault_id", flat=True)) == {ops.pk}
    facts = gather(
        paths=crossing,
        scope=scope_of([ours.pk, ops.pk]),
        query_vector=embed_query("Who runs the rota?"),
    )
    assert {Chunk.objects.get(pk=c).vault_id for c in facts} == {ops.pk}

    alone, _ = walk(entry=[redis_ours.pk], scope=scope_of([ours.pk]), intent="what", words=["redis"])
    assert not [p for p in alone if any(s.edge == 0 for s in p.steps)]  # asked of one vault: no crossing
    assert {e.vault_id for e in Entity.objects.filter(pk__in={x for p in alone for x in p.entities})} <= {ours.pk}
