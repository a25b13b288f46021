"""Leiden communities over a vault's co-mention and dependency edges (weight = confidence × strength): routing
landmarks before any feedback exists. Each run replaces the vault's communities: a `community` entity per
cluster of two or more, MEMBER_OF edges to it, its name (its best-connected members), its cohesion (the share of
its members' edge weight that stays inside) and the partition's weighted modularity."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction

from apps.graph.models import (
    LADDER,
    Community,
    CommunityRun,
    Dependency,
    DependencyKind,
    Entity,
    EntityKind,
    Reason,
)

SEED = 42  # reproducible runs


@dataclass(frozen=True)
class Partition:
    members: list[list[int]]  # entity ids per community, largest first
    modularity: float
    cohesion: list[float]
    degree: dict[int, float]


def leiden(edges: list[tuple[int, int, float]]) -> Partition:
    """Partition an undirected weighted graph given as (a, b, weight) with Leiden (modularity, fixed seed)."""
    import igraph
    import leidenalg

    merged: dict[tuple[int, int], float] = defaultdict(float)
    for a, b, w in edges:
        if a != b and w > 0:
            merged[(min(a, b), max(a, b))] += w
    nodes = sorted({n for pair in merged for n in pair})
    if not nodes:
        return Partition([], 0.0, [], {})
    index = {n: i for i, n in enumerate(nodes)}
    graph = igraph.Graph(n=len(nodes), edges=[(index[a], index[b]) for a, b in merged], directed=False)
    graph.es["weight"] = list(merged.values())
    found = leidenalg.find_partition(graph, leidenalg.ModularityVertexPartition, weights="weight", seed=SEED)
    membership = list(found.membership)
    modularity = float(graph.modularity(membership, weights="weight"))
    degree = {nodes[i]: float(d) for i, d in enumerate(graph.strength(weights="weight"))}
    groups: dict[int, list[int]] = defaultdict(list)
    for i, c in enumerate(membership):
        groups[c].append(nodes[i])
    inside: dict[int, float] = defaultdict(float)
    for (a, b), w in merged.items():
        if membership[index[a]] == membership[index[b]]:
            inside[membership[index[a]]] += 2 * w
    order = sorted(groups, key=lambda c: -len(groups[c]))
    cohesion = [inside[c] / max(sum(degree[n] for n in groups[c]), 1e-12) for c in order]
    return Partition([groups[c] for c in order], modularity, cohesion, degree)


def communities_detect(*, vault_id: int) -> CommunityRun:
    """Run Leiden for one vault and store the result, replacing the previous run."""
    rows = Dependency.objects.filter(vault_id=vault_id, source__tier="hot", target__tier="hot").exclude(
        kind=DependencyKind.MEMBER_OF
    )
    edges = [(a, b, c * s) for a, b, c, s in rows.values_list("source_id", "target_id", "confidence", "strength")]
    part = leiden(edges)
    names = dict(Entity.objects.filter(vault_id=vault_id).exclude(kind=EntityKind.COMMUNITY).values_list("id", "name"))
    with transaction.atomic():
        Entity.objects.filter(vault_id=vault_id, kind=EntityKind.COMMUNITY).delete()  # their edges go with them
        run = CommunityRun.objects.create(
            vault_id=vault_id, modularity=part.modularity, entities=len(part.degree), edges=len(edges)
        )
        for number, (members, cohesion) in enumerate(zip(part.members, part.cohesion, strict=True), start=1):
            if len(members) < 2:
                continue
            leaders = sorted(members, key=lambda m: -part.degree[m])[:3]
            name = " · ".join(names.get(m, str(m)) for m in leaders)[:300]
            hub = Entity.objects.create(
                vault_id=vault_id, name=name, key=f"community:{run.pk}:{number}", kind=EntityKind.COMMUNITY
            )
            Community.objects.create(
                vault_id=vault_id, run=run, entity=hub, name=name, cohesion=cohesion, size=len(members)
            )
            Dependency.objects.bulk_create(
                [
                    Dependency(
                        vault_id=vault_id,
                        source_id=m,
                        target=hub,
                        kind=DependencyKind.MEMBER_OF,
                        reason=Reason.INFERRED,
                        confidence=LADDER[Reason.INFERRED],
                    )
                    for m in members
                ]
            )
    return run
