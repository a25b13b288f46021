"""Switching the deployment's embedding model without a gap in search.

The new model's vectors are written beside the active model's, batch by batch (each batch commits), by a Celery
task; search keeps reading the active model's vectors meanwhile and never the new model's, whose index grows as
they arrive. When no chunk lacks a vector of the new model, one transaction retires the old model and activates
the new one. A task cut short (a killed worker) leaves its committed batches; run again, it continues with the
chunks still lacking a vector. Chunks written during the build get the active model's vector; the build's last
pass picks them up, and any written after the swap wait for the ordinary embedding sweep.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.core import row_security
from apps.core.local_models import is_local
from apps.core.queue import queue_after_commit
from apps.llm.embeddings import current_model
from apps.llm.local_models import local_model, verify_weights
from apps.llm.models import EmbeddingModel, EmbeddingState
from apps.notes.models import Chunk, ChunkVector
from apps.notes.services.chunks import chunks_embed_pending
from apps.notes.vectors import chunks_without_vector, vector_index_ensure, vectors_drop

BUILD_BATCH = 64


@dataclass(frozen=True)
class SwitchProgress:
    model: str
    state: str  # building, active, retired, or "" for a model never switched to
    embedded: int  # chunks holding a vector of this model
    total: int  # chunks


def embedding_switch_start(*, model: str, background: bool = True) -> EmbeddingModel:
    """Start building `model`'s vectors (its weights are checked first), on the workers unless `background` is off
    (the caller runs `embedding_switch_build` itself); idempotent."""
    if is_local(model):
        verify_weights(local_model(model))
    active = current_model()
    with transaction.atomic():
        if not EmbeddingModel.objects.filter(state=EmbeddingState.ACTIVE).exists():
            EmbeddingModel.objects.update_or_create(name=active, defaults={"state": EmbeddingState.ACTIVE})
        if model == active:
            return EmbeddingModel.objects.get(name=active)
        target, _ = EmbeddingModel.objects.update_or_create(name=model, defaults={"state": EmbeddingState.BUILDING})
        if background:
            from apps.notes.tasks import embedding_switch_build

            queue_after_commit(embedding_switch_build, model, fallback="`manage.py embedding_switch` continues it")
    return target


def embedding_switch_build(*, model: str, batch: int = BUILD_BATCH, batches: int | None = None) -> SwitchProgress:
    """Embed the chunks lacking a vector of `model`, a batch per transaction, then swap atomically. `batches` stops
    after that many (the CLI's progress); a model no longer building is left alone."""
    vector_index_ensure(model)
    done = 0
    while batches is None or done < batches:
        if not EmbeddingModel.objects.filter(name=model, state=EmbeddingState.BUILDING).exists():
            break
        with transaction.atomic():
            embedded = chunks_embed_pending(batch=batch, limit=batch, model=model)
            EmbeddingModel.objects.filter(name=model).update(heartbeat_at=timezone.now())
        if not embedded and _swap(model):
            break
        done += 1  # chunks written since the last batch are the next batch
    return embedding_switch_progress(model=model)


def embedding_switches_recover(*, stale_after: float | None = None) -> int:
    """Builds whose worker was lost (no batch committed for `stale_after` seconds, EMBEDDING_SWITCH_STALE_SECONDS):
    queued again, to go on with the chunks still lacking a vector. Returns how many were."""
    seconds = float(settings.EMBEDDING_SWITCH_STALE_SECONDS if stale_after is None else stale_after)
    cutoff = timezone.now() - timedelta(seconds=seconds)
    quiet = Q(heartbeat_at__lte=cutoff) | Q(heartbeat_at=None, started_at__lte=cutoff)
    stale = Q(state=EmbeddingState.BUILDING) & quiet
    from apps.notes.tasks import embedding_switch_build as build_task

    resumed = 0
    for name in EmbeddingModel.objects.filter(stale).values_list("name", flat=True):
        with transaction.atomic():
            target = EmbeddingModel.objects.select_for_update(skip_locked=True).filter(stale, name=name).first()
            if target is None:  # another sweep has it, or its build moved on meanwhile
                continue
            target.heartbeat_at = timezone.now()
            target.save(update_fields=["heartbeat_at"])
            queue_after_commit(build_task, name, fallback="the next sweep queues it again")
            resumed += 1
    return resumed


@transaction.atomic
def _swap(model: str) -> bool:
    target = EmbeddingModel.objects.select_for_update().filter(name=model, state=EmbeddingState.BUILDING).first()
    if target is None or chunks_without_vector(model).exists():
        return False
    EmbeddingModel.objects.filter(state=EmbeddingState.ACTIVE).update(state=EmbeddingState.RETIRED)
    target.state, target.activated_at = EmbeddingState.ACTIVE, timezone.now()
    target.save(update_fields=["state", "activated_at"])
    return True


@row_security.as_system("an embedding switch's progress is counted over every passage")
def embedding_switch_progress(*, model: str, vault_id: int | None = None) -> SwitchProgress:
    """How far `model`'s vectors are, over every chunk or over one vault's (the caller may read that vault)."""
    state = EmbeddingModel.objects.filter(name=model).values_list("state", flat=True).first() or ""
    if not state and model == current_model():
        state = EmbeddingState.ACTIVE
    vectors, chunks = ChunkVector.objects.filter(model=model), Chunk.objects.all()
    if vault_id is not None:
        vectors, chunks = vectors.filter(vault_id=vault_id), chunks.filter(vault_id=vault_id)
    return SwitchProgress(model=model, state=str(state), embedded=vectors.count(), total=chunks.count())


def embedding_switches(*, vault_id: int | None = None) -> list[SwitchProgress]:
    """Every model the deployment knows, the active one first."""
    active = current_model()
    names = [active, *EmbeddingModel.objects.exclude(name=active).order_by("name").values_list("name", flat=True)]
    return [embedding_switch_progress(model=name, vault_id=vault_id) for name in names]


def embedding_model_remove(*, model: str) -> int:
    """Drop a model's vectors and index (never the active model's); returns how many vectors went."""
    if model == current_model():
        raise ValueError(f"{model} is the active embedding model: switch to another one before removing it")
    with transaction.atomic():
        EmbeddingModel.objects.filter(name=model).delete()
        return vectors_drop(model)
