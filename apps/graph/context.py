"""Context through the graph (answer path steps 2–7): hybrid search finds the doors, the message's intent picks
the walk, the walk's paths bring facts the search did not rank (their learned values pick which), the relevance
gate rates everything with the graph's scorer (who speaks, which turn answers which: `relevance.py`), the desire
paths from the question's doors (its specific terms) carry what feedback taught onto the order of what passed, and
constraints on the message's own entities surface regardless (at most 3). Past rated questions near this one in
meaning pass on what they taught (`apps.graph.questions`): the facts that helped them join the candidates, and what
every rated fact learned joins the gate's estimate as a prior.

Every context unit keeps the path that produced it (`Candidate.trace`), so feedback lands on the path."""

from __future__ import annotations

import math
import re
from dataclasses import replace

from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from apps.core.text import STOP, asked_for
from apps.graph.doors import door_helped, door_lifts, doors_of
from apps.graph.hooks import candidate_sources
from apps.graph.intent import intent_of
from apps.graph.learning import rates
from apps.graph.models import Dependency
from apps.graph.questions import inherited, question_priors
from apps.graph.relevance import graph_rater
from apps.graph.traversal import Path, Walk, traverse
from apps.llm.embeddings import embed_query
from apps.retrieval.candidates import Candidate, load_chunks, with_openings
from apps.retrieval.context import CANDIDATES
from apps.retrieval.gate import GateResult, Rated, gate
from apps.retrieval.search import hybrid_search_vector, validate_query
from apps.retrieval.trace import Trace
from apps.vaults.scope import Scope

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


def question_trace(question: str, scope: Scope) -> Trace:
    """What a unit's trace keeps of the question alone (its intent, doors and what it asks for): the trace of a
    passage no path brought, such as one the asker pointed to, so that feedback on it reaches the desire paths."""
    return Trace(intent_of(question), doors=tuple(doors_of(_words(question), scope)), asks=asked_for(question))


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9][a-z0-9'-]+", text.lower()) if w not in STOP]


def _boost(path: Path | None, fact_value: float = 0.5) -> float:
    """What learning has done to a path, relative to an unlearned one (1.0): the learned values and strengths
    along it and the learned value of its last hop (the fact through that entity's mention). The walk brings first
    the facts it rates best. A unit's place among what passed the gate moves only with its desire paths: a path's
    strength says how good a route it is, not whether the fact it fetched answers this question (hub edges collect
    every vote)."""
    lift = 2 * fact_value
    if path is None:
        return lift
    return lift * path.learned * math.prod(2 * s.strength for s in path.steps)


_LAST_HOPS = """
SELECT m.chunk_id, m.id, m.entity_id, f.value
FROM graph_mention m
LEFT JOIN graph_factvalue f ON f.mention_id = m.id AND f.intent = %(intent)s AND f.vault_id = m.vault_id
WHERE m.chunk_id = ANY(%(chunks)s) AND m.vault_id = ANY(%(scope)s)
"""


def _last_hops(found: Walk, chunks: list[int], scope: Scope) -> dict[int, tuple[int, float]]:
    """chunk → (the mention that brought it — the walk's entity for walked facts, else the best entry entity it
    mentions — and what its facts have learned for this intent: every mention of the chunk that was rated, as
    one value whose lift is the product of theirs)."""
    with connection.cursor() as cursor:
        cursor.execute(_LAST_HOPS, {"chunks": chunks, **scope.params(), "intent": found.intent})
        rows = cursor.fetchall()
    lift: dict[int, float] = {}
    mention_of: dict[tuple[int, int], int] = {}
    for chunk, mention, entity, value in rows:
        mention_of[(chunk, entity)] = mention
        if value is not None:
            lift[chunk] = lift.get(chunk, 1.0) * 2 * float(value)
    hops = {}
    for chunk in chunks:
        entry = found.by_chunk.get(chunk) or []
        entity = found.facts[chunk].entity if chunk in found.facts else (entry[0] if entry else None)
        if entity is not None and (chunk, entity) in mention_of:
            hops[chunk] = (mention_of[(chunk, entity)], lift.get(chunk, 1.0) / 2)
    return hops


def graph_context(
    *,
    user: User,
    question: str,
    scope: Scope,
    threshold: int = 3,
    model: str | None = None,
) -> GateResult:
    """Gated context units for a question from `scope` (the requester's readable vaults)."""
    text = validate_query(question)
    vector = embed_query(text)
    return context_for(text=text, vector=vector, scope=scope, user=user, threshold=threshold, model=model)


def context_for(
    *, text: str, vector: list[float], scope: Scope, user: User, threshold: int = 3, model: str | None = None
) -> GateResult:
    """`graph_context` for an embedded, validated question and a resolved scope (the caller's readable vaults)."""
    found, candidates, doors, asks = walked_candidates(text=text, vector=vector, scope=scope)
    priors = question_priors(vector=vector, scope=scope, doors=doors)
    asked = Trace(found.intent, doors=tuple(doors), asks=asks)
    candidates += _inherited(inherited(priors, {c.chunk for c in candidates}), candidates, vector, scope, asked)
    candidates += _inherited(
        door_helped(doors, asks, {c.chunk for c in candidates}, scope), candidates, vector, scope, asked
    )
    walked_edges = {s.edge for p in found.paths for s in p.steps}
    scope.filter(Dependency.objects.filter(pk__in=walked_edges)).update(last_walked_at=timezone.now())
    among_notes = not any(c.turn for c in candidates)
    # Among notes the gate passes the search's order and a prior puts a passage first, which one shared term does
    # not earn: there the doors' lift only orders what passed.
    lifts = door_lifts(doors, asks, [c.chunk for c in candidates], scope)
    priors, desire = before_cut(priors, lifts, door_prior=0.0 if among_notes else rates().door_prior)
    usage_vault = scope.vault_ids[0] if len(scope.vault_ids) == 1 else None
    result = gate(
        text,
        candidates,
        threshold=threshold,
        model=model,
        user=user,
        vault_id=usage_vault,
        boosts=desire,
        local_rater=graph_rater(scope),
        among_notes=among_notes,
        priors=priors,
        note_chunks=frozenset(c.chunk for c in candidates if not c.turn),
    )
    constraints = _constraints(found, scope, _words(text), {r.candidate.chunk for r in result.survivors})
    result.survivors += constraints
    result.rated += constraints
    return result


def walked_candidates(*, text: str, vector: list[float], scope: Scope) -> tuple[Walk, list[Candidate], list[str], str]:
    """What the gate sees: the search's candidates, then the facts the walk reached that search did not rank (each
    traced; the walk brings first what its paths and its last hops learned), and what the rooms above add (the
    librarian's "what changed" summaries); also
    the walk, the question's doors and what it asks for. The scope's `readable` keeps out notes drawn from any other
    vault."""
    hits = hybrid_search_vector(text=text, query_vector=vector, scope=scope, k=CANDIDATES).hits
    intent = intent_of(text)
    words = _words(text)
    found = traverse(chunks=[h.chunk for h in hits], scope=scope, intent=intent, words=words, query_vector=vector)
    searched = with_openings(hits, text, scope)
    known = set(searched)
    reached = [c for c in found.facts if c not in known]
    hops = _last_hops(found, searched + reached, scope)
    walked = sorted(
        reached, key=lambda c: -(found.facts[c].similarity * _boost(found.facts[c].path, hops.get(c, (0, 0.5))[1]))
    )[:WALKED]
    doors, asks = doors_of(words, scope), asked_for(text)
    candidates = [
        _traced(c, found, hops.get(c.chunk), doors, asks)
        for c in load_chunks(chunks=searched + walked, query_vector=vector, scope=scope)
    ]
    for extend in candidate_sources:
        candidates = extend(candidates, intent=intent, question=text, vector=vector, scope=scope)
    return found, candidates, doors, asks


def before_cut(
    priors: dict[int, float], desire: dict[int, float], *, door_prior: float
) -> tuple[dict[int, float], dict[int, float]]:
    """What joins the gate's estimate before the cut (`priors`) and what only orders what passed (`desire`): the
    questions' priors, and the doors' lifts raised to `door_prior` (0: they only order); a factor below 1 only
    orders unless `Rates.demote_before_cut`."""
    chosen = rates()
    before, after = dict(priors), dict(desire)
    if not chosen.demote_before_cut:
        for chunk, factor in priors.items():
            if factor < 1.0:
                del before[chunk]
                after[chunk] = after.get(chunk, 1.0) * factor
    if door_prior > 0:
        for chunk, lift in desire.items():
            if lift < 1.0 and not chosen.demote_before_cut:
                continue
            factor = lift**door_prior
            before[chunk] = before.get(chunk, 1.0) * factor
            after[chunk] = after[chunk] / factor
    return before, {chunk: f for chunk, f in after.items() if f != 1.0}


def _inherited(
    chunks: list[int],
    candidates: list[Candidate],
    vector: list[float],
    scope: Scope,
    trace: Trace,
) -> list[Candidate]:
    """Facts learning brings that neither search nor walk brought (`chunks`: what helped questions near this one,
    or what helped through its doors), ranked after them, read under the same permission filter as every
    candidate."""
    loaded = load_chunks(chunks=chunks, query_vector=vector, scope=scope)
    return [replace(c, rank=len(candidates) + c.rank, trace=trace) for c in loaded]


def _path_of(found: Walk, chunk: int) -> Path | None:
    return found.facts[chunk].path if chunk in found.facts else None


def _traced(candidate: Candidate, found: Walk, hop: tuple[int, float] | None, doors: list[str], asks: str) -> Candidate:
    path = _path_of(found, candidate.chunk)
    trace = path.trace(found.intent) if path else Trace(intent=found.intent)
    walked = replace(
        trace, mention=hop[0] if hop else None, doors=tuple(doors), asks=asks, walk_ms=round(found.elapsed_ms, 1)
    )
    return replace(candidate, trace=walked)


def _constraints(found: Walk, scope: Scope, words: list[str], shown: set[int]) -> list[Rated]:
    """Constraints of the message's own entities (things and notes: a person's "must" is conversation, not a
    rule), past the gate (at most 3) when the rule shares two content words with the message."""
    if not found.entry:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_CONSTRAINTS, {**scope.params(), "entities": found.entry})
        rows = cursor.fetchall()
    wanted = set(words)
    picked = [(e, c, t) for _, e, c, t in rows if c not in shown and len(wanted & set(_words(t))) >= 2]
    chunks = load_chunks(chunks=[c for _, c, _ in picked], query_vector=None, scope=scope)
    by_chunk = {c.chunk: c for c in chunks}
    out: list[Rated] = []
    for entity, chunk, text in picked:
        if chunk in by_chunk and len(out) < MAX_CONSTRAINTS and all(r.candidate.chunk != chunk for r in out):
            trace = Trace(intent=found.intent, entities=(entity,), constraint=True)
            # a rule read out of its passage stands without the note's byline and decision
            out.append(
                Rated(replace(by_chunk[chunk], text=text, trace=trace, byline="", decision="", properties=""), 5, None)
            )
    return out
