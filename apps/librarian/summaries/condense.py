"""Condensing upward (daily): a person's conversation summaries of one ISO week get a week node, their week nodes of
one month a month node, whenever the period holds at least two of them. A parent's note links its children
([[wikilinks]]) and its pointers name them; a conversation active in two weeks (or a week spanning two months)
gets both parents, which is why the summaries form a DAG.

Idempotent: a period's node is found by its key and only grows (new children, rewritten text when a child's text
changed); nothing is ever deleted. Model-free: the children's own summaries already carry the meaning, and a
daily run over every person should cost nothing."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from apps.core.sweep import sweep
from apps.librarian.models import SummaryLink, SummaryNode
from apps.librarian.sources import drawn_from_notes
from apps.librarian.summaries.notes import NOTICE, frontmatter, link_to, summary_lock, summary_note_write, when

Span = tuple[datetime, datetime]
MIN_CHILDREN = 2

_WEEKS = """
SELECT sm.node_id, date_trunc('week', m.created_at AT TIME ZONE %(tz)s) AS week, min(m.created_at), max(m.created_at)
FROM librarian_summarymessage sm
JOIN chat_message m ON m.id = sm.message_id
WHERE sm.vault_id = %(vault)s
GROUP BY sm.node_id, week
"""


def weeks_of(vault_id: int) -> dict[str, dict[int, Span]]:
    """week key → {conversation node → the span of its messages in that week}: a node joins every week it was
    active in (by its messages, not by its first and last one)."""
    with connection.cursor() as cursor:
        cursor.execute(_WEEKS, {"tz": settings.TIME_ZONE, "vault": vault_id})
        rows = cursor.fetchall()
    buckets: dict[str, dict[int, Span]] = defaultdict(dict)
    for node, monday, first, last in rows:
        year, week, _ = monday.isocalendar()
        buckets[f"week:{year}-W{week:02d}"][node] = (first, last)
    return buckets


def months_of(vault_id: int) -> dict[str, dict[int, Span]]:
    """month key → {week node → its span clipped to that month}: a week that ran over a month's end joins both."""
    buckets: dict[str, dict[int, Span]] = defaultdict(dict)
    for node in SummaryNode.objects.filter(vault_id=vault_id, level=1):
        start, end = timezone.localtime(node.period_start), timezone.localtime(node.period_end)
        month = start.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        while month <= end:
            following = (month + timedelta(days=32)).replace(day=1)
            buckets[f"month:{month:%Y-%m}"][node.pk] = (max(start, month), min(end, following - timedelta.resolution))
            month = following
    return buckets


LEVELS = {1: weeks_of, 2: months_of}


def condense_vault(vault_id: int, level: int) -> dict[str, int]:
    """Parents at `level` for one personal vault's nodes of the level below."""
    counts = {"created": 0, "extended": 0}
    for key, spans in sorted(LEVELS[level](vault_id).items()):
        if len(spans) >= MIN_CHILDREN:
            outcome = _parent(vault_id, level, key, spans)
            if outcome:
                counts[outcome] += 1
    return counts


def _text(level: int, key: str, children: list[SummaryNode], spans: dict[int, Span]) -> tuple[str, str, str]:
    """(title, gist, body) of a parent: its children in time order, each a [[wikilink]] with its own gist."""
    title = f"{'Week' if level == 1 else 'Month'} {key.split(':', 1)[1]}"
    count = f"{len(children)} {'conversations' if level == 1 else 'weeks'}"
    names = {c.pk: c.note.title.removeprefix("Session: ") for c in children}
    gist = f"{count}: " + "; ".join(names[c.pk] for c in children)
    lines = "".join(f"- {when(spans[c.pk][0])} {link_to(c.note, names[c.pk])}: {c.gist}\n" for c in children)
    start, end = min(s for s, _ in spans.values()), max(e for _, e in spans.values())
    body = (
        f"{frontmatter({'title': title, 'filed_by': 'librarian', 'summary_level': level})}"
        f"> Summary of {count} from {when(start)} to {when(end)}, {NOTICE}\n\n## Summarises\n{lines}"
    )
    return title, gist[:500], body


def _parent(vault_id: int, level: int, key: str, spans: dict[int, Span]) -> str:
    """Create or grow the parent `key`; "created", "extended" (new children) or "" (at most its text changed)."""
    with transaction.atomic():
        summary_lock(f"{key}@{vault_id}")
        related = SummaryNode.objects.select_related("note", "owner", "vault")
        children = sorted(related.filter(vault_id=vault_id, pk__in=spans), key=lambda c: (spans[c.pk][0], c.pk))
        node = related.filter(vault_id=vault_id, key=key).first()
        known = set(node.child_links.values_list("child_id", flat=True)) if node else set()
        title, gist, body = _text(level, key, children, spans)
        owner, vault = children[0].owner, children[0].vault
        # a period carries what every summary it condenses carries, those it already held included
        held = [link.child.note for link in node.child_links.select_related("child__note")] if node else []
        note = summary_note_write(
            owner=owner,
            vault=vault,
            note=node.note if node else None,
            name=title,
            body=body,
            drawn_from=drawn_from_notes([*(c.note for c in children), *held], home=vault.pk),
        )
        period = {"period_start": min(s for s, _ in spans.values()), "period_end": max(e for _, e in spans.values())}
        node, created = SummaryNode.objects.update_or_create(
            vault_id=vault_id,
            key=key,
            defaults={"owner": owner, "level": level, "note": note, "gist": gist, **period},
        )
        SummaryLink.objects.bulk_create(
            [SummaryLink(vault_id=vault_id, parent=node, child=c) for c in children if c.pk not in known],
            ignore_conflicts=True,
        )
    if created:
        return "created"
    return "extended" if set(spans) - known else ""


def condense_summaries() -> dict[str, int]:
    """Weeks, then months, for every personal vault that holds summaries."""
    totals = {"created": 0, "extended": 0}
    for level in sorted(LEVELS):
        vaults = SummaryNode.objects.filter(level=level - 1).values_list("vault_id", flat=True).distinct()
        done, _ = sweep(sorted(set(vaults)), f"condensing level {level} of vault", partial(condense_vault, level=level))
        for counts in done.values():
            for name, count in counts.items():
                totals[name] += count
    return totals
