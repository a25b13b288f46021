"""One interface to the embedding model: a registered local model (`apps/llm/local_models.py`, MiniLM by default)
or any litellm embedding model.

The active model is the deployment setting (`DESIREPATH_EMBEDDING_MODEL`) until a switch (`apps/notes/services/
embedding_switch.py`) makes another one active; chunks hold a vector per model and search compares only the active
model's. A local model's weights are checked against their pinned
sha256 before they are loaded.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

from django.conf import settings

from apps.core.local_models import is_local
from apps.llm.local_models import local_model, verify_weights


def current_model() -> str:
    """The active embedding model: the one a completed switch made active, else the deployment setting."""
    from apps.llm.models import EmbeddingModel, EmbeddingState  # models load after this module is first imported

    active = EmbeddingModel.objects.filter(state=EmbeddingState.ACTIVE).values_list("name", flat=True).first()
    return active or str(settings.EMBEDDING_MODEL)


def model_dimensions(name: str) -> int:
    """The size of the vectors `name` returns: the registry's for a local model, the setting's for any other."""
    return local_model(name).dimensions if is_local(name) else int(settings.EMBEDDING_DIMENSIONS)


@functools.cache
def _local_model(name: str) -> Any:
    model = local_model(name)
    verify_weights(model)
    # Heavy imports stay inside: torch + sentence-transformers cost ~5 s at import.
    import torch
    from sentence_transformers import SentenceTransformer

    threads = os.environ.get("DESIREPATH_TORCH_THREADS")
    if threads:
        torch.set_num_threads(int(threads))
    encoder = SentenceTransformer(str(model.folder()), device="cpu")
    encoder.max_seq_length = model.max_tokens
    return encoder


def embed_texts(texts: Sequence[str], *, model: str | None = None) -> list[list[float]]:
    """Embed texts with the configured model; returns one vector per text (normalized for the local model). A
    provider's calls land on the usage ledger; the local model's do not: it runs in this process on every search, and
    a row per query would tell nothing the latency figures do not."""
    if not texts:
        return []
    name = model or current_model()
    if is_local(name):
        encoder = _local_model(name)
        encoded = encoder.encode(
            list(texts),
            batch_size=int(settings.EMBEDDING_BATCH_SIZE),
            normalize_embeddings=True,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        return [vector.tolist() for vector in encoded]
    from apps.llm.gateway import embed_with_provider  # the gateway loads the models, which load after this module

    return embed_with_provider(
        model=name,
        texts=texts,
        batch=int(settings.EMBEDDING_BATCH_SIZE),
        dimensions=int(settings.EMBEDDING_DIMENSIONS),
    )


def embed_query(text: str, *, model: str | None = None) -> list[float]:
    """One query's vector (the active model's by default); recent queries are kept so the significance check and
    search embed it once."""
    return list(_cached_query_vector(text, model or current_model()))


@functools.lru_cache(maxsize=512)
def _cached_query_vector(text: str, model: str) -> tuple[float, ...]:
    return tuple(embed_texts([text], model=model)[0])
