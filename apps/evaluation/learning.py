"""Is learning measurable? Per conversation, the questions at even positions are replayed as a user would use
the product — asked through the `full` context path, the shown units stored as a chat turn's context items, and
rated through the feedback service the API uses (confirm for units that carry an evidence turn, not relevant for
the others) with the production rates — and the questions at odd positions are measured before and after.
`unshared` are the measured questions whose evidence shares no turn with the replayed half's evidence."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from apps.chat.models import Conversation, Message, Role, Status
from apps.chat.services.chat import context_items_store
from apps.chat.services.feedback import feedback_record
from apps.evaluation import corpus
from apps.evaluation.locomo import Conversation as Dialogue
from apps.evaluation.locomo import Question
from apps.evaluation.metrics import Item, mean_of, question_scores
from apps.graph.context import graph_context
from apps.retrieval.significance import significance

BOOTSTRAP = 2000


def _ask(user: Any, vault_id: int, text: str) -> list[Any]:
    if not significance(text).significant:
        return []
    return graph_context(user=user, question=text, vault_ids=[vault_id]).survivors


def _scores(user: Any, vault_id: int, questions: list[Question], items: dict[int, Item]) -> list[dict[str, float]]:
    rows = []
    for q in questions:
        ranking = [items[r.candidate.chunk] for r in _ask(user, vault_id, q.text) if r.candidate.chunk in items]
        rows.append(question_scores(ranking, set(q.evidence)))
    return rows


def _replay(user: Any, vault_id: int, questions: list[Question], items: dict[int, Item]) -> dict[str, int]:
    """Ask, show, rate: one chat turn per question, feedback through the API's service."""
    conversation = Conversation.objects.create(owner=user, title="learning replay")
    votes = {"confirm": 0, "not_relevant": 0}
    for q in questions:
        result_survivors = _ask(user, vault_id, q.text)
        asked = Message.objects.create(conversation=conversation, role=Role.USER, text=q.text, vault_ids=[vault_id])
        answer = Message.objects.create(
            conversation=conversation, role=Role.ASSISTANT, status=Status.COMPLETE, reply_to=asked,
            vault_ids=[vault_id], resolved_query=q.text,
        )  # fmt: skip
        for item in context_items_store(answer, result_survivors, result_survivors):
            turns = set(items[item.chunk_id].turns) if item.chunk_id in items else set()
            signal = "confirm" if turns & set(q.evidence) else "not_relevant"
            feedback_record(user=user, item_id=item.pk, signal=signal)
            votes[signal] += 1
    return votes


def paired_bootstrap(before: list[float], after: list[float], seed: int = 7) -> dict[str, float]:
    """Mean difference (after − before) with a 95% percentile interval over resampled questions."""
    diffs = [a - b for a, b in zip(after, before, strict=True)]
    if not diffs:
        return {"mean": 0.0, "low": 0.0, "high": 0.0}
    rng = random.Random(seed)  # noqa: S311 - a reproducible resample, not a secret
    n = len(diffs)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(BOOTSTRAP))
    return {
        "mean": round(sum(diffs) / n, 4),
        "low": round(means[int(0.025 * BOOTSTRAP)], 4),
        "high": round(means[int(0.975 * BOOTSTRAP) - 1], 4),
    }


def run_learning(
    *, user: Any, conversations: list[Dialogue], unit: str, tick: Callable[[int], None] | None = None
) -> dict[str, Any]:
    before: list[dict[str, float]] = []
    after: list[dict[str, float]] = []
    unshared: list[bool] = []
    votes = {"confirm": 0, "not_relevant": 0}
    for conv in conversations:
        vault = corpus.ingest_conversation(user, conv, unit)
        replayed, measured = conv.questions[0::2], [q for q in conv.questions[1::2] if q.category != 5 and q.evidence]
        seen = {turn for q in replayed for turn in q.evidence}
        unshared += [not (set(q.evidence) & seen) for q in measured]
        before += _scores(user, vault.vault.pk, measured, vault.items)
        for signal, n in _replay(user, vault.vault.pk, replayed, vault.items).items():
            votes[signal] += n
        after += _scores(user, vault.vault.pk, measured, vault.items)
        if tick:
            tick(1)
    alone = [i for i, u in enumerate(unshared) if u]
    return {
        "pipeline": "full",
        "measured_questions": len(before),
        "votes": votes,
        "before": mean_of(before),
        "after": mean_of(after),
        "mrr_change": paired_bootstrap([r["mrr"] for r in before], [r["mrr"] for r in after]),
        "unshared": {
            "questions": len(alone),
            "before": mean_of(before[i] for i in alone),
            "after": mean_of(after[i] for i in alone),
            "mrr_change": paired_bootstrap([before[i]["mrr"] for i in alone], [after[i]["mrr"] for i in alone]),
        },
    }
