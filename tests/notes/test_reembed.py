"""Changing the embedding model: `reembed` gives every chunk a vector of the new model, search uses only those,
and `--drop` removes the old model's."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from apps.notes.models import ChunkVector
from apps.notes.vectors import chunks_without_vector, vector_index_exists
from tests.factories import api, make_note

pytestmark = pytest.mark.django_db


NOTES = {
    "kitchen/focaccia.md": "# Focaccia\nRosemary flatbread: a hot oven, olive oil and coarse salt.",
    "garden/tomatoes.md": "# Tomatoes\nStake the plants and water them at the roots every morning.",
    "ops/backups.md": "# Backups\nThe database is dumped nightly and the dump is copied to another machine.",
}


def test_reembed_moves_every_chunk_to_the_configured_model(vault, settings):
    for path, body in NOTES.items():
        make_note(vault, path, body)
    settings.EMBEDDING_MODEL = "local/all-mpnet-base-v2"
    client = api(vault.owner)
    query = {"q": "rosemary flatbread oven", "k": 3, "vault": vault.pk}
    before = client.get("/api/search/", query).json()["results"]
    assert before and all(hit["sources"] == ["keyword"] for hit in before)  # old vectors are not compared

    out = io.StringIO()
    call_command("reembed", "--vault", str(vault.pk), stdout=out, stderr=io.StringIO())

    assert "chunks embedded with local/all-mpnet-base-v2" in out.getvalue()
    assert not chunks_without_vector("local/all-mpnet-base-v2").filter(vault=vault).exists()
    after = client.get("/api/search/", query).json()["results"]
    assert any("vector" in hit["sources"] for hit in after)
    assert after[0]["path"] == "kitchen/focaccia.md"

    call_command("reembed", "--drop", "local/all-MiniLM-L6-v2", stdout=out, stderr=io.StringIO())
    assert set(ChunkVector.objects.values_list("model", flat=True)) == {"local/all-mpnet-base-v2"}
    assert not vector_index_exists("local/all-MiniLM-L6-v2")
    assert client.get("/api/search/", query).json()["results"] == after
