"""The only way a weight changes: one atomic, clamped UPDATE with its ledger row in the same transaction.

The UPDATE locks the row it reads the old value from, so concurrent adjustments of one edge serialise and each
ledger row records the value it actually moved from and to (after clamping): for every edge, its initial strength
plus the ledger's deltas is its strength."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from apps.graph.models import LADDER, STRENGTH_MAX, STRENGTH_MIN, Dependency, Reason, WeightChange

DELIBERATE = 0.01  # a person's signal
AUTOMATIC = 0.00001  # co-occurrence, a later search
MISS_WEIGHT = 0.25  # a miss counts a quarter of a hit: one question's noise is often another's answer
NEIGHBOUR = 0.5  # a hit on a turn counts half a hit for the turns beside it
# What desire paths learned moves a fact at most one hit's worth (odds ×2, the Beta(1, 1) mean after one confirm):
# a question's doors all carry the same vote, and several of them, or several votes, say "this helped before", not
# "this answers now" (the cap was chosen leave-one-conversation-out; docs/evaluation.md).
MOST_LIFT = 2.0
DECAY_STEP = 0.001  # a day's fading for an edge nobody walked
# A past rated question this close in meaning (cosine) passes on what its rated units taught (`apps.graph.questions`)
# as odds raised to QUESTION_PRIOR (0 turns the transfer off). Stronger priors cost MRR on LoCoMo dev, where most
# near questions share no evidence; at half strength the transfer neither helped nor hurt (docs/evaluation.md).
QUESTION_SIMILARITY = 0.75
QUESTION_PRIOR = 0.5
# How many of the new question's doors a near question must share to pass on what helped it (its rejections demote
# whatever it shares); a question with fewer doors asks for all it has. The product asks for none: a paraphrase in a
# vault of notes often words the topic with other rare terms ("hold the offsite" for "go for the offsite"), and it
# must still inherit what was picked for the first wording.
QUESTION_DOORS = 0
# A past rated question sharing at least QUESTION_TWIN_DOORS of the new question's doors asks about the same thing
# however far apart the two are in meaning (a question about one person and its twin about another sit far apart
# for the embedding model): what it taught counts whole, as odds within the lift cap raised to TWIN_PRIOR, for its
# hits and its rejections alike. 0 turns twins off.
QUESTION_TWIN_DOORS = 3
TWIN_PRIOR = 2.0
# What the desire paths from the question's doors learned joins the gate's estimate before the cut as odds raised
# to DOOR_PRIOR (0: it only orders what passed), and up to DOOR_CANDIDATES facts that helped through the doors come
# as candidates where search did not bring them: feedback reaches a passage the gate would not have shown.
DOOR_PRIOR = 1.0
DOOR_CANDIDATES = 5
# A learned factor below 1 (a fact rejected for a near question, or through the same doors) joins the estimate
# before the cut, so it can drop a fact the gate would have passed.
DEMOTE_BEFORE_CUT = True


@dataclass(frozen=True)
class Rates:
    """Every parameter the learners read, in one place, so an evaluation can choose them on some conversations
    and measure them on others (`rates_applied`). The defaults are the product's; the clamps [0.05, 0.95] are
    the database's constraint and are not among them."""

    deliberate: float = DELIBERATE
    miss_weight: float = MISS_WEIGHT
    neighbour: float = NEIGHBOUR
    most_lift: float = MOST_LIFT
    decay_step: float = DECAY_STEP
    question_similarity: float = QUESTION_SIMILARITY
    question_prior: float = QUESTION_PRIOR
    question_doors: int = QUESTION_DOORS
    question_twin_doors: int = QUESTION_TWIN_DOORS
    twin_prior: float = TWIN_PRIOR
    door_prior: float = DOOR_PRIOR
    door_candidates: int = DOOR_CANDIDATES
    demote_before_cut: bool = DEMOTE_BEFORE_CUT


PRODUCT_RATES = Rates()
_RATES: ContextVar[Rates | None] = ContextVar("learning_rates", default=None)


def rates() -> Rates:
    """The learning parameters in force (the product's unless an evaluation applied others)."""
    return _RATES.get() or PRODUCT_RATES


@contextmanager
def rates_applied(chosen: Rates) -> Iterator[None]:
    """Learn and rank with `chosen` inside the block (this thread or task only)."""
    token = _RATES.set(chosen)
    try:
        yield
    finally:
        _RATES.reset(token)


_TABLES = {"edge_strength": ("graph_dependency", "strength"), "entity_strength": ("graph_entity", "strength")}


@dataclass(frozen=True)
class Moved:
    target: str
    target_id: int
    old: float
    new: float


def _clamped_update(table: str, column: str, row_id: int, delta: float) -> tuple[int, float, float] | None:
    sql = f"""
        UPDATE {table} AS t SET {column} = LEAST(%(hi)s, GREATEST(%(lo)s, old.{column} + %(delta)s))
        FROM (SELECT id, {column} FROM {table} WHERE id = %(id)s FOR UPDATE) AS old
        WHERE t.id = old.id
        RETURNING t.vault_id, old.{column}, t.{column}
    """  # noqa: S608 - table and column come from the fixed map above
    with connection.cursor() as cursor:
        cursor.execute(sql, {"hi": STRENGTH_MAX, "lo": STRENGTH_MIN, "delta": delta, "id": row_id})
        row = cursor.fetchone()
    return (int(row[0]), float(row[1]), float(row[2])) if row else None


def weight_adjust(
    *, target: str, target_id: int, delta: float, source: str, reason: str, feedback_id: int | None = None
) -> Moved | None:
    """Move an edge's or an entity's strength by `delta`, clamped to [0.05, 0.95], and log it; None if the row
    is gone."""
    table, column = _TABLES[target]
    with transaction.atomic():
        moved = _clamped_update(table, column, target_id, delta)
        if moved is None:
            return None
        vault_id, old, new = moved
        WeightChange.objects.create(
            vault_id=vault_id,
            source=source,
            target=target,
            target_id=target_id,
            old=old,
            new=new,
            delta=new - old,
            reason=reason[:300],
            feedback_id=feedback_id,
        )
    return Moved(target, target_id, old, new)


ANY_INTENT = "any"  # rhythm values learn across intents
_VALUES = {
    "path_value": ("graph_pathvalue", ("edge_id",)),
    "fact_value": ("graph_factvalue", ("mention_id",)),
    "door_value": ("graph_doorvalue", ("door", "note_id", "content_hash")),
    "rhythm_value": ("graph_rhythmvalue", ("edge_id", "slot")),  # written through `apps.graph.rhythm`
    "question_value": ("graph_questionvalue", ("question_id", "note_id", "content_hash")),
}


@dataclass(frozen=True)
class Outcome:
    """One verdict on something walked, and who gave it: what every learned value counts. `weight` scales it (1.0
    for a person's signal; automatic signals pass a smaller one)."""

    helped: bool
    weight: float
    source: str
    reason: str
    feedback_id: int | None = None


def path_value_record(*, vault_id: int, intent: str, edge_id: int, outcome: Outcome) -> Moved:
    """Count one outcome of walking `edge_id` for `intent`; the value is the Beta(1, 1) mean of the outcomes
    (a miss weighs a quarter of a hit)."""
    return _value_record("path_value", vault_id, intent, (edge_id,), outcome)


def fact_value_record(*, vault_id: int, intent: str, mention_id: int, outcome: Outcome) -> Moved:
    """The same for the last hop: a fact reached through an entity's mention."""
    return _value_record("fact_value", vault_id, intent, (mention_id,), outcome)


def door_value_record(*, vault_id: int, asks: str, door: str, fact: tuple[int, str], outcome: Outcome) -> Moved:
    """The same for a desire path from a question's door (a specific term) straight to a fact (its note and
    content hash), for questions that ask for `asks` (`apps.core.text.asked_for`)."""
    return _value_record("door_value", vault_id, asks, (door, *fact), outcome)


def rhythm_value_record(*, vault_id: int, edge_id: int, slot: str, outcome: Outcome) -> Moved:
    """The same for an edge at an hour of the day or a day of the week (`apps.graph.rhythm`)."""
    return _value_record("rhythm_value", vault_id, ANY_INTENT, (edge_id, slot), outcome)


def question_value_record(*, vault_id: int, question_id: int, fact: tuple[int, str], outcome: Outcome) -> Moved:
    """The same for a fact (its note and content hash) shown for a rated question (`apps.graph.questions`)."""
    return _value_record("question_value", vault_id, ANY_INTENT, (question_id, *fact), outcome)


def _value_record(target: str, vault_id: int, intent: str, key: tuple[object, ...], outcome: Outcome) -> Moved:
    table, columns = _VALUES[target]
    params: dict[str, Any] = {"vault": vault_id, "intent": intent, **{f"k{i}": v for i, v in enumerate(key)}}
    names = ", ".join(columns)
    values = ", ".join(f"%(k{i})s" for i in range(len(columns)))
    match = " AND ".join(f"{c} = %(k{i})s" for i, c in enumerate(columns))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"""INSERT INTO {table} (vault_id, intent, {names}, value, helped, failed)
            VALUES (%(vault)s, %(intent)s, {values}, 0.5, 0, 0)
            ON CONFLICT (vault_id, intent, {names}) DO NOTHING""",  # noqa: S608 - names from the fixed map
            params,
        )
        cursor.execute(
            f"""UPDATE {table} AS p
            SET helped = old.helped + %(up)s, failed = old.failed + %(down)s,
                value = (1 + old.helped + %(up)s) / (2 + old.helped + %(up)s + old.failed + %(down)s)
            FROM (SELECT id, helped, failed, value FROM {table}
                  WHERE vault_id = %(vault)s AND intent = %(intent)s AND {match} FOR UPDATE) AS old
            WHERE p.id = old.id
            RETURNING p.id, old.value, p.value""",  # noqa: S608 - names from the fixed map
            {**params, **_counts(outcome)},
        )
        row_id, old, new = cursor.fetchone()
        moved = _ledgered(vault_id, target, row_id, intent, old, new, outcome)  # in the update's transaction
    return moved


def value_uncount(*, target: str, row_id: int, outcome: Outcome) -> Moved | None:
    """Take one outcome back from the learned value `row_id` (a row an earlier ledger entry of `target` moved): the
    counts lose what the outcome added and the value is the mean of what is left; None if the row is gone."""
    table, _ = _VALUES[target]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            f"""UPDATE {table} AS p
            SET helped = GREATEST(0, old.helped - %(up)s), failed = GREATEST(0, old.failed - %(down)s),
                value = (1 + GREATEST(0, old.helped - %(up)s))
                      / (2 + GREATEST(0, old.helped - %(up)s) + GREATEST(0, old.failed - %(down)s))
            FROM (SELECT id, helped, failed, value FROM {table} WHERE id = %(id)s FOR UPDATE) AS old
            WHERE p.id = old.id
            RETURNING p.vault_id, p.intent, old.value, p.value""",  # noqa: S608 - names from the fixed map
            {"id": row_id, **_counts(outcome)},
        )
        row = cursor.fetchone()
        if row is None:
            return None
        vault_id, intent, old, new = row
        moved = _ledgered(vault_id, target, row_id, intent, old, new, outcome)  # in the update's transaction
    return moved


def _counts(outcome: Outcome) -> dict[str, float]:
    """What one outcome adds to a value's hits and misses."""
    if outcome.helped:
        return {"up": outcome.weight, "down": 0.0}
    return {"up": 0.0, "down": outcome.weight * rates().miss_weight}


def confidence_step(
    *, edge_id: int, up: bool, source: str, reason: str, feedback_id: int | None = None
) -> Moved | None:
    """Move an edge one step up or down the reason ladder (user-asserted stays where it is)."""
    ladder = sorted(LADDER.items(), key=lambda kv: kv[1])
    with transaction.atomic():
        edge = Dependency.objects.select_for_update().filter(pk=edge_id).first()
        if edge is None or edge.reason == Reason.USER_ASSERTED:
            return None
        position = next(i for i, (reason_, _) in enumerate(ladder) if reason_ == edge.reason)
        step = min(position + 1, len(ladder) - 2) if up else max(position - 1, 0)  # user-asserted is a person's
        if step == position:
            return None
        new_reason, new_confidence = ladder[step]
        old = edge.confidence
        Dependency.objects.filter(pk=edge_id).update(reason=new_reason, confidence=new_confidence)
        WeightChange.objects.create(
            vault_id=edge.vault_id,
            source=source,
            target="edge_confidence",
            target_id=edge_id,
            old=old,
            new=new_confidence,
            delta=new_confidence - old,
            reason=f"{reason} ({edge.reason} → {new_reason})"[:300],
            feedback_id=feedback_id,
        )
    return Moved("edge_confidence", edge_id, old, new_confidence)


DECAY_AFTER_DAYS = 14
DECAY_BATCH = 10_000


def edges_decay(*, now: datetime | None = None) -> int:
    """Paths not walked fade slowly: every edge not walked for two weeks (or never, and older than that) loses
    0.001 of strength, down to the floor, each move on the ledger as `decay`. Returns the edges moved."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=DECAY_AFTER_DAYS)
    stale = Dependency.objects.filter(strength__gt=STRENGTH_MIN).filter(
        Q(last_walked_at__lt=cutoff) | Q(last_walked_at__isnull=True, created_at__lt=cutoff)
    )
    moved = 0
    for edge_id in stale.order_by("id").values_list("pk", flat=True)[:DECAY_BATCH]:
        if weight_adjust(
            target="edge_strength",
            target_id=edge_id,
            delta=-rates().decay_step,
            source="decay",
            reason=f"not walked for {DECAY_AFTER_DAYS} days",
        ):
            moved += 1
    return moved


def _ledgered(vault_id: int, target: str, row_id: int, intent: str, old: float, new: float, outcome: Outcome) -> Moved:
    """One learned value's move, on the ledger under the outcome's source, reason and vote."""
    WeightChange.objects.create(
        vault_id=vault_id,
        source=outcome.source,
        target=target,
        target_id=row_id,
        intent=intent,
        old=old,
        new=new,
        delta=new - old,
        reason=outcome.reason[:300],
        feedback_id=outcome.feedback_id,
    )
    return Moved(target, row_id, old, new)
