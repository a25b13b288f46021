"""Bounded walks from the entities a message is about (answer path steps 2–6).

Entry: the entities mentioned in the search's best chunks. From each, at most 4 edges are followed (by confidence
× strength × learned value), to depth 3, ignoring edges below confidence 0.5; single-hop paths are not scored, at
most 50 paths are, within a 50 ms budget. Path score = prior (confidence × strength along the path) × learned
value (vault, intent, edge) × its rhythm (how much better or worse the edge did at this hour and weekday than at all
times, `apps.graph.rhythm`, read in the same statement). Each scored path then gathers facts: the chunks its
entities are mentioned in that are closest to the message. Every read filters by the requester's vaults inside
the SQL; the same name in two vaults of that scope links their entities for this walk only."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from django.db import connection

from apps.graph.learning import ANY_INTENT
from apps.graph.rhythm import ALL, slots_at
from apps.llm.embeddings import current_model
from apps.retrieval.search import vector_literal
from apps.retrieval.trace import Trace
from apps.vaults.scope import Scope

EDGES_PER_ENTITY = 4
MAX_DEPTH = 3
MAX_PATHS = 50
MIN_CONFIDENCE = 0.5
ENTRY_CHUNKS = 10
ENTRY_ENTITIES = 5
FACTS_PER_ENTITY = 2
BUDGET_SECONDS = 0.050
# The same name in two vaults of the requester's scope: a link the walk may cross (pattern-matched), computed per
# request from the scope, so it exists only for someone who reads both; edge id 0, never stored, never learned.
SAME_NAME = 0.5

_ENTRY = """
SELECT m.entity_id, m.chunk_id FROM graph_mention m
JOIN graph_entity e ON e.id = m.entity_id AND e.tier = 'hot' AND e.vault_id = ANY(%(scope)s)
WHERE m.chunk_id = ANY(%(chunks)s) AND m.vault_id = ANY(%(scope)s)
"""

# Each frontier edge's target, learned value and rhythm are looked up through their indexes (LATERAL … LIMIT 1, which
# PostgreSQL does not flatten): joined plainly, the planner hash-joins whole tables to a few hundred edges.
_EDGES = """
WITH e AS MATERIALIZED (
    SELECT d.id, d.vault_id, d.source_id AS here, d.target_id AS there, d.confidence, d.strength, d.evidence
    FROM graph_dependency d
    WHERE d.vault_id = ANY(%(scope)s) AND d.source_id = ANY(%(frontier)s) AND d.confidence >= %(min)s
      AND d.kind <> 'member_of'
    UNION ALL
    SELECT d.id, d.vault_id, d.target_id, d.source_id, d.confidence, d.strength, d.evidence
    FROM graph_dependency d
    WHERE d.vault_id = ANY(%(scope)s) AND d.target_id = ANY(%(frontier)s) AND d.confidence >= %(min)s
      AND d.kind <> 'member_of'
    UNION ALL
    SELECT 0, s.vault_id, s.id, o.id, %(same)s, %(same)s, 1
    FROM graph_entity s
    JOIN graph_entity o ON o.key = s.key AND o.vault_id <> s.vault_id AND o.vault_id = ANY(%(scope)s)
    WHERE s.id = ANY(%(frontier)s) AND s.vault_id = ANY(%(scope)s) AND cardinality(%(scope)s::bigint[]) > 1
), joined AS (
    SELECT e.id, e.here, e.there, e.confidence, e.strength, e.evidence, COALESCE(v.value, 0.5) AS value,
           COALESCE(r.hour / (1 - r.hour) / (r.always / (1 - r.always)), 1.0)
           * COALESCE(r.weekday / (1 - r.weekday) / (r.always / (1 - r.always)), 1.0) AS rhythm,
           t.key = ANY(%(words)s) AS named
    FROM e
    JOIN LATERAL (
        SELECT t.key FROM graph_entity t
        WHERE t.id = e.there AND t.tier = 'hot' AND t.vault_id = ANY(%(scope)s) LIMIT 1
    ) t ON true
    LEFT JOIN LATERAL (
        SELECT v.value FROM graph_pathvalue v
        WHERE v.vault_id = e.vault_id AND v.intent = %(intent)s AND v.edge_id = e.id LIMIT 1
    ) v ON true
    LEFT JOIN LATERAL (
        SELECT max(x.value) FILTER (WHERE x.slot = %(hour)s) AS hour,
               max(x.value) FILTER (WHERE x.slot = %(weekday)s) AS weekday,
               max(x.value) FILTER (WHERE x.slot = %(all)s) AS always
        FROM graph_rhythmvalue x
        WHERE x.vault_id = e.vault_id AND x.intent = %(any)s AND x.edge_id = e.id
          AND x.slot IN (%(hour)s, %(weekday)s, %(all)s)
    ) r ON true
), ranked AS (
    SELECT id, here, there, confidence, strength, value, rhythm,
           ROW_NUMBER() OVER (PARTITION BY here ORDER BY confidence * strength * value * rhythm DESC, named DESC,
                              evidence DESC, id, there) AS n
    FROM joined
)
SELECT id, here, there, confidence, strength, value, rhythm FROM ranked WHERE n <= %(per)s
"""

_FACTS = """
SELECT f.entity_id, f.chunk_id, f.similarity FROM unnest(%(entities)s::bigint[]) AS x(entity_id)
CROSS JOIN LATERAL (
    SELECT m.entity_id, m.chunk_id, 1 - (v.embedding <=> %(qvec)s::vector) AS similarity
    FROM graph_mention m
    JOIN notes_chunkvector v ON v.chunk_id = m.chunk_id AND v.model = %(model)s
     AND v.vault_id = ANY(%(scope)s) AND v.tier = 'hot'
    WHERE m.entity_id = x.entity_id AND m.vault_id = ANY(%(scope)s)
      AND vector_dims(v.embedding) = vector_dims(%(qvec)s::vector)  -- a query embedded before a model switch
    ORDER BY v.embedding <=> %(qvec)s::vector
    LIMIT %(per)s
) f
"""


@dataclass(frozen=True)
class Step:
    edge: int
    source: int
    target: int
    confidence: float
    strength: float
    value: float  # learned, for this intent
    rhythm: float = 1.0  # its odds at this hour and weekday against its odds at all times

    @property
    def prior(self) -> float:
        return self.confidence * self.strength


@dataclass
class Path:
    entities: list[int]
    steps: list[Step] = field(default_factory=list)

    @property
    def prior(self) -> float:
        return math.prod(s.prior for s in self.steps)

    @property
    def learned(self) -> float:
        """Relative to an unlearned path (every value 0.5 and no rhythm → 1.0)."""
        return math.prod(2 * s.value * s.rhythm for s in self.steps)

    @property
    def rhythm(self) -> float:
        """What its edges learned at the hour and weekday walked for (1.0: nothing, or nothing then)."""
        return math.prod(s.rhythm for s in self.steps)

    @cached_property
    def score(self) -> float:  # a path's steps never change once it is built; the walk sorts by this often
        return self.prior * self.learned

    def trace(self, intent: str) -> Trace:
        return Trace(
            intent=intent,
            entities=tuple(self.entities),
            edges=tuple(s.edge for s in self.steps),
            prior=round(self.prior, 6),
            learned=round(self.learned, 6),
            rhythm=round(self.rhythm, 6),
        )


@dataclass(frozen=True)
class Fact:
    path: Path | None
    similarity: float
    entity: int  # whose mention brought it: the last hop


@dataclass
class Walk:
    intent: str
    entry: list[int]
    paths: list[Path]  # scored, best first
    facts: dict[int, Fact]  # chunk → the best path reaching it
    by_chunk: dict[int, list[int]]  # chunk → the entry entities it mentions, best first
    elapsed_ms: float
    truncated: bool  # the budget ran out before the walk finished


def entry_entities(chunks: list[int], scope: Scope) -> tuple[list[int], dict[int, list[int]]]:
    """The entities mentioned in the best chunks, weighted by the chunks' ranks; also chunk → its entities (for
    every chunk given, best entity first)."""
    with connection.cursor() as cursor:
        cursor.execute(_ENTRY, {"chunks": chunks, **scope.params()})
        rows = cursor.fetchall()
    rank = {c: i for i, c in enumerate(chunks)}
    weight: dict[int, float] = {}
    by_chunk: dict[int, list[int]] = {}
    for entity, chunk in rows:
        if rank[chunk] < ENTRY_CHUNKS:
            weight[entity] = weight.get(entity, 0.0) + 1.0 / (1 + rank[chunk])
        by_chunk.setdefault(chunk, []).append(entity)
    for entities in by_chunk.values():
        entities.sort(key=lambda e: (-weight.get(e, 0.0), e))
    best = sorted(weight, key=lambda e: (-weight[e], e))[:ENTRY_ENTITIES]
    return best, by_chunk


def _edges(frontier: list[int], scope: Scope, intent: str, words: list[str], slots: list[str]) -> list[Step]:
    with connection.cursor() as cursor:
        cursor.execute(
            _EDGES,
            {
                **scope.params(),
                "frontier": frontier,
                "min": MIN_CONFIDENCE,
                "intent": intent,
                "words": words,
                "per": EDGES_PER_ENTITY,
                "same": SAME_NAME,
                "any": ANY_INTENT,
                "hour": slots[0],
                "weekday": slots[1],
                "all": ALL,
            },
        )
        return [Step(*row) for row in cursor.fetchall()]


def _best_first(path: Path) -> tuple[float, list[int], list[int]]:
    """Best score first; equal scores by the entities and edges walked, so the cuts never depend on row order."""
    return (-path.score, path.entities, [s.edge for s in path.steps])


def walk(
    *, entry: list[int], scope: Scope, intent: str, words: list[str], at: datetime | None = None
) -> tuple[list[Path], bool]:
    """Breadth-first to depth 3 from the entry entities; the best 50 paths of two or more hops, scored for the
    hour and weekday of `at` (default: now, or the pre-warm's hour)."""
    started = time.perf_counter()
    slots = slots_at(at)
    frontier_paths = [Path([e]) for e in entry]
    scored: list[Path] = []
    truncated = False
    for _depth in range(MAX_DEPTH):
        if not frontier_paths:
            break
        if time.perf_counter() - started > BUDGET_SECONDS:
            truncated = True
            break
        ends = sorted({p.entities[-1] for p in frontier_paths})
        steps: dict[int, list[Step]] = {}
        for step in _edges(ends, scope, intent, words, slots):
            steps.setdefault(step.source, []).append(step)
        grown = []
        for path in frontier_paths:
            for step in steps.get(path.entities[-1], []):
                if step.target not in path.entities:
                    grown.append(Path([*path.entities, step.target], [*path.steps, step]))
        grown.sort(key=_best_first)
        frontier_paths = grown[: MAX_PATHS * 2]
        scored += [p for p in frontier_paths if len(p.steps) >= 2]
    scored.sort(key=_best_first)
    return scored[:MAX_PATHS], truncated


def gather(*, paths: list[Path], scope: Scope, query_vector: list[float]) -> dict[int, Fact]:
    """For every entity on the scored paths, its chunks closest to the message; each chunk keeps the best path
    that reached it."""
    entities = sorted({e for p in paths for e in p.entities[1:]})
    if not entities:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            _FACTS,
            {
                "entities": entities,
                **scope.params(),
                "qvec": vector_literal(query_vector),
                "per": FACTS_PER_ENTITY,
                "model": current_model(),
            },
        )
        rows = cursor.fetchall()
    chunks_of: dict[int, list[tuple[int, float]]] = {}
    for entity, chunk, similarity in rows:
        chunks_of.setdefault(entity, []).append((chunk, float(similarity)))
    facts: dict[int, Fact] = {}
    for path in paths:  # best first: a chunk keeps the best path that reached it
        for entity in path.entities[1:]:
            for chunk, similarity in chunks_of.get(entity, []):
                facts.setdefault(chunk, Fact(path, similarity, entity))
    return facts


def traverse(*, chunks: list[int], scope: Scope, intent: str, words: list[str], query_vector: list[float]) -> Walk:
    started = time.perf_counter()
    entry, by_chunk = entry_entities(chunks, scope)
    paths, truncated = walk(entry=entry, scope=scope, intent=intent, words=words) if entry else ([], False)
    facts = gather(paths=paths, scope=scope, query_vector=query_vector)
    return Walk(intent, entry, paths, facts, by_chunk, (time.perf_counter() - started) * 1000, truncated)
