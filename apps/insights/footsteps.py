"""Footsteps and detection, the first steps of discovery, in the worker and without a model.

A footstep is a visit to a note: pulled into an answer (a context item that passed the gate) or linked from another
note. Collecting reads both from what the product already stores, so it backfills itself and running it again adds
nothing twice; a link counts from when its source note's content last changed (the time it was written).

Detection (daily) scores every note of a vault: `spike` (the last day's footsteps against the note's own daily
average over the four weeks before, both plus one, so a note never visited before counts from one), `freshness`
(halves every week since its last visit) and `variety` (distinct questions and notes that visited it that day).
Score = ln(spike) · freshness · ln(1 + variety), zero for a note the day did not raise. A note is a candidate when
its score is above the vault's mean + 2σ over every note (so the bar rises as the vault's traffic grows) and its
spike is at least `SPIKE_MIN` (traffic spread evenly over a month is a habit, not news)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from apps.insights.models import Footstep, NoveltyCandidate
from apps.notes.models import Note, Tier

BASELINE_DAYS = 28
FRESHNESS_HALF_LIFE_DAYS = 7.0
SPIKE_MIN = 3.0
BAR_SIGMAS = 2.0

_FROM_ANSWERS = """
INSERT INTO insights_footstep (vault_id, note_id, at, user_id, origin, message_id, from_note_id)
SELECT DISTINCT ON (item.note_id, item.message_id)
       item.vault_id, item.note_id, message.created_at, conversation.owner_id, 'question', item.message_id, NULL
FROM chat_contextitem item
JOIN chat_message message ON message.id = item.message_id
JOIN chat_conversation conversation ON conversation.id = message.conversation_id
JOIN notes_note note ON note.id = item.note_id AND note.vault_id = item.vault_id
WHERE item.vault_id = %(vault)s AND item.survived
ON CONFLICT DO NOTHING
"""

_FROM_LINKS = """
INSERT INTO insights_footstep (vault_id, note_id, at, user_id, origin, message_id, from_note_id)
SELECT DISTINCT ON (link.target_id, link.source_id)
       link.vault_id, link.target_id, COALESCE(source.content_modified_at, now()), NULL, 'link', NULL, link.source_id
FROM notes_notelink link
JOIN notes_note source ON source.id = link.source_id AND source.vault_id = link.vault_id AND source.tier = 'hot'
JOIN notes_note target ON target.id = link.target_id AND target.vault_id = link.vault_id AND target.tier = 'hot'
WHERE link.vault_id = %(vault)s AND link.source_id <> link.target_id
ON CONFLICT DO NOTHING
"""


def footsteps_collect(*, vault_id: int) -> int:
    """Record the vault's footsteps not recorded yet; how many were added."""
    added = 0
    with transaction.atomic(), connection.cursor() as cursor:
        for statement in (_FROM_ANSWERS, _FROM_LINKS):
            cursor.execute(statement, {"vault": vault_id})
            added += max(cursor.rowcount, 0)
    return added


@dataclass(frozen=True)
class NoteNovelty:
    note_id: int
    spike: float
    freshness: float
    variety: int

    @property
    def score(self) -> float:
        if self.spike <= 1.0 or self.variety == 0:
            return 0.0
        return math.log(self.spike) * self.freshness * math.log1p(self.variety)


def note_novelties(*, vault_id: int, now: datetime) -> list[NoteNovelty]:
    """Every note of the vault the last four weeks and a day visited, with its spike, freshness and variety."""
    day_start, since = now - timedelta(days=1), now - timedelta(days=1 + BASELINE_DAYS)
    rows = (
        Footstep.objects.filter(vault_id=vault_id, note__tier=Tier.HOT, at__gte=since, at__lt=now)
        .values("note_id")
        .annotate(
            recent=Count("id", filter=Q(at__gte=day_start)),
            before=Count("id", filter=Q(at__lt=day_start)),
            questions=Count("message_id", filter=Q(at__gte=day_start), distinct=True),
            linking=Count("from_note", filter=Q(at__gte=day_start), distinct=True),
            last=Max("at"),
        )
    )
    found = []
    for row in rows:
        daily_before = row["before"] / BASELINE_DAYS
        idle_days = max((now - row["last"]).total_seconds(), 0.0) / 86400
        found.append(
            NoteNovelty(
                note_id=row["note_id"],
                spike=(row["recent"] + 1) / (daily_before + 1),
                freshness=0.5 ** (idle_days / FRESHNESS_HALF_LIFE_DAYS),
                variety=row["questions"] + row["linking"],
            )
        )
    return found


def novelty_bar(scores: list[float], notes: int) -> float:
    """Mean + 2σ of the scores over all `notes` of the vault (those without a score count as zero)."""
    if notes <= 0:
        return 0.0
    mean = sum(scores) / notes
    variance = max(sum(s * s for s in scores) / notes - mean * mean, 0.0)
    return mean + BAR_SIGMAS * math.sqrt(variance)


@transaction.atomic
def novelty_detect(*, vault_id: int, now: datetime | None = None) -> list[NoveltyCandidate]:
    """Store and return the day's candidates of the vault (a second run the same day replaces the first)."""
    now = now or timezone.now()
    novelties = note_novelties(vault_id=vault_id, now=now)
    notes = Note.objects.filter(vault_id=vault_id, tier=Tier.HOT).count()
    bar = novelty_bar([n.score for n in novelties], notes)
    day = timezone.localdate(now)
    NoveltyCandidate.objects.filter(vault_id=vault_id, day=day).delete()
    return [
        NoveltyCandidate.objects.create(
            vault_id=vault_id,
            note_id=n.note_id,
            day=day,
            spike=round(n.spike, 4),
            freshness=round(n.freshness, 4),
            variety=n.variety,
            score=round(n.score, 4),
            bar=round(bar, 4),
        )
        for n in sorted(novelties, key=lambda n: -n.score)
        if n.score > bar and n.spike >= SPIKE_MIN
    ]
