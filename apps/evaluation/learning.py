"""Is learning measurable? Per conversation, the questions at even positions are replayed as a user would use
the product — asked through the `full` context path, the shown units stored as a chat turn's context items, and
rated through the feedback service the API uses (confirm for units that carry an evidence turn, not relevant for
the others) with the production rates — and the questions at odd positions are measured before and after.
`unshared` are the measured questions whose evidence shares no turn with the replayed half's evidence.

With `explore`, each replayed question is a session of its own and gets its explorer unit, rated like the rest
(confirm when it carries evidence); the figures then say what exploration cost the measured half and how many of
the bridges it proposed were promoted (confirmed twice) and then carried evidence to a measured question."""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from apps.chat.models import Conversation, Message, Role, Status
from apps.chat.services.chat import context_items_store
from apps.evaluation import corpus
from apps.evaluation.locomo import Conversation as Dialogue
from apps.evaluation.locomo import Question
from apps.evaluation.metrics import Item, mean_of, question_scores
from apps.feedback.services.votes import answer_pick, feedback_record
from apps.graph.context import context_for
from apps.graph.explore import explore_around
from apps.graph.models import Dependency, DependencyKind
from apps.graph.rhythm import scored_as_of, scoring_moment
from apps.graph.traversal import MIN_CONFIDENCE
from apps.retrieval.context import asked
from apps.retrieval.gate import GateResult, Rated
from apps.retrieval.significance import significance
from apps.vaults.scope import Scope, scope_for

BOOTSTRAP = 2000


@functools.lru_cache(maxsize=8192)
def _embedded(user_id: int, vault_id: int, text: str) -> tuple[str, Scope, tuple[float, ...]]:
    """A question asked again (before, after, at every parameter tried) is validated, scoped and embedded once."""
    clean, scope, vector = asked(user=User.objects.get(pk=user_id), question=text, vault_ids=[vault_id])
    return clean, scope, tuple(vector)


@contextmanager
def replay_moment() -> Iterator[None]:
    """A replayed conversation's questions carry no time of day: inside this block each is asked, rated and measured
    at the moment the block opens. Otherwise a replay that runs across the hour would learn its first votes at one
    hour and be measured at the next, where the rhythm values (`apps.graph.rhythm`) take back what those votes
    taught, and the same run would give different figures by the clock."""
    with scored_as_of(timezone.now()):
        yield


def ask_full(user: User, vault_id: int, text: str) -> GateResult | None:
    """What `full` (chat's graph context path) gives for the question, or None when it is not worth a search."""
    if not significance(text).significant:
        return None
    clean, scope, vector = _embedded(user.pk, vault_id, text)
    return context_for(text=clean, vector=list(vector), scope=scope, user=user)


def ranked(result: GateResult | None, items: dict[int, Item]) -> list[Item]:
    """The units `full` injected that carry a turn, in the order it injected them."""
    survivors = [r for r in result.survivors if r.candidate.chunk in items] if result else []
    return [items[r.candidate.chunk] for r in survivors]


def answer_rate(
    user: User,
    conversation: Conversation,
    vault_id: int,
    q: Question,
    items: dict[int, Item],
    shown: list[Rated],
    *,
    pick: bool = False,
) -> Counter[str]:
    """Store what was shown as an answer's context and rate each unit as the asker would with the gold evidence
    at hand (confirm for a unit carrying an evidence turn, not relevant for the others), through the API's
    feedback service. With `pick`, when nothing shown carries evidence the asker also points to the first passage
    that does ("This answers it")."""
    asked_message = Message.objects.create(conversation=conversation, role=Role.USER, text=q.text, vault_ids=[vault_id])
    answer = Message.objects.create(
        conversation=conversation,
        role=Role.ASSISTANT,
        status=Status.COMPLETE,
        reply_to=asked_message,
        vault_ids=[vault_id],
        resolved_query=q.text,
    )
    # asked at the moment walks score for: votes are counted at their answer's time (`replay_moment`)
    Message.objects.filter(pk__in=[asked_message.pk, answer.pk]).update(created_at=scoring_moment())
    votes: Counter[str] = Counter()
    for item in context_items_store(answer, shown, shown):
        turns = set(items[item.chunk_id].turns) if item.chunk_id in items else set()
        signal = "confirm" if turns & set(q.evidence) else "not_relevant"
        feedback_record(user=user, item_id=item.pk, signal=signal)
        votes[signal] += 1
        if item.speculative:
            votes[f"explorer_{signal}"] += 1
    if pick and not votes["confirm"]:
        carrying = next((c for c, unit in sorted(items.items()) if set(unit.turns) & set(q.evidence)), None)
        if carrying is not None:
            answer_pick(user=user, message_id=answer.pk, chunk_id=carrying)
            votes["answers"] += 1
    return votes


def scores_of(
    user: User, vault_id: int, questions: list[Question], items: dict[int, Item], walked: set[int] | None = None
) -> list[dict[str, float]]:
    """Each question's metrics; `walked` collects the edges of the units that delivered evidence."""
    rows = []
    for q in questions:
        result = ask_full(user, vault_id, q.text)
        rows.append(question_scores(ranked(result, items), set(q.evidence)))
        if walked is not None and result:
            for r in result.survivors:
                if r.candidate.chunk not in items:
                    continue
                if set(items[r.candidate.chunk].turns) & set(q.evidence):
                    walked.update(r.candidate.trace.edges if r.candidate.trace else ())
    return rows


def replay_rated(
    user: User,
    vault_id: int,
    questions: list[Question],
    items: dict[int, Item],
    *,
    scout: bool = False,
    pick: bool = False,
) -> Counter[str]:
    """Ask, show, rate: one chat turn per question, feedback through the API's service."""
    conversation = Conversation.objects.create(owner=user, title="learning replay")
    votes: Counter[str] = Counter()
    for q in questions:
        result = ask_full(user, vault_id, q.text)
        shown = list(result.survivors) if result else []
        unit = explore_around(result, q.text, scope_for(user, [vault_id])) if scout and result else None
        shown += [unit] if unit else []
        votes.update(answer_rate(user, conversation, vault_id, q, items, shown, pick=pick))
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
    *,
    user: User,
    conversations: list[Dialogue],
    unit: str,
    tick: Callable[[int], None] | None = None,
    scout: bool = False,
    pick: bool = False,
) -> dict[str, Any]:
    before: list[dict[str, float]] = []
    after: list[dict[str, float]] = []
    unshared: list[bool] = []
    votes: Counter[str] = Counter()
    bridges = {"promoted": 0, "promoted_carried_evidence": 0}
    for conv in conversations:
        vault = corpus.ingest_conversation(user, conv, unit)
        replayed, measured = conv.questions[0::2], [q for q in conv.questions[1::2] if q.category != 5 and q.evidence]
        seen = {turn for q in replayed for turn in q.evidence}
        unshared += [not (set(q.evidence) & seen) for q in measured]
        walked: set[int] = set()
        with replay_moment():
            before += scores_of(user, vault.vault.pk, measured, vault.items)
            votes.update(replay_rated(user, vault.vault.pk, replayed, vault.items, scout=scout, pick=pick))
            after += scores_of(user, vault.vault.pk, measured, vault.items, walked)
        promoted = set(
            Dependency.objects.filter(
                vault_id=vault.vault.pk, kind=DependencyKind.BRIDGE, confidence__gte=MIN_CONFIDENCE
            ).values_list("pk", flat=True)
        )
        bridges["promoted"] += len(promoted)
        bridges["promoted_carried_evidence"] += len(promoted & walked)
        if tick:
            tick(1)
    alone = [i for i, u in enumerate(unshared) if u]
    return {
        "pipeline": "full",
        "explorers": scout,
        "pointing": pick,
        "measured_questions": len(before),
        "votes": dict(votes),
        "bridges": bridges,
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
