"""Pre-warming (DESIGN, "Learning": paths walked at a given time are pre-warmed then): a question a person keeps
asking at the same hour has its context ready before they ask.

- Burn-in: every day on which a person's confirm or used lands on the units of a question asked at an hour is one
  `QuestionRhythm` row (the question normalised, with the exact vaults it read). A question has burned in at an
  hour when that happened on at least 3 distinct days of the last 28 (a daily habit), or on the same weekday at
  that hour on at least 2 of them (a weekly habit: pre-warmed on that weekday only).
- Pre-warm: shortly before each hour the worker runs the chat's own retrieval and gate (no deep research, no
  answer) for every question burned in at the coming hour, as its person with their permissions at that moment
  (vaults they can no longer read are left out), walking as the hour will (`scored_as_of`), and keeps the rated
  chunk ids and their traces until the hour ends.
- Use: a question asked with the same normalised text over the same vaults, before the expiry, gets that context
  instead of a search. The chunks are read again through the permission-scoped loader; units of a vault no longer
  readable or of a passage gone cold or deleted drop out, and if one that survived the gate is among them the
  context is stale and the chat searches afresh."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from apps.chat.models import PrewarmedContext, QuestionRhythm
from apps.graph.rhythm import scored_as_of
from apps.notes.models import Chunk
from apps.research.run import context_for
from apps.retrieval.candidates import load_chunks
from apps.retrieval.gate import GateResult, Rated
from apps.retrieval.trace import Trace, stored
from apps.vaults.chat_settings import parse as parse_settings
from apps.vaults.chat_settings import strictest
from apps.vaults.models import Vault
from apps.vaults.scope import Scope, readable_scope

logger = logging.getLogger(__name__)

WINDOW_DAYS = 28  # the evidence a habit is judged on; older rows are pruned
DAILY_DAYS = 3  # distinct days at the hour
WEEKLY_DAYS = 2  # distinct days on the same weekday at the hour
LEAD = timedelta(minutes=15)  # the job runs at :50; the hour it prepares is the one starting within this lead
MAX_PER_HOUR = 500  # questions one run prepares

_BURNED_IN = """
WITH burned AS (
    SELECT user_id, vault_ids, key FROM chat_questionrhythm
    WHERE hour = %(hour)s AND day >= %(since)s
    GROUP BY user_id, vault_ids, key
    HAVING count(DISTINCT day) >= %(daily)s
        OR count(DISTINCT day) FILTER (WHERE extract(isodow FROM day) = %(weekday)s) >= %(weekly)s
)
SELECT DISTINCT ON (q.user_id, q.vault_ids, q.key) q.user_id, q.vault_ids, q.key, q.text
FROM chat_questionrhythm q JOIN burned b USING (user_id, vault_ids, key)
WHERE q.hour = %(hour)s AND q.day >= %(since)s
ORDER BY q.user_id, q.vault_ids, q.key, q.day DESC
LIMIT %(limit)s
"""


def question_key(text: str) -> str:
    """A question's identity across days: case, spacing and the closing punctuation do not matter."""
    normalised = " ".join(text.lower().split()).rstrip("?!. ")
    return hashlib.sha256(normalised.encode()).hexdigest()


def question_rhythm_record(*, user: User, vault_ids: list[int], question: str, at: datetime) -> None:
    """A confirm or used landed on the units of `question`, asked at `at` over `vault_ids`: one day of evidence
    at that hour (a second signal the same day and hour adds nothing)."""
    if not question.strip() or not vault_ids:
        return
    local = timezone.localtime(at)
    key = question_key(question)
    day = QuestionRhythm(
        user=user, vault_ids=sorted(vault_ids), key=key, text=question, day=local.date(), hour=local.hour
    )
    QuestionRhythm.objects.bulk_create([day], ignore_conflicts=True)


def hour_ahead(now: datetime) -> datetime:
    """The local hour a run at `now` prepares: the one starting within LEAD (or already begun)."""
    return timezone.localtime(now + LEAD).replace(minute=0, second=0, microsecond=0)


def burned_in(hour: datetime) -> list[tuple[int, list[int], str, str]]:
    """(user, vaults, key, text as last asked) of every question burned in at `hour`'s hour and weekday."""
    params: dict[str, Any] = {
        "hour": hour.hour,
        "since": hour.date() - timedelta(days=WINDOW_DAYS),
        "daily": DAILY_DAYS,
        "weekday": hour.isoweekday(),
        "weekly": WEEKLY_DAYS,
        "limit": MAX_PER_HOUR,
    }
    with connection.cursor() as cursor:
        cursor.execute(_BURNED_IN, params)
        return [(int(u), [int(v) for v in vaults], key, text) for u, vaults, key, text in cursor.fetchall()]


def prewarm_hour(*, now: datetime | None = None) -> int:
    """Prepare the context of every question burned in at the coming hour; drops what expired and evidence older
    than the window. Returns the questions prepared."""
    now = now or timezone.now()
    hour = hour_ahead(now)
    PrewarmedContext.objects.filter(expires_at__lte=now).delete()
    QuestionRhythm.objects.filter(day__lt=hour.date() - timedelta(days=WINDOW_DAYS)).delete()
    questions = burned_in(hour)
    users = get_user_model().objects.filter(pk__in={q[0] for q in questions}, is_active=True).in_bulk()
    prepared = 0
    for user_id, vault_ids, key, text in questions:
        if user_id not in users:
            continue
        try:
            row = prewarm_question(user=users[user_id], vault_ids=vault_ids, key=key, text=text, hour=hour, now=now)
        except Exception:  # one question's failure must not keep the others cold
            logger.exception("pre-warming question %s of user %s failed", key[:12], user_id)
            continue
        prepared += row is not None
    return prepared


def prewarm_question(
    *, user: User, vault_ids: list[int], key: str, text: str, hour: datetime, now: datetime
) -> PrewarmedContext | None:
    """The chat's retrieval and gate for one question, as `user` may read now, kept until `hour` ends; None when
    none of its vaults is readable any more."""
    scope = readable_scope(user).within(vault_ids)
    if not scope:
        return None
    cfg = strictest(parse_settings(v.chat_settings) for v in scope.filter(Vault.objects.all(), "pk"))
    models = {slot: cfg.model_for(slot) for slot in ("scoring", "reasoning")}
    with scored_as_of(hour):  # the walk scores paths as the hour it prepares for will
        result, _run = context_for(
            user=user, question=text, scope=scope, threshold=cfg.gate_threshold, models=models, deep_research=False
        )
    row, _ = PrewarmedContext.objects.update_or_create(
        user=user,
        vault_ids=list(scope.vault_ids),
        key=key,
        defaults={
            "threshold": result.threshold,
            "scoring": models["scoring"],
            "model": result.model,
            "items": _items(result),
            "notes": result.notes,
            "ready_at": now,
            "expires_at": hour + timedelta(hours=1),
        },
    )
    return row


def _items(result: GateResult) -> list[dict[str, Any]]:
    shown = {id(r) for r in result.survivors}
    return [
        {
            "chunk": r.candidate.chunk,
            "rank": r.candidate.rank,
            "similarity": r.candidate.similarity,
            "score": r.score,
            "probability": r.probability,
            "survived": id(r) in shown,
            "trace": stored(r.candidate.trace),
            # a constraint is shown as its rule, not its chunk's text
            "text": r.candidate.text if r.candidate.trace and r.candidate.trace.constraint else None,
        }
        for r in result.rated
    ]


def prewarmed_context(
    *, user: User, question: str, scope: Scope, threshold: int, scoring: str, now: datetime | None = None
) -> GateResult | None:
    """The context prepared for `user`'s `question` over exactly `scope` and still fresh, its chunks read again
    from the vaults of `scope` they may read now (units of any other drop out); None when there is none, it was
    prepared under other settings, or a unit that survived the gate is gone (stale: search afresh)."""
    now = now or timezone.now()
    row = PrewarmedContext.objects.filter(
        user=user,
        vault_ids=list(scope.vault_ids),
        key=question_key(question),
        threshold=threshold,
        scoring=scoring,
        ready_at__lte=now,
        expires_at__gt=now,
    ).first()
    if row is None:
        return None
    readable = readable_scope(user).within(scope.vault_ids)
    chunks = [i["chunk"] for i in row.items]
    loaded = {c.chunk: c for c in load_chunks(chunks=chunks, query_vector=None, scope=readable)}
    live = set(readable.filter(Chunk.objects.filter(pk__in=loaded, tier="hot")).values_list("pk", flat=True))
    if any(i["survived"] and i["chunk"] not in live for i in row.items):
        return None
    rated, survivors = [], []
    for item in row.items:
        if item["chunk"] not in live:
            continue
        unit = replace(
            loaded[item["chunk"]],
            rank=item["rank"],
            similarity=item["similarity"],
            text=item["text"] or loaded[item["chunk"]].text,
            trace=replace(Trace.parse(item["trace"]), prewarmed=True),
        )
        rated.append(Rated(unit, item["score"], item["probability"]))
        if item["survived"]:
            survivors.append(rated[-1])
    return GateResult(rated, survivors, row.threshold, row.model, notes=list(row.notes))
