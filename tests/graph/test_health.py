"""Entity health: feedback through an entity adds up; the daily job demotes the sick to the cold tier (walks stop
entering them), queues the under-mapped's notes for extraction, and a manager revives what was demoted."""

from __future__ import annotations

import pytest

from apps.audit.models import AuditEvent
from apps.chat.models import ContextItem
from apps.graph.health import entities_tend
from apps.graph.models import Entity, Extraction, Mention
from apps.graph.services import graph_extract_pending
from apps.graph.tasks import reextract_notes
from apps.graph.traversal import entry_entities
from tests.factories import api, make_note, make_user, scope_of, share
from tests.graph.test_doors import _vault
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db


def test_a_sick_entity_goes_cold_and_a_manager_brings_it_back(owner):
    vault = _vault(owner)
    item = None
    for signal in ("not_relevant", "not_useful", "reject"):  # asked three times: one choice per passage shown
        reply = (
            api(owner)
            .post("/api/chat/", {"vaults": [vault.pk], "message": "What is Grafana used for?"}, format="json")
            .json()
        )
        shown = [i for i in ContextItem.objects.filter(message_id=reply["message"]) if i.trace.get("mention")]
        item = next(i for i in shown if item is None or i.chunk_id == item.chunk_id)
        vote = api(owner).post("/api/feedback/", {"context_item": item.pk, "signal": signal}, format="json")
        assert vote.status_code == 201
    assert item is not None
    entity = Mention.objects.get(pk=item.trace["mention"]).entity

    report = entities_tend(vault_id=vault.pk)

    entity.refresh_from_db()
    assert (entity.health, entity.tier, entity.votes_down, entity.votes_up) == ("sick", "cold", 3, 0)
    assert report["demoted"] >= 1 and report["sick"] >= 1
    assert AuditEvent.objects.filter(action="entity.demote", object_id=str(entity.pk)).exists()
    entry, _ = entry_entities([item.chunk_id], scope_of([vault.pk]))
    assert entity.pk not in entry  # walks no longer enter it
    assert Mention.objects.filter(entity=entity).exists()  # nothing deleted

    reader, outsider = make_user(), make_user()
    share(vault, "reader", user=reader)
    url = f"/api/entities/{entity.pk}/revive/"
    assert api(outsider).post(url).status_code == 404
    assert api(reader).post(url).status_code == 403
    revived = api(owner).post(url)
    assert revived.status_code == 200 and revived.json()["tier"] == "hot"
    assert_matches_schema(revived)
    assert api(owner).post(url).status_code == 400  # not cold any more
    assert entity.pk in entry_entities([item.chunk_id], scope_of([vault.pk]))[0]
    assert AuditEvent.objects.filter(action="entity.revive", object_id=str(entity.pk)).exists()
    entities_tend(vault_id=vault.pk)  # the next daily run: the votes before the revival are spent
    entity.refresh_from_db()
    assert (entity.tier, entity.health, entity.votes_down) == ("hot", "healthy", 0)


def test_an_often_mentioned_barely_connected_entity_is_queued_for_enrichment(owner, vault):
    words = [f"{a}{b}" for a in ("bal", "cor", "dun", "fen", "gil", "hom") for b in ("ak", "el", "ir", "om", "us")]
    sections = [" ".join(f"{w}{i}x{j}" for j in range(12) for w in words[:5]) for i in range(6)]  # nothing repeats
    body = "# Zebra\n\n" + "\n\n".join(f"## Part {i}\n\n{text}." for i, text in enumerate(sections))
    note = make_note(vault, "Zebra.md", body)
    graph_extract_pending(vault_id=vault.pk)
    zebra = Entity.objects.get(vault=vault, key="zebra")
    assert Mention.objects.filter(entity=zebra).count() >= 5

    report = entities_tend(vault_id=vault.pk)

    zebra.refresh_from_db()
    assert zebra.health == "under_mapped" and zebra.tier == "hot" and report["queued_notes"] == 1
    before = Extraction.objects.get(note=note).written_at
    assert reextract_notes([note.pk]) == 1  # what the queued task does in the worker
    assert Extraction.objects.get(note=note).written_at > before
