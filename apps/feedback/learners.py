"""Feedback lands on the path that produced a context unit (DESIGN, "Learning"):

- `not_relevant`: routing failed — the edges that carried it weaken (0.01) and their learned value counts a miss;
- `not_useful`: the content is bad — the node it came from weakens;
- `confirm` / `used`: the path strengthens and its learned value counts a hit; a confirm may lift each edge one
  step up the confidence ladder;
- the last hop (the fact reached through an entity's mention) learns its own value the same way, so a path can
  learn which of its entity's facts help; so does the desire path from each of the question's doors (its
  specific terms, `apps.graph.doors`) straight to the fact, and so does each edge at the hour and weekday the
  question was asked (`apps.graph.rhythm`); a fact that helped also opens the doors' paths, at half a hit, to the
  turns next to it in its conversation (the answer to a question is often the turn after the one confirmed); and
  so does the fact for the question itself, which questions near it in meaning inherit (`apps.graph.questions`);
- `reject` / `correct`: the path weakens, one step down the ladder.
Only edges of the unit's own vault move: a trace can never reach another vault's weights.

A vote taken back (undone, or replaced by the person's later choice) is unlearned from its own ledger rows, not
by walking the path again: the path, the doors or the passage may have changed since, and the rows say exactly
what it moved. Each reversal is a new ledger row naming the same vote; nothing is deleted."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from django.db.models import Sum
from django.utils import timezone

from apps.graph.conversation import neighbours_of
from apps.graph.doors import MAX_DOORS
from apps.graph.learning import (
    Moved,
    Outcome,
    confidence_step,
    door_value_record,
    fact_value_record,
    path_value_record,
    rates,
    value_uncount,
    weight_adjust,
)
from apps.graph.models import Dependency, Entity, LedgerSource, Mention, WeightChange
from apps.graph.questions import question_learn
from apps.graph.rhythm import rhythm_values_record
from apps.notes.models import Chunk
from apps.retrieval.trace import Trace

UP = {"confirm", "used"}
DOWN = {"not_relevant", "reject", "correct"}
BESIDE = " (the turn next to it)"  # the reason's mark on a desire path to a neighbour, learned at a fraction
STRENGTHS = ("edge_strength", "entity_strength")
TAKEN_BACK = "taken back: "  # how the ledger marks the rows that reverse a vote


@dataclass(frozen=True)
class Vote:
    """A signal on a context unit, its weight (1.0 for a person's; automatic signals pass a smaller one), who gave
    it, when the path was walked (the question's time, for the rhythm values; now if not given) and the question
    as it was searched (for the questions near it; none for a signal no question carries)."""

    signal: str
    feedback_id: int | None = None
    weight: float = 1.0
    source: str = "feedback"
    reason: str | None = None
    at: datetime | None = None
    question: str = ""


def paths_learn(*, vault_id: int, trace: Trace, chunk_id: int | None, vote: Vote) -> list[Moved]:
    """Apply one vote to the path in `trace` that brought `chunk_id`; every change with its ledger row."""
    reason = vote.reason or f"{vote.signal} on a context unit"
    moved: list[Moved | None] = []
    if vote.signal in UP or vote.signal in DOWN:
        outcome = Outcome(vote.signal in UP, vote.weight, vote.source, reason, vote.feedback_id)
        intent = trace.intent or "what"
        moved += _edges_learn(vault_id, trace, intent, outcome, vote)
        moved += _last_hop_learn(vault_id, trace, intent, outcome)
        moved += _doors_learn(vault_id, trace, chunk_id, outcome)
        moved.append(question_learn(vault_id=vault_id, question=vote.question, chunk_id=chunk_id, outcome=outcome))
    elif vote.signal == "not_useful":
        moved.append(_node_weaken(vault_id, trace, vote, reason))
    return [m for m in moved if m is not None]


def paths_unlearn(*, feedback_id: int, signal: str, why: str) -> list[Moved]:
    """Take back what a person's vote `feedback_id` (of `signal`, as it was learned) taught, from its ledger rows:
    each strength moves back by what the vote moved it, each step on the confidence ladder is stepped back, and
    each learned value loses the outcome it counted. Every reversal is a ledger row with the same vote, its reason
    "taken back: `why`"; a vote already taken back moves nothing."""
    rows = WeightChange.objects.filter(feedback_id=feedback_id, source=LedgerSource.FEEDBACK)
    if rows.filter(reason__startswith=TAKEN_BACK).exists():
        return []
    reason = f"{TAKEN_BACK}{why}"
    moved: list[Moved | None] = []
    net = rows.filter(target__in=STRENGTHS).values("target", "target_id").annotate(total=Sum("delta"))
    for row in net.order_by("target", "target_id"):  # one lock order for every reversal
        if abs(row["total"]) > 1e-12:
            moved.append(
                weight_adjust(
                    target=row["target"],
                    target_id=row["target_id"],
                    delta=-row["total"],
                    source=LedgerSource.FEEDBACK,
                    reason=reason,
                    feedback_id=feedback_id,
                )
            )
    steps: dict[int, int] = {}
    for edge, delta in rows.filter(target="edge_confidence").values_list("target_id", "delta"):
        steps[edge] = steps.get(edge, 0) + (1 if delta > 0 else -1)
    for edge, net_steps in sorted(steps.items()):
        for _ in range(abs(net_steps)):
            moved.append(
                confidence_step(
                    edge_id=edge, up=net_steps < 0, source=LedgerSource.FEEDBACK, reason=reason, feedback_id=feedback_id
                )
            )
    if signal in UP or signal in DOWN:
        values = rows.exclude(target__in=(*STRENGTHS, "edge_confidence")).order_by("id")
        for target, row_id, learned in values.values_list("target", "target_id", "reason"):
            weight = rates().neighbour if learned.endswith(BESIDE) else 1.0
            outcome = Outcome(signal in UP, weight, LedgerSource.FEEDBACK, reason, feedback_id)
            moved.append(value_uncount(target=target, row_id=row_id, outcome=outcome))
    return [m for m in moved if m is not None]


def _edges_learn(vault_id: int, trace: Trace, intent: str, outcome: Outcome, vote: Vote) -> list[Moved | None]:
    """Each edge of the path: its strength, its learned value for this intent and at this time, and (for a
    person's confirm, reject or correction) its place on the confidence ladder."""
    edges = list(  # in id order: concurrent votes on paths that share edges lock them in the same order
        Dependency.objects.filter(pk__in=trace.edges, vault_id=vault_id).order_by("pk").values_list("pk", flat=True)
    )
    step = rates().deliberate * outcome.weight
    ladder = vote.signal in ("confirm", "reject", "correct") and outcome.source == "feedback"
    moved: list[Moved | None] = []
    for edge in edges:
        moved.append(
            weight_adjust(
                target="edge_strength",
                target_id=edge,
                delta=step if outcome.helped else -step,
                source=outcome.source,
                reason=outcome.reason,
                feedback_id=outcome.feedback_id,
            )
        )
        moved.append(path_value_record(vault_id=vault_id, intent=intent, edge_id=edge, outcome=outcome))
        moved += rhythm_values_record(vault_id=vault_id, edge_id=edge, at=vote.at or timezone.now(), outcome=outcome)
        if ladder:
            moved.append(
                confidence_step(
                    edge_id=edge,
                    up=outcome.helped,
                    source=outcome.source,
                    reason=outcome.reason,
                    feedback_id=outcome.feedback_id,
                )
            )
    return moved


def _last_hop_learn(vault_id: int, trace: Trace, intent: str, outcome: Outcome) -> list[Moved]:
    """The last hop: this fact, reached through this entity's mention."""
    mention = Mention.objects.filter(pk=trace.mention or 0, vault_id=vault_id).values_list("pk", flat=True)
    return [fact_value_record(vault_id=vault_id, intent=intent, mention_id=hop, outcome=outcome) for hop in mention]


def _doors_learn(vault_id: int, trace: Trace, chunk_id: int | None, outcome: Outcome) -> list[Moved]:
    """The desire paths from the question's doors to this fact, and (when it helped) at half a hit to the turns
    beside it; the fact's own hit stands where a turn is both."""
    fact = list(Chunk.objects.filter(pk=chunk_id or 0, vault_id=vault_id).values_list("note_id", "content_hash"))
    doors = _doors(trace)
    paths = {(door, *f): outcome for f in fact for door in doors}
    if outcome.helped and fact and chunk_id and doors:
        beside = replace(outcome, weight=outcome.weight * rates().neighbour, reason=f"{outcome.reason}{BESIDE}")
        for f in neighbours_of(chunk_id=chunk_id, vault_id=vault_id):
            for door in doors:
                paths.setdefault((door, *f), beside)
    asks = (trace.asks or "other")[:16]
    return [  # one lock order for every vote
        door_value_record(vault_id=vault_id, asks=asks, door=door, fact=(note_id, content_hash), outcome=share)
        for (door, note_id, content_hash), share in sorted(paths.items(), key=lambda kv: kv[0])
    ]


def _node_weaken(vault_id: int, trace: Trace, vote: Vote, reason: str) -> Moved | None:
    """The content was bad: the entity the unit came from weakens."""
    node = Entity.objects.filter(pk__in=trace.entities[-1:], vault_id=vault_id).values_list("pk", flat=True).first()
    if node is None:
        return None
    return weight_adjust(
        target="entity_strength",
        target_id=node,
        delta=-rates().deliberate * vote.weight,
        source=vote.source,
        reason=reason,
        feedback_id=vote.feedback_id,
    )


def _doors(trace: Trace) -> list[str]:
    return sorted({d for d in trace.doors if 0 < len(d) <= 100})[:MAX_DOORS]
