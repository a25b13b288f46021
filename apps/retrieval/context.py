"""Context for a question (answer path steps 2–7 as they stand): hybrid search for candidates, then the relevance
gate. The graph walk plugs in between later; the evaluation's `gate` and `full` pipelines call this too."""

from __future__ import annotations

from typing import Any

from apps.llm.embeddings import embed_query
from apps.retrieval.candidates import load_candidates
from apps.retrieval.gate import GateResult, gate
from apps.retrieval.search import hybrid_search_vector, search_scope, validate_query

CANDIDATES = 30  # what the gate sees: the search's top 30 notes (best chunk each)


def gated_context(
    *,
    user: Any,
    question: str,
    vault_ids: list[int] | None,
    threshold: int = 3,
    model: str | None = None,
) -> GateResult:
    """Candidates from the vaults `user` may read (404 for an unreadable one asked for), rated and cut."""
    text = validate_query(question)
    scope = search_scope(user=user, vault_ids=vault_ids)
    vector = embed_query(text)
    hits = hybrid_search_vector(text=text, query_vector=vector, vault_ids=scope, k=CANDIDATES).hits
    candidates = load_candidates(hits=hits, query_vector=vector, vault_ids=scope)
    usage_vault = scope[0] if len(scope) == 1 else None
    return gate(text, candidates, threshold=threshold, model=model, user=user, vault_id=usage_vault)
