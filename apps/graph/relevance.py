"""The graph's relevance scorer for `full`: the text scorer's signals plus what the graph knows about a passage's
conversation — who speaks in it and which turn it answers.

- `said`: a person the question names speaks in the passage ("What does Nate enjoy?" — Nate's own turns).
- `addressed`: a turn names that person but someone else speaks ("Cool, Nate!" from Joanna rarely says what Nate
  enjoys). A passage nobody speaks in (an ordinary note) is neither said nor addressed.
- `answers`: the text scorer's estimate for the turn this passage answers, when that turn is a candidate too (the
  answer to "What's her name?" is the turn after it).

A logistic model over FEATURES + GRAPH_FEATURES (fitted on the LoCoMo dev split only, `manage.py evaluate
calibrate --graph`, over the candidates `full` sees: conversation turns) gives a turn's probability; any other
passage keeps the text scorer's (on the sample vault the turn weights lost a meaning query's note). The gate's cut
points and floor apply as for the text scorer. Both reads filter by the requester's vaults in SQL."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from django.db import connection

from apps.core.text import names_in
from apps.retrieval.candidates import Candidate
from apps.retrieval.gate import Rated, Rater, probabilities, rated_from
from apps.retrieval.relevance import FEATURES, feature_matrix
from apps.vaults.scope import Scope

GRAPH_FEATURES = ("said", "addressed", "answers")
# Fitted by `manage.py evaluate calibrate --graph` on the LoCoMo dev split (figures in docs/evaluation.md).
GRAPH_WEIGHTS = np.array([0.1646, 3.7319, 2.2868, 2.7718, 0.9546, 0.1611, -0.3601, 4.2333, 0.2427, -2.0140, 2.6476])
GRAPH_BIAS = -8.4954

# Per turn (a passage someone speaks in): does a person the question names speak in it, is one only named?
_PEOPLE = """
SELECT m.chunk_id, bool_or(m.said AND e.kind = 'person' AND e.key = ANY(%(names)s)),
       bool_or(e.kind = 'person' AND e.key = ANY(%(names)s))
FROM graph_mention m
JOIN graph_entity e ON e.id = m.entity_id AND e.vault_id = ANY(%(scope)s) AND e.tier = 'hot'
WHERE m.vault_id = ANY(%(scope)s) AND m.chunk_id = ANY(%(chunks)s)
GROUP BY m.chunk_id
HAVING bool_or(m.said)
"""

_ANSWERS = """
SELECT r.chunk_id, r.answers_id FROM graph_reply r
WHERE r.vault_id = ANY(%(scope)s) AND r.chunk_id = ANY(%(chunks)s) AND r.answers_id = ANY(%(chunks)s)
"""


def graph_features(question: str, candidates: Sequence[Candidate], base: np.ndarray, scope: Scope) -> np.ndarray:
    """One row per candidate, columns as GRAPH_FEATURES; `base` is the text scorer's probability per candidate."""
    chunks = [c.chunk for c in candidates]
    names = sorted(names_in(question))
    with connection.cursor() as cursor:
        people: dict[int, tuple[bool, bool]] = {}
        if names:
            cursor.execute(_PEOPLE, {**scope.params(), "chunks": chunks, "names": names})
            people = {chunk: (said, named) for chunk, said, named in cursor.fetchall()}
        cursor.execute(_ANSWERS, {**scope.params(), "chunks": chunks})
        answers = dict(cursor.fetchall())
    index = {chunk: i for i, chunk in enumerate(chunks)}
    rows = []
    for chunk in chunks:
        said, named = people.get(chunk, (False, False))
        earlier = answers.get(chunk)
        rows.append([float(said), float(named and not said), float(base[index[earlier]]) if earlier else 0.0])
    return np.array(rows, dtype=np.float64).reshape(len(chunks), len(GRAPH_FEATURES))


def graph_matrix(question: str, candidates: Sequence[Candidate], scope: Scope) -> tuple[np.ndarray, np.ndarray]:
    """FEATURES + GRAPH_FEATURES, one row per candidate; and the text scorer's probability per candidate."""
    features = feature_matrix(question, candidates)
    base = probabilities(features)
    return np.hstack([features, graph_features(question, candidates, base, scope)]), base


def graph_rater(scope: Scope) -> Rater:
    """The model-free scorer of `full`, reading the graph of these vaults (the requester's)."""

    def rate(question: str, candidates: Sequence[Candidate]) -> list[Rated]:
        if not candidates:
            return []
        matrix, base = graph_matrix(question, candidates, scope)
        turns = np.array([c.turn for c in candidates])
        probs = np.where(turns, probabilities(matrix, GRAPH_WEIGHTS, GRAPH_BIAS), base)
        return rated_from(candidates, matrix[:, : len(FEATURES)], probs)

    return rate
