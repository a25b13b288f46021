"""Entity health (DESIGN, "Learning"): the feedback on every unit that came through an entity — its last hop or
a step of its path — adds up per entity. Mostly down (at least three votes, three in five down, or a node that
`not useful` wore down) is sick: the daily job moves it to the cold tier, where walks no longer enter it. Often
mentioned but barely connected is under-mapped: its notes are queued for extraction again. Nothing is deleted; a
vault's managers revive a cold entity with one call (audited)."""

from __future__ import annotations

from collections import Counter

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from apps.audit.services import audit_record
from apps.core.queue import queue_after_commit
from apps.graph.models import Dependency, Entity, Health, Mention, Tier
from apps.notes.services.notes import require

SICK_VOTES = 3
SICK_SHARE = 0.6
WORN_STRENGTH = 0.3  # a node `not useful` has worn down this far is sick whatever the votes
UNDER_MAPPED_MENTIONS = 5
UNDER_MAPPED_DEGREE = 1
REEXTRACT_NOTES = 20  # per under-mapped entity and run

_VOTES = """
WITH votes AS (
    SELECT f.id, f.signal, i.trace FROM chat_feedback f
    JOIN chat_contextitem i ON i.id = f.context_item_id AND i.vault_id = %(vault)s
    WHERE f.withdrawn_at IS NULL  -- a vote undone or replaced no longer counts
), touched AS (
    SELECT m.entity_id, v.id, v.signal FROM votes v
    JOIN graph_mention m ON m.vault_id = %(vault)s
     AND m.id = CASE WHEN jsonb_typeof(v.trace->'mention') = 'number' THEN (v.trace->>'mention')::bigint END
    UNION  -- one vote counts once per entity, through its last hop or its path
    SELECT e.id, v.id, v.signal FROM votes v
    CROSS JOIN LATERAL jsonb_array_elements(
        CASE WHEN jsonb_typeof(v.trace->'entities') = 'array' THEN v.trace->'entities' ELSE '[]'::jsonb END) AS x
    JOIN graph_entity e ON e.vault_id = %(vault)s AND jsonb_typeof(x) = 'number' AND e.id = x::text::bigint
)
SELECT t.entity_id,
       count(*) FILTER (WHERE t.signal IN ('confirm', 'used')),
       count(*) FILTER (WHERE t.signal IN ('not_relevant', 'not_useful', 'reject', 'correct'))
FROM touched t
JOIN graph_entity n ON n.id = t.entity_id
JOIN chat_feedback f ON f.id = t.id AND (n.revived_at IS NULL OR f.created_at > n.revived_at)
GROUP BY t.entity_id
"""


def health_assess(*, vault_id: int) -> Counter[str]:
    """Write every entity's health and vote counts for one vault; counts by status."""
    with connection.cursor() as cursor:
        cursor.execute(_VOTES, {"vault": vault_id})
        votes = {entity: (int(up), int(down)) for entity, up, down in cursor.fetchall()}
    mentions = dict(
        Mention.objects.filter(vault_id=vault_id)
        .values("entity_id")
        .annotate(n=Count("id"))
        .values_list("entity_id", "n")
    )
    degree: Counter[int] = Counter()
    edges = Dependency.objects.filter(vault_id=vault_id).exclude(kind="member_of")
    for end in ("source_id", "target_id"):
        degree.update(dict(edges.values(end).annotate(n=Count("id")).values_list(end, "n")))
    rows = Entity.objects.filter(vault_id=vault_id).exclude(kind="community")
    now, counts, changed = timezone.now(), Counter[str](), []
    for entity in rows:
        up, down = votes.get(entity.pk, (0, 0))
        worn = entity.strength <= WORN_STRENGTH and entity.revived_at is None
        status = _status(up, down, worn, mentions.get(entity.pk, 0), degree[entity.pk])
        counts[status] += 1
        entity.health, entity.votes_up, entity.votes_down, entity.health_at = status, up, down, now
        changed.append(entity)
    Entity.objects.bulk_update(changed, ["health", "votes_up", "votes_down", "health_at"], batch_size=1000)
    return counts


def _status(up: int, down: int, worn: bool, mentions: int, degree: int) -> str:
    if worn or (down >= SICK_VOTES and down >= SICK_SHARE * (up + down)):
        return Health.SICK
    if mentions >= UNDER_MAPPED_MENTIONS and degree <= UNDER_MAPPED_DEGREE:
        return Health.UNDER_MAPPED
    return Health.HEALTHY


def entities_tend(*, vault_id: int) -> dict[str, int]:
    """The daily job for one vault: assess, demote the sick to the cold tier, queue the under-mapped's notes."""
    from apps.graph.tasks import reextract_notes

    counts = health_assess(vault_id=vault_id)
    demoted = 0
    for entity in Entity.objects.filter(vault_id=vault_id, health=Health.SICK, tier=Tier.HOT):
        with transaction.atomic():
            Entity.objects.filter(pk=entity.pk).update(tier=Tier.COLD)
            changes = {"name": entity.name, "up": entity.votes_up, "down": entity.votes_down}
            audit_record(
                actor=None,
                action="entity.demote",
                object_type="entity",
                object_id=entity.pk,
                vault_id=vault_id,
                changes={**changes, "strength": entity.strength},
            )
        demoted += 1
    notes: set[int] = set()
    for entity in Entity.objects.filter(vault_id=vault_id, health=Health.UNDER_MAPPED, tier=Tier.HOT):
        mentioned = Mention.objects.filter(vault_id=vault_id, entity=entity).values_list("note_id", flat=True)
        notes |= set(mentioned.distinct()[:REEXTRACT_NOTES])
    if notes:
        queue_after_commit(reextract_notes, sorted(notes), fallback="the next daily run queues them again")
    return {**counts, "demoted": demoted, "queued_notes": len(notes)}


def entity_revive(*, actor: User, entity: Entity) -> Entity:
    """Bring a cold entity back (the vault's managers): walks enter it again; its health is reassessed daily."""
    require(actor, "manage", entity.vault)
    if entity.tier != Tier.COLD:
        raise ValidationError({"detail": ["this entity is not in the cold tier"]})
    with transaction.atomic():
        Entity.objects.filter(pk=entity.pk).update(  # votes before the revival (and the wear) no longer count
            tier=Tier.HOT, health=Health.HEALTHY, revived_at=timezone.now()
        )
        audit_record(
            actor=actor,
            action="entity.revive",
            object_type="entity",
            object_id=entity.pk,
            vault_id=entity.vault_id,
            changes={"name": entity.name},
        )
    entity.refresh_from_db()
    return entity
