"""Any litellm embedding model by setting: a scripted OpenAI-compatible server on 127.0.0.1 (real HTTP)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import pytest

from apps.llm.embeddings import embed_texts
from apps.notes.models import ChunkVector
from tests.factories import make_note
from tests.scripted_openai import Script, scripted_server

DIMS = 384


def _vector(text: str) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    raw = [((digest[i % 32] + i) % 17) - 8.0 for i in range(DIMS)]
    norm = sum(x * x for x in raw) ** 0.5
    return [x / norm for x in raw]


@pytest.fixture
def provider(settings, monkeypatch) -> Iterator[Script]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    with scripted_server(Script(embed=_vector)) as script:
        settings.EMBEDDING_MODEL = "openai/house-embedder"
        settings.EMBEDDING_API_BASE = script.base_url
        yield script


@pytest.mark.django_db  # the active model is read from the database
def test_a_litellm_model_embeds_through_the_same_interface(provider, settings):
    vectors = embed_texts(["alpha", "beta"])
    assert [len(v) for v in vectors] == [DIMS, DIMS]
    assert vectors[0] == pytest.approx(_vector("alpha"), abs=1e-6)
    assert [r["body"]["input"] for r in provider.requests] == [["alpha", "beta"]]


@pytest.mark.django_db
def test_chunks_record_the_provider_model_and_wrong_sizes_are_refused(provider, vault, settings):
    note = make_note(vault, "Provider.md", "# Provider\nembedded elsewhere")
    assert set(ChunkVector.objects.filter(note=note).values_list("model", flat=True)) == {"openai/house-embedder"}
    settings.EMBEDDING_DIMENSIONS = 768
    with pytest.raises(ValueError, match="another size"):
        embed_texts(["gamma"])
