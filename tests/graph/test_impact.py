"""What depends on X, by depth; and any context unit pulled open into its sources and its path."""

from __future__ import annotations

import pytest

from apps.chat.models import ContextItem
from apps.graph.services import graph_extract_pending
from tests.factories import api, make_note, make_user, make_vault
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db


def test_what_depends_on_an_entity_grouped_by_depth(vault):
    make_note(vault, "Redis.md", "# Redis\nThe broker.\n")
    make_note(vault, "Job Queue.md", "# Job Queue\nThe job queue is built on [[Redis]].\n")
    make_note(vault, "Nightly Import.md", "# Nightly Import\nRuns through the [[Job Queue]].\n")
    make_note(vault, "Garden.md", "# Garden\nBasil and tomatoes; nothing to do with Redis.\n")
    graph_extract_pending(vault_id=vault.pk)
    client = api(vault.owner)

    response = client.get(f"/api/vaults/{vault.pk}/impact/", {"entity": "redis"})
    assert_matches_schema(response)
    body = response.json()
    assert body["entity"]["name"] == "Redis"
    assert [[e["name"] for e in level["entities"]] for level in body["levels"]] == [["Job Queue"], ["Nightly Import"]]
    assert body["levels"][0]["entities"][0]["via"]["kind"] == "links_to"  # a co-mention is not a dependency

    assert client.get(f"/api/vaults/{vault.pk}/impact/").status_code == 400
    assert client.get(f"/api/vaults/{vault.pk}/impact/", {"entity": "Nothing Here"}).status_code == 404
    stranger = api(make_user("not-a-member"))
    assert stranger.get(f"/api/vaults/{vault.pk}/impact/", {"entity": "redis"}).status_code == 404


def test_a_context_unit_expands_into_its_sources_for_its_owner_only(sample):
    graph_extract_pending(vault_id=sample.pk)
    client = api(sample.owner)
    reply = client.post(
        "/api/chat/", {"vaults": [sample.pk], "message": "What happened in the Redis outage?"}, format="json"
    ).json()
    item = next(i for i in ContextItem.objects.filter(message_id=reply["message"]) if i.trace.get("edges"))
    response = client.get(f"/api/context-items/{item.pk}/expand/")
    assert_matches_schema(response)
    body = response.json()
    assert body["sources"][0]["chunk"] == item.chunk_id and body["sources"][0]["text"]
    assert {e["id"] for e in body["path"]["edges"]} == set(item.trace["edges"])
    assert [e["id"] for e in body["path"]["entities"]] == item.trace["entities"]

    other = make_user("someone-else")
    make_vault(other, "Other")
    assert api(other).get(f"/api/context-items/{item.pk}/expand/").status_code == 404
