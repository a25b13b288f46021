"""The model-free relevance scorer: what the platform already knows about a candidate, for this question.

Signals: meaning similarity (absolute and against the best candidate), the search's own rank, overlap of the
question's content words weighted by how rare they are among the candidates, names and numbers the question
mentions, a time expression when the question asks "when", and length (a two-word turn rarely answers
anything). A logistic model over them (weights fitted on the LoCoMo dev split only, `manage.py evaluate
calibrate`) gives the probability that a candidate carries evidence; fixed cut points map it to 1–5.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

from apps.retrieval.candidates import Candidate

STOP = {
    "a",
    "an",
    "the",
    "and",
    "or",
    "but",
    "if",
    "of",
    "to",
    "in",
    "on",
    "at",
    "by",
    "for",
    "with",
    "about",
    "from",
    "into",
    "over",
    "after",
    "before",
    "between",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "am",
    "do",
    "does",
    "did",
    "done",
    "doing",
    "have",
    "has",
    "had",
    "having",
    "i",
    "me",
    "my",
    "we",
    "our",
    "you",
    "your",
    "he",
    "him",
    "his",
    "she",
    "her",
    "it",
    "its",
    "they",
    "them",
    "their",
    "this",
    "that",
    "these",
    "those",
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "when",
    "where",
    "why",
    "how",
    "there",
    "here",
    "not",
    "no",
    "yes",
    "so",
    "than",
    "then",
    "too",
    "very",
    "can",
    "could",
    "should",
    "would",
    "will",
    "shall",
    "may",
    "might",
    "must",
    "just",
    "also",
    "any",
    "some",
    "all",
    "each",
    "every",
    "both",
    "few",
    "more",
    "most",
    "other",
    "such",
    "only",
    "own",
    "same",
    "as",
    "up",
    "down",
    "out",
    "off",
    "again",
    "further",
    "once",
    "s",
    "t",
    "don",
    "ever",
    "much",
    "many",
    "like",
    "get",
    "got",
    "go",
    "going",
    "went",
    "make",
    "made",
    "take",
    "took",
    "say",
    "said",
    "tell",
    "know",
    "think",
}
WHEN = re.compile(r"^\s*(when|what (year|month|day|date|time)|how long ago)\b", re.I)
TIME_EXPRESSION = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|last|next|ago|week|weekend|month|year|morning|evening|night|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|since|until|recently|\d{4}|\d{1,2}(st|nd|rd|th))\b",
    re.I,
)
NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)*\b")
NUMBER = re.compile(r"\b\d[\d.,:/-]*\b")

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


def terms(text: str) -> list[str]:
    return [_stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP and len(w) > 1]


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def names_in(question: str) -> set[str]:
    return {m.lower() for m in NAME.findall(question.strip())} - STOP


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
    asks_when = bool(WHEN.search(question))
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
                float(asks_when and bool(TIME_EXPRESSION.search(cand.text))),
                math.log1p(len(cand.text)) / 7.0,
            ]
        )
    return np.array(rows, dtype=np.float64)
