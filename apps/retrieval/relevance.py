"""The model-free relevance scorer: what the platform already knows about a candidate, for this question.

Signals: meaning similarity (absolute and against the best candidate), the search's own rank, overlap of the
question's content words weighted by how rare they are among the candidates, names and numbers the question
mentions, a time expression when the question asks "when", and length (a two-word turn rarely answers
anything). A logistic model over them (weights fitted on the LoCoMo dev split only, `manage.py evaluate
calibrate`) gives the probability that a candidate carries evidence; fixed cut points map it to 1–5.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from apps.core.text import NUMBER, TIME_EXPRESSION, asks_when, names_in, terms
from apps.retrieval.candidates import Candidate

FEATURES = (
    "similarity",
    "similarity_gap",
    "rank",
    "overlap",
    "names",
    "numbers",
    "when_time",
    "length",
)


def feature_matrix(question: str, candidates: Sequence[Candidate]) -> np.ndarray:
    """One row per candidate, columns as FEATURES."""
    if not candidates:
        return np.zeros((0, len(FEATURES)))
    wanted = set(terms(question))
    texts = [f"{c.title}\n{c.text}" for c in candidates]
    bags = [set(terms(t)) for t in texts]
    n = len(candidates)
    idf = {w: math.log((n + 1) / (sum(w in b for b in bags) + 0.5)) for w in wanted}
    idf_total = sum(idf.values()) or 1.0
    names = names_in(question)
    numbers = set(NUMBER.findall(question))
    question_asks_when = asks_when(question)
    best = max(c.similarity for c in candidates)
    rows = []
    for cand, text, bag in zip(candidates, texts, bags, strict=True):
        lower = text.lower()
        rows.append(
            [
                cand.similarity,
                cand.similarity - best,
                1.0 / (1.0 + cand.rank),
                sum(idf[w] for w in wanted if w in bag) / idf_total,
                (sum(name in lower for name in names) / len(names)) if names else 0.0,
                (sum(num in text for num in numbers) / len(numbers)) if numbers else 0.0,
                float(question_asks_when and bool(TIME_EXPRESSION.search(cand.text))),
                math.log1p(len(cand.text)) / 7.0,
            ]
        )
    return np.array(rows, dtype=np.float64)
