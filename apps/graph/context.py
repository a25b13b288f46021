"""Context through the graph (answer path steps 2–7): hybrid search finds the doors, the message's intent picks
the walk, the walk's paths bring facts the search did not rank and carry learned values onto what they reach,
the relevance gate rates everything, and constraints on the message's own entities surface regardless (at most 3).

Every context unit keeps the path that produced it (`Candidate.trace`), so feedback lands on the path."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any

from django.db import connection
from django.utils import timezone

from apps.graph.intent import intent_of
from apps.graph.models import Dependency
from apps.graph.traversal import Path, Walk, traverse
from apps.llm.embeddings import embed_query
from apps.retrieval.candidates import Candidate, load_chunks
from apps.retrieval.context import CANDIDATES
from apps.retrieval.gate import GateResult, Rated, gate
from apps.retrieval.relevance import STOP
from apps.retrieval.search import hybrid_search_vector, search_scope, validate_query

WALKED = 15  # facts the walk may add beyond the search's candidates
MAX_CONSTRAINTS = 3

_CONSTRAINTS = """
SELECT a.id, a.entity_id, a.chunk_id, a.text FROM graph_attribute a
JOIN graph_entity e ON e.id = a.entity_id AND e.tier = 'hot' AND e.vault_id = ANY(%(scope)s)
     AND e.kind <> 'person'
JOIN notes_chunk c ON c.id = a.chunk_id AND c.tier = 'hot' AND c.vault_id = ANY(%(scope)s)
WHERE a.kind = 'constraint' AND a.vault_id = ANY(%(scope)s) AND a.entity_id = ANY(%(entities)s)
ORDER BY a.id
"""


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9][a-z0-9'-]+", text.lower()) if w not in STOP]


def _boost(path: Path | None, strengths: bool = True) -> float:
    """What learning has done to a path, relative to an unlearned one (1.0): learned values and strengths."""
    if path is None:
        return 1.0
    return path.learned * (math.prod(2 * s.strength for s in path.steps) if strengths else 1.0)


def graph_context(
    *,
    user: Any,
    question: str,
    vault_ids: list[int] | None,
    threshold: int = 3,
    model: str | None = None,
) -> GateResult:
    """Gated context units for a question from the vaults `user` may read (404 for an unreadable one)."""
    text = validate_query(question)
    scope = search_scope(user=user, vault_ids=vault_ids)
    return context_for(text=text, vector=embed_query(text), scope=scope, user=user, threshold=threshold, model=model)


def context_for(
    *, text: str, vector: list[float], scope: list[int], user: Any, threshold: int = 3, model: str | None = None
) -> GateResult:
    """`graph_context` for an embedded, validated question and a resolved scope (the caller's readable vaults)."""
    hits = hybrid_search_vector(text=text, query_vector=vector, vault_ids=scope, k=CANDIDATES).hits
    intent = intent_of(text)
    words = _words(text)
    found = traverse(chunks=[h.chunk for h in hits], scope=scope, intent=intent, words=words, query_vector=vector)
    walked_edges = {s.edge for p in found.paths for s in p.steps}
    Dependency.objects.filter(pk__in=walked_edges, vault_id__in=scope).update(last_walked_at=timezone.now())
    searched = [h.chunk for h in hits]
    walked = sorted(
        (c for c in found.facts if c not in set(searched)),
        key=lambda c: -(found.facts[c][1] * _boost(found.facts[c][0])),
    )[:WALKED]
    candidates = [
        _traced(c, found) for c in load_chunks(chunks=searched + walked, query_vector=vector, vault_ids=scope)
    ]
    boosts = {c.chunk: _boost(found.facts[c.chunk][0]) for c in candidates if c.chunk in found.facts}
    usage_vault = scope[0] if len(scope) == 1 else None
    result = gate(text, candidates, threshold=threshold, model=model, user=user, vault_id=usage_vault, boosts=boosts)
    constraints = _constraints(found, scope, words, {r.candidate.chunk for r in result.survivors})
    result.survivors += constraints
    result.rated += constraints
    return result


def _traced(candidate: Candidate, found: Walk) -> Candidate:
    path = found.facts.get(candidate.chunk, (None, 0.0))[0]
    trace = path.trace(found.intent) if path else {"intent": found.intent, "entities": [], "edges": []}
    return replace(candidate, trace={**trace, "walk_ms": round(found.elapsed_ms, 1)})


def _constraints(found: Walk, scope: list[int], words: list[str], shown: set[int]) -> list[Rated]:
    """Constraints of the message's own entities (things and notes: a person's "must" is conversation, not a
    rule) that share a word with it, past the gate (at most 3)."""
    if not found.entry:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_CONSTRAINTS, {"scope": scope, "entities": found.entry})
        rows = cursor.fetchall()
    wanted = set(words)
    picked = [(e, c, t) for _, e, c, t in rows if c not in shown and wanted & set(_words(t))]
    chunks = load_chunks(chunks=[c for _, c, _ in picked], query_vector=None, vault_ids=scope)
    by_chunk = {c.chunk: c for c in chunks}
    out: list[Rated] = []
    for entity, chunk, text in picked:
        if chunk in by_chunk and len(out) < MAX_CONSTRAINTS and all(r.candidate.chunk != chunk for r in out):
            trace = {"intent": found.intent, "entities": [entity], "edges": [], "constraint": True}
            out.append(Rated(replace(by_chunk[chunk], text=text, trace=trace), 5, None))
    return out
