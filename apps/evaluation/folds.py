"""Learning measured so that it cannot fool us: every learning parameter (`apps.graph.learning.Rates`) is chosen
on some conversations and measured on the ones held back, each conversation held back in exactly one fold.

Per conversation the protocol is the learning replay's (`learning.py`): the questions at even positions are asked
and rated, those at odd positions measured before and after. Each grid point's replay runs inside a transaction
that is rolled back, so every point starts from the same freshly imported vault and the import is paid once; the
points that differ only in what is read (the lift cap, the transfer through similar questions) share one replay.
A fold's parameters are the point with the best pooled MRR change on its choosing conversations (the grid's first
point wins ties)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from apps.evaluation import corpus
from apps.evaluation.learning import paired_bootstrap, replay_rated, scores_of
from apps.evaluation.locomo import Conversation as Dialogue
from apps.graph.learning import Rates, rates_applied

# What the replay writes: the product's rates and a miss weighing a whole hit (the only written parameter folds
# ever chose over the product's). What is read: the cap on a desire path's lift and, for the transfer through
# similar questions, how near a past question must be and how strongly what it taught counts. The replays run with
# the transfer off, so every point rates the same units and the points differ only in what they read.
TRANSFER_OFF = {"question_prior": 0.0, "question_similarity": Rates().question_similarity}
WRITTEN = (Rates(**TRANSFER_OFF), Rates(miss_weight=1.0, **TRANSFER_OFF))
LIFT_CAPS = (2.0, 1.5, 3.0)
DESIRE_PATHS = tuple(replace(written, most_lift=cap) for written in WRITTEN for cap in LIFT_CAPS)
QUESTION_SIMILARITIES = (0.55, 0.65, 0.75)
QUESTION_PRIORS = (0.5, 1.0, 2.0)
TRANSFER = tuple(
    replace(WRITTEN[0], question_similarity=near, question_prior=prior)
    for near in QUESTION_SIMILARITIES
    for prior in QUESTION_PRIORS
)
GRID = DESIRE_PATHS + TRANSFER


def _written(point: Rates) -> Rates:
    """The replay a grid point reads from: its written parameters, with what is only read at the defaults."""
    return replace(point, most_lift=Rates().most_lift, **TRANSFER_OFF)


def conversation_folds(count: int, k: int) -> list[tuple[list[int], list[int]]]:
    """`k` folds over `count` conversations as (choose, measure) index lists: each conversation is measured in
    exactly one fold and never chosen on in that fold."""
    if not 2 <= k <= count:
        raise ValueError(f"folds must be between 2 and the number of conversations ({count})")
    held = [list(range(count))[i::k] for i in range(k)]
    return [([c for c in range(count) if c not in measure], measure) for measure in held]


@dataclass
class Measured:
    """One conversation's measured half: its rows before learning, after learning at each grid point, and which
    questions share no evidence turn with the rated half."""

    sample_id: str
    before: list[dict[str, float]]
    unshared: list[bool]
    after: dict[Rates, list[dict[str, float]]] = field(default_factory=dict)


def conversation_measure(
    *, user: User, conv: Dialogue, unit: str, grid: tuple[Rates, ...] = GRID, tick: Callable[[int], None] | None = None
) -> Measured:
    """Import the conversation once, measure its odd half before learning, then replay and measure at every grid
    point, each replay rolled back."""
    vault = corpus.ingest_conversation(user, conv, unit)
    vault_id = vault.vault.pk
    replayed, measured = conv.questions[0::2], [q for q in conv.questions[1::2] if q.category != 5 and q.evidence]
    seen = {turn for q in replayed for turn in q.evidence}
    result = Measured(
        sample_id=conv.sample_id,
        before=scores_of(user, vault_id, measured, vault.items),
        unshared=[not (set(q.evidence) & seen) for q in measured],
    )
    written = list(dict.fromkeys(_written(point) for point in grid))
    for writes in written:
        with transaction.atomic():
            with rates_applied(writes):
                replay_rated(user, vault_id, replayed, vault.items)
            for point in (p for p in grid if _written(p) == writes):
                with rates_applied(point):
                    result.after[point] = scores_of(user, vault_id, measured, vault.items)
                if tick:
                    tick(1)
            transaction.set_rollback(True)  # the next point learns from the same untouched vault
    return result


def _gain(convs: list[Measured], point: Rates) -> float:
    diffs = [a["mrr"] - b["mrr"] for m in convs for a, b in zip(m.after[point], m.before, strict=True)]
    return sum(diffs) / len(diffs) if diffs else 0.0


def chosen_rates(convs: list[Measured], grid: tuple[Rates, ...] = GRID) -> Rates:
    """The grid point with the best pooled MRR change on these conversations; the first point (the product's
    defaults) wins ties."""
    best = grid[0]
    for point in grid[1:]:
        if _gain(convs, point) > _gain(convs, best) + 1e-9:
            best = point
    return best


def _change(before: list[dict[str, float]], after: list[dict[str, float]], unshared: list[bool]) -> dict[str, Any]:
    alone = [i for i, u in enumerate(unshared) if u]

    def figures(rows_before: list[dict[str, float]], rows_after: list[dict[str, float]]) -> dict[str, Any]:
        return {
            "questions": len(rows_before),
            "mrr": _pair(rows_before, rows_after, "mrr"),
            "recall@10": _pair(rows_before, rows_after, "recall@10"),
        }

    return {
        "all": figures(before, after),
        "unshared": figures([before[i] for i in alone], [after[i] for i in alone]),
    }


def _pair(before: list[dict[str, float]], after: list[dict[str, float]], metric: str) -> dict[str, Any]:
    xs, ys = [r[metric] for r in before], [r[metric] for r in after]
    mean = lambda v: round(sum(v) / len(v), 4) if v else 0.0  # noqa: E731 - a one-line helper
    return {"before": mean(xs), "after": mean(ys), "change": paired_bootstrap(xs, ys)}


def folds_report(convs: list[Measured], k: int, grid: tuple[Rates, ...] = GRID) -> dict[str, Any]:
    """Per fold: the parameters chosen on the other conversations and the change they make on the held-back ones;
    pooled over the folds (each measured question once); and the product's defaults on every conversation, from
    the same replays, for reference."""
    folds = []
    pooled: dict[str, list[Any]] = {"before": [], "after": [], "unshared": []}
    for choose, measure in conversation_folds(len(convs), k):
        point = chosen_rates([convs[i] for i in choose], grid)
        before = [r for i in measure for r in convs[i].before]
        after = [r for i in measure for r in convs[i].after[point]]
        unshared = [u for i in measure for u in convs[i].unshared]
        pooled["before"] += before
        pooled["after"] += after
        pooled["unshared"] += unshared
        folds.append(
            {
                "chosen_on": [convs[i].sample_id for i in choose],
                "measured_on": [convs[i].sample_id for i in measure],
                "rates": asdict(point),
                "choosing_gain": round(_gain([convs[i] for i in choose], point), 4),
                **_change(before, after, unshared),
            }
        )
    defaults = grid[0]
    return {
        "protocol": "rate even positions, measure odd positions before and after; parameters chosen on the other "
        "conversations",
        "grid": [asdict(p) for p in grid],
        "folds": folds,
        "pooled": _change(pooled["before"], pooled["after"], pooled["unshared"]),
        "defaults": _change(
            [r for m in convs for r in m.before],
            [r for m in convs for r in m.after[defaults]],
            [u for m in convs for u in m.unshared],
        ),
        "per_point": [
            {"rates": asdict(p), "mrr_gain": {m.sample_id: round(_gain([m], p), 4) for m in convs}} for p in grid
        ],
    }
