"""The constellation: what the constellation page draws for one vault the requester can read — communities,
entities (principles among them), and edges with their strength, confidence and recent traversal, so the desire
paths show: thick bright edges walked and confirmed, dim ones going cold, speculative bridges dashed.

Three statements, each filtered by the vault inside the SQL; at most 5,000 entities (the most mentioned) and the
20,000 strongest edges between them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import connection
from django.http import Http404
from django.utils import timezone

from apps.core.auth import Requester
from apps.graph.traversal import MIN_CONFIDENCE
from apps.vaults.scope import readable_scope

MAX_NODES = 5_000
MAX_EDGES = 20_000
HOT_DAYS = 7  # an edge walked this recently is drawn hot
COLD_STRENGTH = 0.3  # an edge weakened below this is drawn going cold

_NODES = """
SELECT e.id, e.name, e.kind, e.tier, e.strength, COALESCE(m.n, 0) AS mentions, c.target_id AS community
FROM graph_entity e
LEFT JOIN (SELECT entity_id, count(*) AS n FROM graph_mention WHERE vault_id = ANY(%(scope)s) GROUP BY entity_id) m
       ON m.entity_id = e.id
LEFT JOIN graph_dependency c ON c.source_id = e.id AND c.vault_id = ANY(%(scope)s) AND c.kind = 'member_of'
WHERE e.vault_id = ANY(%(scope)s) AND e.kind <> 'community'
ORDER BY mentions DESC, e.id
LIMIT %(limit)s
"""

_EDGES = """
SELECT d.id, d.source_id, d.target_id, d.kind, d.strength, d.confidence, d.reason, d.last_walked_at
FROM graph_dependency d
WHERE d.vault_id = ANY(%(scope)s) AND d.kind <> 'member_of'
  AND d.source_id = ANY(%(nodes)s) AND d.target_id = ANY(%(nodes)s)
ORDER BY d.confidence * d.strength DESC, d.id
LIMIT %(limit)s
"""

_COMMUNITIES = """
SELECT c.entity_id, c.name, c.cohesion, c.size, r.modularity
FROM graph_community c JOIN graph_communityrun r ON r.id = c.run_id AND r.vault_id = ANY(%(scope)s)
WHERE c.vault_id = ANY(%(scope)s)
ORDER BY c.size DESC, c.entity_id
"""


def constellation(*, user: Requester, vault_id: int) -> dict[str, Any]:
    """The drawing data of a readable vault's graph; 404 for a vault the requester cannot read."""
    scope = readable_scope(user).within([vault_id])
    if not scope:
        raise Http404("No vault matches the given query.")
    with connection.cursor() as cursor:
        cursor.execute(_NODES, {**scope.params(), "limit": MAX_NODES + 1})
        node_rows = cursor.fetchall()
        truncated = len(node_rows) > MAX_NODES
        node_rows = node_rows[:MAX_NODES]
        ids = [r[0] for r in node_rows]
        cursor.execute(_EDGES, {**scope.params(), "nodes": ids, "limit": MAX_EDGES})
        edge_rows = cursor.fetchall()
        cursor.execute(_COMMUNITIES, scope.params())
        community_rows = cursor.fetchall()
    hot_since = timezone.now() - timedelta(days=HOT_DAYS)
    nodes = [
        {
            "id": i,
            "name": name,
            "kind": kind,
            "tier": tier,
            "strength": round(strength, 5),
            "mentions": mentions,
            "community": community,
        }
        for i, name, kind, tier, strength, mentions, community in node_rows
    ]
    edges = [
        {
            "id": i,
            "source": a,
            "target": b,
            "kind": kind,
            "strength": round(strength, 5),
            "confidence": confidence,
            "reason": reason,
            "hot": bool(walked and walked >= hot_since),
            "cold": strength < COLD_STRENGTH,
            "speculative": kind == "bridge" and confidence < MIN_CONFIDENCE,
        }
        for i, a, b, kind, strength, confidence, reason, walked in edge_rows
    ]
    communities = [
        {"id": i, "name": name, "cohesion": round(cohesion, 4), "size": size}
        for i, name, cohesion, size, _ in community_rows
    ]
    modularity = community_rows[0][4] if community_rows else None
    return {
        "vault": vault_id,
        "nodes": nodes,
        "edges": edges,
        "communities": communities,
        "modularity": modularity,
        "truncated": truncated,
    }
