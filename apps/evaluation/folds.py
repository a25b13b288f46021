"""Learning measured so that it cannot fool us: every learning parameter (`apps.graph.learning.Rates`) is chosen
on some conversations and measured on the ones held back, each conversation held back in exactly one fold.

Per conversation the protocol is the learning replay's (`learning.py`): the questions at even positions are asked
and rated, those at odd positions measured before and after. Each grid point's replay runs inside a transaction
that is rolled back, so every point starts from the same freshly imported vault and the import is paid once; the
points that differ only in what is read (the lift cap, the transfer through similar questions) share one replay.
A fold's parameters are the point with the best pooled MRR change on its choosing conversations (the grid's first
point wins ties).

With pointing (`--pick`), the replays are the product's with the asker also pointing to the answer; the product's
values are the grid's first point, measured on every conversation from the same replays."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from apps.evaluation import corpus
from apps.evaluation.learning import paired_bootstrap, replay_moment, replay_rated, scores_of
from apps.evaluation.locomo import Conversation as Dialogue
from apps.graph.learning import Rates, rates_applied

# What the replay writes: the product's rates and a miss weighing a whole hit (the only written parameter folds
# ever chose over the product's). What is read: the cap on a desire path's lift and, for the transfer through
# similar questions, how near a past question must be and how strongly what it taught counts. The replays run with
# the transfer off, so every point rates the same units and the points differ only in what they read.
TRANSFER_OFF: dict[str, Any] = {"question_prior": 0.0, "question_similarity": Rates().question_similarity}
READ = (
    "most_lift",
    "question_similarity",
    "question_prior",
    "question_doors",
    "question_twin_doors",
    "twin_prior",
    "door_prior",
    "door_candidates",
    "demote_before_cut",
)


@dataclass(frozen=True)
class Point:
    """A grid point: the parameters learning reads while measured (`rates`), the parameters the replay learned
    under (`replay`), and whether the simulated asker also pointed to the answer when nothing shown carried it."""

    rates: Rates
    replay: Rates
    pick: bool = False


def _buttons(point: Rates) -> Point:
    """A point of the buttons-only grid: its replay writes with its written parameters, the transfer off."""
    read = {f: getattr(Rates(), f) for f in READ} | TRANSFER_OFF
    return Point(point, replace(point, **read))


WRITTEN = (Rates(**TRANSFER_OFF), Rates(miss_weight=1.0, **TRANSFER_OFF))
LIFT_CAPS = (2.0, 1.5, 3.0)
DESIRE_PATHS = tuple(_buttons(replace(written, most_lift=cap)) for written in WRITTEN for cap in LIFT_CAPS)
QUESTION_SIMILARITIES = (0.55, 0.65, 0.75)
QUESTION_PRIORS = (0.5, 1.0, 2.0)
TRANSFER = tuple(
    _buttons(replace(WRITTEN[0], question_similarity=near, question_prior=prior))
    for near in QUESTION_SIMILARITIES
    for prior in QUESTION_PRIORS
)
GRID = DESIRE_PATHS + TRANSFER

# Pointing (`--pick`): every replay learns under the product's values, the asker pointing to the answer whenever
# nothing shown carried it; the points differ only in what is read when the other half is measured. A pick reaches
# a fact the gate never showed, so what can carry it to a later question is what brings candidates and what joins
# the estimate before the cut. The points: the product's; none of the door reads (no door shared asked of a near
# question, no twins, the doors' lift ordering what passed and bringing no candidate); a near question's hits passed
# on only when it shares one, or two, of the question's doors (near in meaning is mostly not near in evidence;
# sharing a specific term more often is); facts that helped through the question's doors as candidates with the
# doors' lift before the cut; that with the near questions' hits scoped by one shared door; twins (past questions
# sharing three of the question's doors, whatever their nearness in meaning) passing on what they taught as squared
# odds (a near one's count at their square root); and the product's with the near questions' hits scoped by one
# shared door.
PRODUCT = Rates()
NO_DOOR_READS: dict[str, Any] = {"question_doors": 0, "question_twin_doors": 0, "door_prior": 0.0, "door_candidates": 0}
PICK_READS: tuple[dict[str, Any], ...] = (
    {},
    NO_DOOR_READS,
    NO_DOOR_READS | {"question_doors": 1},
    NO_DOOR_READS | {"question_doors": 2},
    NO_DOOR_READS | {"door_prior": 1.0, "door_candidates": 5},
    NO_DOOR_READS | {"door_prior": 1.0, "door_candidates": 5, "question_doors": 1},
    NO_DOOR_READS | {"question_twin_doors": 3, "twin_prior": 2.0},
    {"question_doors": 1},
)
PICK_GRID = tuple(Point(replace(PRODUCT, **read), PRODUCT, pick=True) for read in PICK_READS)


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
    after: dict[Any, list[dict[str, float]]] = field(default_factory=dict)
    votes: list[dict[str, Any]] = field(default_factory=list)  # what each replay rated


def conversation_measure(
    *, user: User, conv: Dialogue, unit: str, grid: tuple[Point, ...] = GRID, tick: Callable[[int], None] | None = None
) -> Measured:
    """Import the conversation once, measure its odd half before learning, then replay and measure at every grid
    point, each replay rolled back."""
    vault = corpus.ingest_conversation(user, conv, unit)
    vault_id = vault.vault.pk
    replayed, measured = conv.questions[0::2], [q for q in conv.questions[1::2] if q.category != 5 and q.evidence]
    seen = {turn for q in replayed for turn in q.evidence}
    with replay_moment():
        result = Measured(
            sample_id=conv.sample_id,
            before=scores_of(user, vault_id, measured, vault.items),
            unshared=[not (set(q.evidence) & seen) for q in measured],
        )
        replays = list(dict.fromkeys((point.replay, point.pick) for point in grid))
        for writes, pick in replays:
            with transaction.atomic():
                with rates_applied(writes):
                    votes = replay_rated(user, vault_id, replayed, vault.items, pick=pick)
                result.votes.append({"pick": pick, **votes})
                for point in (p for p in grid if (p.replay, p.pick) == (writes, pick)):
                    with rates_applied(point.rates):
                        result.after[point] = scores_of(user, vault_id, measured, vault.items)
                    if tick:
                        tick(1)
                transaction.set_rollback(True)  # the next point learns from the same untouched vault
    return result


def _described(point: Any) -> dict[str, Any]:
    """A grid point as the report names it: its rates (and, for a `Point`, whether the asker pointed)."""
    if isinstance(point, Point):
        return {**asdict(point.rates), "pick": point.pick}
    return asdict(point)


def _gain(convs: list[Measured], point: Any) -> float:
    diffs = [a["mrr"] - b["mrr"] for m in convs for a, b in zip(m.after[point], m.before, strict=True)]
    return sum(diffs) / len(diffs) if diffs else 0.0


def chosen_rates(convs: list[Measured], grid: tuple[Any, ...] = GRID) -> Any:
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


def folds_report(convs: list[Measured], k: int, grid: tuple[Any, ...] = GRID) -> dict[str, Any]:
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
                "rates": _described(point),
                "choosing_gain": round(_gain([convs[i] for i in choose], point), 4),
                **_change(before, after, unshared),
            }
        )
    defaults = grid[0]
    return {
        "protocol": "rate even positions, measure odd positions before and after; parameters chosen on the other "
        "conversations",
        "grid": [_described(p) for p in grid],
        "folds": folds,
        "pooled": _change(pooled["before"], pooled["after"], pooled["unshared"]),
        "defaults": _change(
            [r for m in convs for r in m.before],
            [r for m in convs for r in m.after[defaults]],
            [u for m in convs for u in m.unshared],
        ),
        "per_point": [
            {"rates": _described(p), "mrr_gain": {m.sample_id: round(_gain([m], p), 4) for m in convs}} for p in grid
        ],
    }
