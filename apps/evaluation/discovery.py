"""The discovery simulation (`manage.py evaluate discovery`): a footstep log replayed day by day over a vault, each
day running what the daily beat tasks run (detection, screening, formation; collision verdicts and the insight
cards, within per-day budgets), and the figures the design is judged by: candidates per day, screening's drop rate,
formation calls, concepts formed, cards shown, accepted suggestions and model calls per accepted suggestion (every
discovery call counted, the cards' included).

A log is JSON Lines. An optional first line `{"emerging": [paths]}` names the notes that truly became a topic of
their own in the period; every other line is one footstep: `{"day": 3, "note": "path.md", "question": "q17"}` (the
note was pulled into the answer to question q17 on day 3) or `{"day": 3, "note": "path.md", "from": "other.md"}`
(a link to it was made). `scripted_log` writes one for any folder; `footstep_log` exports a vault's real footsteps.

Acceptance policy (no person answers in a replay): a formed concept is accepted when its hub is a note the log names
as emerging, once per such note; any other concept counts as formed and not accepted; no card is accepted (a card
accepted is a person's judgement the log does not hold), so the cards' calls only add to the cost."""

from __future__ import annotations

import json
import random
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.db.models import Count
from django.utils import timezone

from apps.insights.budgets import PURPOSES
from apps.insights.cards import SHOWN, cards_build, cards_write
from apps.insights.collisions import collisions_judge
from apps.insights.footsteps import novelty_detect
from apps.insights.formation import concepts_form
from apps.insights.models import Card, CardKind, Concept, Footstep, FootstepOrigin, Screening, ScreeningOutcome
from apps.insights.screening import candidates_screen
from apps.llm.models import ModelUsage
from apps.notes.models import Note
from apps.vaults.models import Vault

# Notes a team files its days in: they spike now and then and name no topic (screening should drop them).
ROUTINE_HINTS = ("inbox", "journal", "readme", "meeting", "log", "list")


@dataclass(frozen=True)
class Step:
    day: int
    note: str
    question: str | None = None
    from_note: str | None = None


def read_log(path: Path) -> tuple[list[Step], set[str]]:
    """The footsteps of a log file, in day order, and the notes it names as emerging; a bad line is refused."""
    steps, emerging = [], set()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        if "emerging" in row:
            emerging |= set(row["emerging"])
            continue
        if not isinstance(row.get("day"), int) or not isinstance(row.get("note"), str):
            raise ValueError(f"{path}:{number}: a footstep needs a whole `day` and a `note` path")
        if bool(row.get("question")) == bool(row.get("from")):
            raise ValueError(f"{path}:{number}: a footstep comes from a `question` or `from` a note, one of them")
        steps.append(Step(row["day"], row["note"], row.get("question"), row.get("from")))
    return sorted(steps, key=lambda s: s.day), emerging


def scripted_log(paths: list[str], *, days: int = 42, seed: int = 7) -> list[dict[str, Any]]:
    """A team's traffic over `days`: about a dozen questions a day, each pulling two or three notes (a few notes
    much more often than the rest); three quiet notes that each become a topic for a few days (each asked about by
    eight to twelve questions a day, with two partner notes), one of them again two weeks later; and two routine
    notes with a one-day burst each."""
    rng = random.Random(seed)  # noqa: S311 - a repeatable simulation, not a secret
    paths = sorted(paths)
    weights = [1.0 / (rank + 1) for rank in range(len(paths))]
    rng.shuffle(weights)
    routine = [p for p in paths if any(h in p.lower() for h in ROUTINE_HINTS)]
    quiet = sorted((p for p in paths if p not in routine), key=lambda p: weights[paths.index(p)])[: len(paths) // 2]
    emerging = rng.sample(quiet, 3)
    lines: list[dict[str, Any]] = [{"emerging": emerging}]
    asked = 0

    def question(day: int, notes: list[str]) -> None:
        nonlocal asked
        asked += 1
        lines.extend({"day": day, "note": n, "question": f"q{asked}"} for n in dict.fromkeys(notes))

    for day in range(days):
        for _ in range(rng.randint(9, 15)):
            question(day, rng.choices(paths, weights=weights, k=rng.randint(2, 3)))
    for topic in emerging:
        partners = rng.sample([p for p in paths if p != topic], 2)
        start = rng.randint(days // 4, days // 2)
        for day in range(start, start + 3):
            for _ in range(rng.randint(8, 12)):
                question(day, [topic, *rng.sample(partners, rng.randint(1, 2))])
    for day in range(rng.randint(days // 2 + 3, days - 3), days - 2):  # the first topic comes back
        for _ in range(rng.randint(8, 12)):
            question(day, [emerging[0]])
    for burst in rng.sample(routine, min(2, len(routine))):
        day = rng.randint(days // 4, days - 2)
        for _ in range(rng.randint(8, 12)):
            question(day, [burst])
    return lines


def footstep_log(vault_id: int) -> list[dict[str, Any]]:
    """A vault's recorded footsteps as a log (days counted from its first one)."""
    rows = list(Footstep.objects.filter(vault_id=vault_id).select_related("note", "from_note").order_by("at", "id"))
    if not rows:
        return []
    first = timezone.localdate(rows[0].at)
    lines = []
    for row in rows:
        line: dict[str, Any] = {"day": (timezone.localdate(row.at) - first).days, "note": row.note.path}
        if row.origin == FootstepOrigin.QUESTION:
            lines.append({**line, "question": f"m{row.message_id}"})
        elif row.from_note is not None:
            lines.append({**line, "from": row.from_note.path})
    return lines


def _message_id(question: str) -> int:
    return zlib.crc32(question.encode()) + 1  # a stable id per question: one footstep per note and answer


def replay(
    *,
    vault: Vault,
    steps: list[Step],
    emerging: set[str],
    budgets: dict[str, int],
    warmup: int = 0,
    start: datetime | None = None,
) -> dict[str, Any]:
    """Replay `steps` over `vault` one day at a time, each day ending with the daily task's work (from day `warmup`
    on: the days before only lay down history, as a backfill would); the figures."""
    notes = dict(Note.objects.filter(vault=vault).values_list("path", "pk"))
    unknown = sorted({s.note for s in steps} - set(notes))
    if unknown:
        raise ValueError(f"the log names notes the vault does not have: {', '.join(unknown[:5])}")
    last = max((s.day for s in steps), default=-1)
    start = start or timezone.now() - timedelta(days=last + 2)
    used = dict.fromkeys(PURPOSES, 0)
    days = []
    for day in range(last + 1):
        end = start + timedelta(days=day + 1)
        Footstep.objects.bulk_create(
            [_footstep(vault, notes, s, end - timedelta(hours=12)) for s in steps if s.day == day],
            ignore_conflicts=True,
        )
        # The budgets count the calls of the day the replay runs in: each simulated day is given its own allowance.
        vault.chat_settings = {**vault.chat_settings, "discovery_budgets": {t: used[t] + budgets[t] for t in budgets}}
        vault.save(update_fields=["chat_settings"])
        if day < warmup:
            continue
        candidates = novelty_detect(vault_id=vault.pk, now=end)
        screened = candidates_screen(vault_id=vault.pk)
        formed = concepts_form(vault_id=vault.pk)
        # The insights the same daily run prepares: collision verdicts, the four lists ranked and narrated.
        collisions_judge(vault_id=vault.pk)
        cards_build(vault_id=vault.pk, now=end)
        cards_write(vault_id=vault.pk, now=end)
        calls = _calls(vault.pk)
        days.append(
            {
                "day": day,
                "candidates": len(candidates),
                "screened": len(screened),
                "dropped": sum(s.outcome != ScreeningOutcome.KEPT for s in screened),
                "screening_calls": calls["screening"] - used["screening"],
                "formation_calls": calls["formation"] - used["formation"],
                "formed": len(formed),
                "collision_calls": calls["collisions"] - used["collisions"],
                "card_calls": calls["cards"] - used["cards"],
                "cards_shown": _cards_shown(vault.pk),
            }
        )
        used = calls
    return _figures(vault, days, emerging, notes)


def _footstep(vault: Vault, notes: dict[str, int], step: Step, at: datetime) -> Footstep:
    if step.question:
        return Footstep(
            vault=vault,
            note_id=notes[step.note],
            at=at,
            user=vault.owner,
            origin=FootstepOrigin.QUESTION,
            message_id=_message_id(step.question),
        )
    source = notes[str(step.from_note)]
    return Footstep(vault=vault, note_id=notes[step.note], at=at, origin=FootstepOrigin.LINK, from_note_id=source)


def _cards_shown(vault_id: int) -> int:
    """The cards the insights page shows today: the narrated ones, at most its top few per list."""
    ready = Card.objects.filter(vault_id=vault_id, active=True).exclude(narrative="")
    return sum(min(ready.filter(kind=kind).count(), SHOWN) for kind in CardKind.values)


def _calls(vault_id: int) -> dict[str, int]:
    rows = dict(
        ModelUsage.objects.filter(vault_id=vault_id, purpose__in=PURPOSES.values())
        .values_list("purpose")
        .annotate(n=Count("id"))
    )
    return {tier: rows.get(purpose, 0) for tier, purpose in PURPOSES.items()}


def _figures(vault: Vault, days: list[dict[str, Any]], emerging: set[str], notes: dict[str, int]) -> dict[str, Any]:
    screenings = Screening.objects.filter(vault=vault)
    dropped = dict(screenings.exclude(outcome=ScreeningOutcome.KEPT).values_list("outcome").annotate(n=Count("id")))
    concepts = list(Concept.objects.filter(vault=vault).select_related("hub").order_by("id"))
    wanted = {notes[p] for p in emerging if p in notes}
    accepted: list[Concept] = []
    for concept in concepts:
        if concept.hub_id in wanted and concept.hub_id not in {c.hub_id for c in accepted}:
            accepted.append(concept)
    calls = _calls(vault.pk)
    total = sum(calls.values())
    screened = screenings.count()
    return {
        "days": len(days),
        "per_day": days,
        "candidates": sum(d["candidates"] for d in days),
        "candidates_per_day": round(sum(d["candidates"] for d in days) / max(len(days), 1), 2),
        "screened": screened,
        "dropped": dropped,
        "drop_rate": round(sum(dropped.values()) / screened, 3) if screened else None,
        "screening_calls": calls["screening"],
        "formation_calls": calls["formation"],
        "formed": len(concepts),
        "collision_calls": calls["collisions"],
        "card_calls": calls["cards"],
        "cards_shown": days[-1]["cards_shown"] if days else 0,
        "accepted": len(accepted),
        "emerging": len(wanted),
        "concepts": [
            {"label": c.label, "hub": c.hub.path if c.hub else None, "accepted": c in accepted} for c in concepts
        ],
        "calls": total,
        "calls_per_accepted": round(total / len(accepted), 2) if accepted else None,
    }
