"""Scoring arithmetic: what a pipeline ranked and injected, compared with the evidence turns."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from apps.evaluation.locomo import session_of


@dataclass(frozen=True)
class Item:
    """One retrieved context unit: the turns it carries and its size."""

    turns: tuple[str, ...]
    tokens: int


def recall_at(ranking: Sequence[Item], evidence: set[str], k: int) -> float:
    found = {turn for item in ranking[:k] for turn in item.turns} & evidence
    return len(found) / len(evidence)


def hit_at(ranking: Sequence[Item], evidence: set[str], k: int) -> float:
    return 1.0 if any(set(item.turns) & evidence for item in ranking[:k]) else 0.0


def reciprocal_rank(ranking: Sequence[Item], evidence: set[str], depth: int = 50) -> float:
    for rank, item in enumerate(ranking[:depth], start=1):
        if set(item.turns) & evidence:
            return 1.0 / rank
    return 0.0


def session_recall_at(ranking: Sequence[Item], evidence: set[str], k: int) -> float:
    wanted = {session_of(turn) for turn in evidence}
    found = {session_of(turn) for item in ranking[:k] for turn in item.turns} & wanted
    return len(found) / len(wanted)


def injected_figures(injected: Sequence[Item], evidence: set[str]) -> dict[str, float]:
    """Noise is counted per source turn: a unit bundling five turns, one of them evidence, adds four."""
    turns = [turn for item in injected for turn in item.turns]
    return {
        "items": float(len(injected)),
        "source_turns": float(len(turns)),
        "tokens": float(sum(item.tokens for item in injected)),
        "noise": float(sum(1 for turn in turns if turn not in evidence)),
    }


def question_scores(ranking: Sequence[Item], evidence: set[str]) -> dict[str, float]:
    return {
        "recall@5": recall_at(ranking, evidence, 5),
        "recall@10": recall_at(ranking, evidence, 10),
        "hit@10": hit_at(ranking, evidence, 10),
        "mrr": reciprocal_rank(ranking, evidence),
        "session_recall@10": session_recall_at(ranking, evidence, 10),
    }


def mean_of(rows: Iterable[dict[str, float]]) -> dict[str, float]:
    rows = list(rows)
    if not rows:
        return {}
    return {key: round(statistics.fmean(row[key] for row in rows), 4) for key in rows[0]}


def percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p95": 0.0}
    ordered = sorted(values)
    return {
        "p50": round(ordered[len(ordered) // 2], 2),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
    }
