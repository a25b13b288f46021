"""Leiden communities over a vault's co-mention and dependency edges (weight = confidence × strength): routing
landmarks before any feedback exists. Each run replaces the vault's communities: a `community` entity per
cluster of two or more, MEMBER_OF edges to it, its name (`community_name`: the titles of its best-connected notes),
its cohesion (the share of its members' edge weight that stays inside) and the partition's weighted modularity."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
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
NAME_PARTS = 2  # titles in a community's name: enough to tell it apart, short enough to label a cluster

# Names that say nothing about what a community is about. Keyboard keys lead the co-mention counts of any manual
# ("Shift · Ctrl · Cmd" named a cluster of notes on commands and snippets), and a date is when, not what.
KEYS = frozenset(
    """shift ctrl control cmd command alt option opt meta super fn win enter return tab esc escape space spacebar
    backspace delete del insert ins home end pgup pgdn pageup pagedown up down left right capslock caps mod""".split()
)
_CHORD = re.compile(r"^(?:\w{1,9}\s*[+-]\s*)+\w{1,9}$")
_F_KEY = re.compile(r"^f\d{1,2}$")
_DATE = re.compile(r"^\d{4}[-_/.]\d{1,2}(?:[-_/.]\d{1,2})?$")


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


def names_a_subject(name: str) -> bool:
    """Whether a member's name could tell a reader what its community is about: not a key, a chord of keys, a date
    or a word of two letters."""
    text = " ".join(name.lower().split())
    if len(text) < 3 or text in KEYS or _F_KEY.match(text) or _DATE.match(text):
        return False
    return not (_CHORD.match(text) and any(part.strip() in KEYS for part in re.split(r"[+-]", text)))


def community_name(
    members: list[int], *, names: Mapping[int, str], kinds: Mapping[int, str], inside: Mapping[int, float]
) -> str:
    """A community's name as a reader recognises it: the titles of the notes most connected inside it (`inside`:
    each member's edge weight to other members), a note that is a template after the others; members that are not
    notes only where too few notes name a subject. Keys, dates and such are skipped while anything else is left."""

    def rank(member: int) -> tuple[bool, bool, float, str]:
        name = names.get(member, str(member))
        return kinds.get(member) != EntityKind.NOTE, name.lower().endswith("template"), -inside.get(member, 0.0), name

    ranked = [names.get(m, str(m)) for m in sorted(members, key=rank)]
    chosen = [name for name in ranked if names_a_subject(name)][:NAME_PARTS] or ranked[:NAME_PARTS]
    return " · ".join(chosen)[:300]


def communities_detect(*, vault_id: int) -> CommunityRun:
    """Run Leiden for one vault and store the result, replacing the previous run."""
    rows = Dependency.objects.filter(vault_id=vault_id, source__tier="hot", target__tier="hot").exclude(
        kind=DependencyKind.MEMBER_OF
    )
    edges = [(a, b, c * s) for a, b, c, s in rows.values_list("source_id", "target_id", "confidence", "strength")]
    part = leiden(edges)
    members_of = Entity.objects.filter(vault_id=vault_id).exclude(kind=EntityKind.COMMUNITY)
    names: dict[int, str] = {}
    kinds: dict[int, str] = {}
    for i, name, kind in members_of.values_list("id", "name", "kind"):
        names[i], kinds[i] = name, kind
    community_of = {m: number for number, members in enumerate(part.members) for m in members}
    inside: dict[int, float] = defaultdict(float)
    for a, b, w in edges:
        if a != b and community_of.get(a, -1) == community_of.get(b, -2):
            inside[a] += w
            inside[b] += w
    with transaction.atomic():
        Entity.objects.filter(vault_id=vault_id, kind=EntityKind.COMMUNITY).delete()  # their edges go with them
        run = CommunityRun.objects.create(
            vault_id=vault_id, modularity=part.modularity, entities=len(part.degree), edges=len(edges)
        )
        for number, (members, cohesion) in enumerate(zip(part.members, part.cohesion, strict=True), start=1):
            if len(members) < 2:
                continue
            name = community_name(members, names=names, kinds=kinds, inside=inside)
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
