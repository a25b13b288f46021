"""Explorer traversals (DESIGN, "Learning"): so the graph does not settle into the first routes it found, a session
gets one or two speculative units from territory close in meaning but far in the graph — a passage near the
question (live passages only: deleted and corrected ones never come back) whose entities are not within two hops
of the question's entry entities, entities in the cold tier included. Hops go around hubs (people, and entities
more than 3% of the passages mention): through a speaker or a month everything is near. The unit is
tagged speculative, never feeds the answer, and carries a speculative bridge (an edge of confidence 0.3, below
what walks follow) from the entry entity to the passage's entity. Each confirm lifts the bridge one step up the
ladder, so a bridge that keeps being confirmed reaches 0.5 (pattern-matched) and ordinary walks take it.

A vault whose graph is stale — no entity or edge added for a week, or the same paths walked in each of the last five
sessions — explores twice per session, else once; a session that walks somewhere new ends the routine."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from django.db import connection
from django.utils import timezone

from apps.graph.models import LADDER, Dependency, DependencyKind, Entity, Reason
from apps.graph.traversal import MIN_CONFIDENCE, entry_entities
from apps.llm.embeddings import current_model, embed_query
from apps.retrieval.candidates import Candidate, load_chunks
from apps.retrieval.filed import without_filed_notes
from apps.retrieval.gate import GateResult, Rated, local_ratings
from apps.retrieval.search import vector_literal
from apps.retrieval.trace import Trace
from apps.vaults.scope import Scope

STALE_DAYS = 7
POOL = 60  # passages near the question considered
NEAR_HOPS = 2
HUB_SHARE, HUB_MIN = 0.03, 10  # an entity more passages mention than this is a hub, not a way between meanings

_POOL = """
SELECT v.chunk_id FROM notes_chunkvector v
WHERE v.model = %(model)s AND v.vault_id = ANY(%(scope)s) AND v.tier = 'hot'
  AND vector_dims(v.embedding) = vector_dims(%(qvec)s::vector)  -- a query embedded before a model switch: no pool
ORDER BY v.embedding <=> %(qvec)s::vector
LIMIT %(pool)s
"""

# Hubs are not bridges of meaning: a speaker, a month or a greeting is co-mentioned with a large share of what was
# said, so through them every entity of a conversation is one hop from every other (on LoCoMo dev, two hops from
# the entry reached all of a conversation's entities and no explorer ever went out). Distance is measured through
# the entities that are not people and that at most HUB_SHARE of the scope's passages mention.
_NEIGHBOURS = """
WITH hop AS (
    SELECT DISTINCT CASE WHEN d.source_id = ANY(%(frontier)s) THEN d.target_id ELSE d.source_id END AS id
    FROM graph_dependency d
    WHERE d.vault_id = ANY(%(scope)s) AND d.confidence >= %(min)s AND d.kind <> 'member_of'
      AND (d.source_id = ANY(%(frontier)s) OR d.target_id = ANY(%(frontier)s))
)
SELECT n.id FROM hop
JOIN graph_entity n ON n.id = hop.id AND n.vault_id = ANY(%(scope)s) AND n.kind NOT IN ('person', 'community')
WHERE (SELECT count(*) FROM graph_mention m WHERE m.entity_id = n.id AND m.vault_id = ANY(%(scope)s)) <= %(hub)s
"""
_WAYS = """
SELECT n.id FROM graph_entity n
WHERE n.id = ANY(%(entry)s) AND n.vault_id = ANY(%(scope)s) AND n.kind NOT IN ('person', 'community')
  AND (SELECT count(*) FROM graph_mention m WHERE m.entity_id = n.id AND m.vault_id = ANY(%(scope)s)) <= %(hub)s
"""
_PASSAGES = "SELECT count(*) FROM notes_chunk WHERE vault_id = ANY(%(scope)s) AND tier = 'hot'"

_MENTIONED = """
SELECT m.chunk_id, m.id, m.entity_id, e.vault_id FROM graph_mention m
JOIN graph_entity e ON e.id = m.entity_id AND e.vault_id = ANY(%(scope)s) AND e.kind NOT IN ('community', 'person')
WHERE m.chunk_id = ANY(%(chunks)s) AND m.vault_id = ANY(%(scope)s)
  AND (SELECT count(*) FROM graph_mention h WHERE h.entity_id = e.id AND h.vault_id = ANY(%(scope)s)) <= %(hub)s
ORDER BY m.chunk_id, m.id
"""


def graph_grew(scope: Scope) -> bool:
    """Something new entered these vaults' graph this week (an entity, or an edge other than a community's or an
    explorer's own proposal)."""
    since = timezone.now() - timedelta(days=STALE_DAYS)
    return (
        scope.filter(Entity.objects.filter(created_at__gte=since)).exists()
        or scope.filter(Dependency.objects.filter(created_at__gte=since))
        .exclude(kind=DependencyKind.MEMBER_OF)
        .exclude(kind=DependencyKind.BRIDGE, confidence__lt=MIN_CONFIDENCE)
        .exists()
    )


def _hub(scope: Scope) -> float:
    """How many of the scope's passages an entity may be mentioned in and still be more than a hub."""
    with connection.cursor() as cursor:
        cursor.execute(_PASSAGES, scope.params())
        return max(HUB_MIN, HUB_SHARE * cursor.fetchone()[0])


def _near(entry: list[int], scope: Scope, hub: float | None = None) -> set[int]:
    """The entry entities and what they reach in two hops, around hubs."""
    hub = _hub(scope) if hub is None else hub
    near = set(entry)
    with connection.cursor() as cursor:
        cursor.execute(_WAYS, {**scope.params(), "entry": entry, "hub": hub})
        frontier = [e for (e,) in cursor.fetchall()]
        for _ in range(NEAR_HOPS):
            if not frontier:
                break
            cursor.execute(_NEIGHBOURS, {**scope.params(), "frontier": frontier, "min": MIN_CONFIDENCE, "hub": hub})
            frontier = [e for (e,) in cursor.fetchall() if e not in near]
            near |= set(frontier)
    return near


def explore(
    *, question: str, vector: list[float], scope: Scope, searched: list[int], shown: set[int], intent: str
) -> Rated | None:
    """One speculative unit for this question, or None when nothing near in meaning is far in the graph."""
    entry, _ = entry_entities(searched, scope)
    if not entry:
        return None
    hub = _hub(scope)
    near = _near(entry, scope, hub)
    with connection.cursor() as cursor:
        cursor.execute(
            _POOL, {**scope.params(), "qvec": vector_literal(vector), "pool": POOL, "model": current_model()}
        )
        pool = [c for (c,) in cursor.fetchall() if c not in shown and c not in searched]
        cursor.execute(_MENTIONED, {**scope.params(), "chunks": pool, "hub": hub})
        mentioned: dict[int, list[tuple[int, int, int]]] = {}
        for chunk, mention, entity, vault in cursor.fetchall():
            mentioned.setdefault(chunk, []).append((mention, entity, vault))
    for chunk in pool:  # nearest first
        found = mentioned.get(chunk, [])
        if not found or any(entity in near for _, entity, _ in found):
            continue
        mention, entity, vault = found[0]
        source = Entity.objects.filter(pk__in=entry, vault_id=vault).order_by("pk").first()
        bridge = _bridge(vault, source.pk, entity) if source else None
        # The Librarian's notes (the exchange filed from this very question, its summary) are the nearest in meaning
        # and say nothing the notes did not: no speculative unit either, unless the question calls for them.
        loaded = without_filed_notes(question, load_chunks(chunks=[chunk], query_vector=vector, scope=scope))
        if not loaded:
            continue
        entities = (source.pk, entity) if source else (entity,)
        edges = (bridge.pk,) if bridge else ()
        trace = Trace(intent=intent, entities=entities, edges=edges, mention=mention, speculative=True)
        candidate: Candidate = replace(loaded[0], trace=trace)
        [rated] = local_ratings(question, [candidate])
        return rated
    return None


def explore_around(result: GateResult, question: str, scope: Scope) -> Rated | None:
    """The speculative unit for an answer's gated context: around what the question found (nothing when it found
    nothing), away from what it was shown, for the intent it was walked with."""
    if not result.survivors:
        return None
    searched = [r.candidate.chunk for r in sorted(result.rated, key=lambda r: r.candidate.rank)]
    intent = next((r.candidate.trace.intent if r.candidate.trace else None for r in result.rated), None) or "what"
    shown = {r.candidate.chunk for r in result.rated}
    return explore(
        question=question, vector=embed_query(question), scope=scope, searched=searched, shown=shown, intent=str(intent)
    )


def _bridge(vault_id: int, source: int, target: int) -> Dependency:
    """The speculative bridge an explorer unit proposes (0.3, llm-uncertain: below what walks follow)."""
    a, b = min(source, target), max(source, target)
    edge, _ = Dependency.objects.get_or_create(
        vault_id=vault_id,
        source_id=a,
        target_id=b,
        kind=DependencyKind.BRIDGE,
        defaults={"reason": Reason.LLM_UNCERTAIN, "confidence": LADDER[Reason.LLM_UNCERTAIN]},
    )
    return edge
