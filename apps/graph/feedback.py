"""Feedback lands on the path that produced a context unit (DESIGN, "Learning"):

- `not_relevant`: routing failed — the edges that carried it weaken (0.01) and their learned value counts a miss;
- `not_useful`: the content is bad — the node it came from weakens;
- `confirm` / `used`: the path strengthens and its learned value counts a hit; a confirm may lift each edge one
  step up the confidence ladder;
- the last hop (the fact reached through an entity's mention) learns its own value the same way, so a path can
  learn which of its entity's facts help; so does the desire path from each of the question's doors (its
  specific terms, `apps.graph.doors`) straight to the fact, and so does each edge at the hour and weekday the
  question was asked (`apps.graph.rhythm`); a fact that helped also opens the doors' paths, at half a hit, to the
  turns next to it in its conversation (the answer to a question is often the turn after the one confirmed);
- `reject` / `correct`: the path weakens, one step down the ladder.
Only edges of the unit's own vault move: a trace can never reach another vault's weights."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from apps.graph.conversation import neighbours_of
from apps.graph.doors import MAX_DOORS
from apps.graph.learning import (
    DELIBERATE,
    Moved,
    confidence_step,
    door_value_record,
    fact_value_record,
    path_value_record,
    weight_adjust,
)
from apps.graph.models import Dependency, Entity, Mention
from apps.graph.rhythm import rhythm_values_record
from apps.notes.models import Chunk
from apps.retrieval.trace import Trace

UP = {"confirm", "used"}
NEIGHBOUR = 0.5  # a hit on a turn counts half a hit for the turns beside it
DOWN = {"not_relevant", "reject", "correct"}


def paths_learn(
    *,
    vault_id: int,
    trace: Trace,
    signal: str,
    feedback_id: int | None,
    weight: float = 1.0,
    source: str = "feedback",
    chunk_id: int | None = None,
    reason: str | None = None,
    at: datetime | None = None,
) -> list[Moved]:
    """Apply one signal to the path in `trace`; every change with its ledger row. `weight` scales the step
    (1.0 for a person's signal; automatic signals pass a smaller one); `at` is when the path was walked (the
    question's time; now if not given), for the rhythm values."""
    intent = trace.intent or "what"
    edges = list(  # in id order: concurrent votes on paths that share edges lock them in the same order
        Dependency.objects.filter(pk__in=trace.edges, vault_id=vault_id).order_by("pk").values_list("pk", flat=True)
    )
    step = DELIBERATE * weight
    moved: list[Moved | None] = []
    reason = reason or f"{signal} on a context unit"
    if signal in UP or signal in DOWN:
        helped = signal in UP
        for edge in edges:
            moved.append(
                weight_adjust(
                    target="edge_strength",
                    target_id=edge,
                    delta=step if helped else -step,
                    source=source,
                    reason=reason,
                    feedback_id=feedback_id,
                )
            )
            moved.append(
                path_value_record(
                    vault_id=vault_id,
                    intent=intent,
                    edge_id=edge,
                    helped=helped,
                    weight=weight,
                    source=source,
                    reason=reason,
                    feedback_id=feedback_id,
                )
            )
            moved.extend(
                rhythm_values_record(
                    vault_id=vault_id,
                    edge_id=edge,
                    at=at or timezone.now(),
                    helped=helped,
                    weight=weight,
                    source=source,
                    reason=reason,
                    feedback_id=feedback_id,
                )
            )
            if signal in ("confirm", "reject", "correct") and source == "feedback":
                moved.append(
                    confidence_step(edge_id=edge, up=helped, source=source, reason=reason, feedback_id=feedback_id)
                )
        mention = Mention.objects.filter(pk=trace.mention or 0, vault_id=vault_id).values_list("pk", flat=True)
        for hop in mention:  # the last hop: this fact, reached through this entity
            moved.append(
                fact_value_record(
                    vault_id=vault_id,
                    intent=intent,
                    mention_id=hop,
                    helped=helped,
                    weight=weight,
                    source=source,
                    reason=reason,
                    feedback_id=feedback_id,
                )
            )
        fact = list(Chunk.objects.filter(pk=chunk_id or 0, vault_id=vault_id).values_list("note_id", "content_hash"))
        doors = _doors(trace)
        paths = {(door, *f): (weight, reason) for f in fact for door in doors}  # doors → this fact
        if helped and fact and chunk_id and doors:
            beside = f"{reason} (the turn next to it)"
            for f in neighbours_of(chunk_id=chunk_id, vault_id=vault_id):
                for door in doors:
                    paths.setdefault((door, *f), (weight * NEIGHBOUR, beside))  # the fact's own hit stands
        asks = (trace.asks or "other")[:16]
        for (door, note_id, content_hash), (share, why) in sorted(paths.items()):  # one lock order for every vote
            moved.append(
                door_value_record(
                    vault_id=vault_id,
                    asks=asks,
                    door=door,
                    note_id=note_id,
                    content_hash=content_hash,
                    helped=helped,
                    weight=share,
                    source=source,
                    reason=why,
                    feedback_id=feedback_id,
                )
            )
    elif signal == "not_useful":
        node = Entity.objects.filter(pk__in=trace.entities[-1:], vault_id=vault_id).values_list("pk", flat=True).first()
        if node is not None:
            moved.append(
                weight_adjust(
                    target="entity_strength",
                    target_id=node,
                    delta=-step,
                    source=source,
                    reason=reason,
                    feedback_id=feedback_id,
                )
            )
    return [m for m in moved if m is not None]


def _doors(trace: Trace) -> list[str]:
    return sorted({d for d in trace.doors if 0 < len(d) <= 100})[:MAX_DOORS]
