"""Desire paths keyed by the question (DESIGN, "Learning"): a rated answer's units are also kept under the question
that was asked (`RatedQuestion`, with the vector search embedded it as) and what each unit taught for it
(`QuestionValue`). A later question near past rated ones in meaning (cosine at least `Rates.question_similarity`)
inherits what they taught: the facts that helped come in as candidates even where search would not find them, and
every fact they rated joins the gate's estimate as a prior (odds of its Beta(1, 1) mean, within the lift cap,
raised to `Rates.question_prior`). A fact rejected for a question is demoted for questions near it only. A past
question sharing several of this one's doors (its specific terms) is its twin however far apart the two are in
meaning, and passes on all it taught at a stronger prior.

The nearest past questions are an exact scan over the rated questions of the asker's scope (a vault rates hundreds
of questions, not millions: no index pays for itself, and the column has no fixed size); the twins are found in
the same scan, by the stems each rated question keeps of its words. Every read filters by the requester's vaults
in SQL."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from django.db import connection, transaction

from apps.graph.learning import Moved, Outcome, question_value_record, rates
from apps.graph.models import RatedQuestion
from apps.llm.embeddings import current_model, embed_query
from apps.notes.models import Chunk
from apps.retrieval.search import vector_literal
from apps.vaults.scope import Scope

NEAREST = 20  # past questions a question reads
MOST_INHERITED = 5  # facts that helped near questions, beyond the search's and the walk's candidates

_PRIORS = """
WITH scoped AS MATERIALIZED (
    SELECT q.id, q.vault_id, q.stems, q.embedding <=> %(qvec)s::vector AS distance
    FROM graph_ratedquestion q
    WHERE q.vault_id = ANY(%(scope)s) AND q.model = %(model)s AND vector_dims(q.embedding) = %(dims)s
), near AS MATERIALIZED (
    SELECT s.id FROM scoped s ORDER BY s.distance, s.id LIMIT %(nearest)s
), shared AS MATERIALIZED (
    SELECT s.id, s.vault_id, 1 - s.distance AS similarity, s.id IN (SELECT id FROM near) AS near,
           cardinality(ARRAY(SELECT unnest(s.stems) INTERSECT SELECT unnest(%(doors)s::text[]))) AS doors
    FROM scoped s
    WHERE s.id IN (SELECT id FROM near) OR (%(twin_doors)s > 0 AND s.stems && %(doors)s::text[])
)
SELECT c.id, n.similarity, n.doors, n.doors >= %(twin_doors)s AND %(twin_doors)s > 0, v.helped, v.failed
FROM shared n
JOIN graph_questionvalue v ON v.question_id = n.id AND v.vault_id = n.vault_id AND v.vault_id = ANY(%(scope)s)
JOIN notes_chunk c ON c.note_id = v.note_id AND c.content_hash = v.content_hash AND c.vault_id = v.vault_id
     AND c.vault_id = ANY(%(scope)s) AND c.tier = 'hot'
WHERE (n.near AND n.similarity >= %(threshold)s) OR (n.doors >= %(twin_doors)s AND %(twin_doors)s > 0)
"""

# The stems of a rated question's words, as `doors_of` stems a question's words (stop words have none).
STEMS = """
UPDATE graph_ratedquestion SET stems = ARRAY(
    SELECT DISTINCT t.stem FROM (
        SELECT (ts_lexize('english_stem', w))[1] AS stem FROM regexp_split_to_table(lower(text), '[^a-z0-9''-]+') AS w
    ) AS t
    WHERE t.stem IS NOT NULL ORDER BY t.stem
)
WHERE id = ANY(%(ids)s)
"""


def question_learn(*, vault_id: int, question: str, chunk_id: int | None, outcome: Outcome) -> Moved | None:
    """Count one outcome of the fact `chunk_id` for `question` (as searched), in the fact's vault; None when the
    chunk is gone or the question is empty."""
    text = question.strip()
    fact = Chunk.objects.filter(pk=chunk_id or 0, vault_id=vault_id).values_list("note_id", "content_hash").first()
    if not text or fact is None:
        return None
    model = current_model()
    vector = embed_query(text, model=model)  # the vector search used: recent questions are kept embedded
    digest = hashlib.sha256(text.encode()).hexdigest()
    with transaction.atomic():
        asked, created = RatedQuestion.objects.get_or_create(
            vault_id=vault_id, model=model, text_hash=digest, defaults={"text": text, "embedding": vector}
        )
        if created:
            question_stems_record(question_ids=[asked.pk])
        return question_value_record(vault_id=vault_id, question_id=asked.pk, fact=fact, outcome=outcome)


def question_stems_record(*, question_ids: list[int]) -> None:
    """Keep the stems of these rated questions' words (`RatedQuestion.stems`)."""
    with connection.cursor() as cursor:
        cursor.execute(STEMS, {"ids": question_ids})


def question_priors(*, vector: list[float], scope: Scope, doors: Sequence[str] = ()) -> dict[int, float]:
    """chunk → the odds factor past rated questions near this one (in `scope`, the requester's vaults) pass on to
    it: above 1 for a fact that helped them, below 1 for one that did not. A near question's hits count only when
    it shares at least `Rates.question_doors` of this question's `doors` (its specific terms; all of them when it has
    fewer); its misses count whatever it shares. A past question sharing at least `Rates.question_twin_doors` of
    them is a twin, near or not: all it taught counts, at `Rates.twin_prior`. Empty when the transfer is off."""
    chosen = rates()
    if chosen.question_prior <= 0 or not scope or not vector:
        return {}
    params: dict[str, Any] = {
        "qvec": vector_literal(vector),
        **scope.params(),
        "model": current_model(),
        "dims": len(vector),
        "nearest": NEAREST,
        "threshold": chosen.question_similarity,
        "doors": list(doors),
    }
    twin_doors = chosen.question_twin_doors if len(doors) >= chosen.question_twin_doors else 0
    needed = min(chosen.question_doors, len(doors))  # a question with fewer doors asks for all it has
    with connection.cursor() as cursor:
        cursor.execute(_PRIORS, {**params, "twin_doors": twin_doors})
        rows = cursor.fetchall()
    near: dict[int, list[float]] = {}
    twins: dict[int, list[float]] = {}
    for chunk, similarity, shared, twin, helped, failed in rows:
        if twin:  # what it taught counts whole, however far the two are in meaning
            count = twins.setdefault(int(chunk), [0.0, 0.0])
            count[0] += float(helped)
            count[1] += float(failed)
            continue
        count = near.setdefault(int(chunk), [0.0, 0.0])
        if shared >= needed:  # a rejection demotes for every near question, a hit needs a door
            count[0] += float(similarity) * float(helped)
        count[1] += float(similarity) * float(failed)
    priors: dict[int, float] = {}
    for counts, strength in ((near, chosen.question_prior), (twins, chosen.twin_prior)):
        for chunk, factor in _odds(counts, chosen.most_lift, strength).items():
            priors[chunk] = priors.get(chunk, 1.0) * factor
    return priors


def _odds(counts: dict[int, list[float]], cap: float, strength: float) -> dict[int, float]:
    """chunk → (hits, misses) as odds against an unlearned fact (Beta(1, 1)), within the lift cap, raised to
    `strength`; facts whose factor is 1 are left out."""
    factors = {}
    for chunk, (helped, failed) in counts.items():
        factor = min(max((1 + helped) / (1 + failed), 1 / cap), cap) ** strength
        if factor != 1.0:
            factors[chunk] = factor
    return factors


def inherited(priors: dict[int, float], known: set[int]) -> list[int]:
    """The facts that helped near questions and are not among the candidates yet, most lifted first."""
    helped = sorted(
        (chunk for chunk, f in priors.items() if f > 1.0 and chunk not in known), key=lambda c: (-priors[c], c)
    )
    return helped[:MOST_INHERITED]
