"""Reads of the graph for people, filtered by the requester's vaults inside the SQL."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.http import Http404

from apps.core.auth import Requester
from apps.graph.extract import key_of
from apps.graph.models import Entity
from apps.vaults.scope import readable_scope

IMPACT_CONFIDENCE = 0.7
IMPACT_DEPTH = 3

_DEPENDENTS = """
SELECT d.source_id, d.target_id, d.kind, e.name, e.kind
FROM graph_dependency d
JOIN graph_entity e ON e.id = d.source_id AND e.vault_id = ANY(%(scope)s) AND e.tier = 'hot'
WHERE d.vault_id = ANY(%(scope)s) AND d.target_id = ANY(%(targets)s) AND d.confidence >= %(min)s
  AND d.kind IN ('depends_on', 'links_to')
"""


def entity_get(*, user: Requester, entity_id: object) -> Entity:
    """An entity (hot or cold) of a vault the user may read; 404 otherwise."""
    try:
        return readable_scope(user).filter(Entity.objects.select_related("vault")).get(pk=int(str(entity_id)))
    except (Entity.DoesNotExist, ValueError) as exc:
        raise Http404("No entity matches the given query.") from exc


def impact(*, user: Requester, vault_id: int, name: str) -> dict[str, Any]:
    """What depends on the entity called `name` in a readable vault, grouped by depth (edges of confidence
    ≥ 0.7: a dependency or a link a person wrote); 404 for an unreadable vault or an unknown entity."""
    scope = readable_scope(user).within([vault_id])
    root = scope.filter(Entity.objects.filter(key=key_of(name), tier="hot")).first()
    if root is None:
        raise Http404("No entity of that name in a vault you can read.")
    seen, frontier, levels = {root.pk}, [root.pk], []
    for depth in range(1, IMPACT_DEPTH + 1):
        with connection.cursor() as cursor:
            cursor.execute(_DEPENDENTS, {**scope.params(), "targets": frontier, "min": IMPACT_CONFIDENCE})
            rows = [r for r in cursor.fetchall() if r[0] not in seen]
        if not rows:
            break
        found = {
            source: {"id": source, "name": name_, "kind": kind_, "via": {"kind": kind, "to": target}}
            for source, target, kind, name_, kind_ in rows
        }
        seen |= set(found)
        frontier = list(found)
        levels.append({"depth": depth, "entities": sorted(found.values(), key=lambda e: e["name"])})
    return {"entity": {"id": root.pk, "name": root.name, "kind": root.kind, "vault": root.vault_id}, "levels": levels}
