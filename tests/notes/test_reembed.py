"""Changing the embedding model: `reembed` re-embeds every chunk, and search uses only the new model's vectors."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from apps.notes.models import Chunk
from tests.factories import api

pytestmark = pytest.mark.django_db


def test_reembed_moves_every_chunk_to_the_configured_model(sample, settings):
    settings.EMBEDDING_MODEL = "local/all-MiniLM-L6-v2-retrained"
    client = api(sample.owner)
    before = client.get("/api/search/", {"q": "rosemary flatbread oven", "k": 3}).json()["results"]
    assert before and all(hit["sources"] == ["keyword"] for hit in before)  # old vectors are not compared

    out = io.StringIO()
    call_command("reembed", stdout=out, stderr=io.StringIO())

    assert "chunks embedded with local/all-MiniLM-L6-v2-retrained" in out.getvalue()
    assert set(Chunk.objects.values_list("embedding_model", flat=True)) == {"local/all-MiniLM-L6-v2-retrained"}
    after = client.get("/api/search/", {"q": "rosemary flatbread oven", "k": 3}).json()["results"]
    assert any("vector" in hit["sources"] for hit in after)
    assert "kitchen/focaccia.md" in [hit["path"] for hit in after]
