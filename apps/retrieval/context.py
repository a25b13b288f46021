"""Context for a question (answer path steps 2–7 as they stand): hybrid search for candidates, then the relevance
gate. The graph walk plugs in between later; the evaluation's `gate` and `full` pipelines call this too."""

from __future__ import annotations

from django.contrib.auth.models import User

from apps.llm.embeddings import embed_query
from apps.retrieval.candidates import load_candidates
from apps.retrieval.gate import GateResult, gate
from apps.retrieval.search import hybrid_search_vector, validate_query
from apps.vaults.scope import Scope, scope_for

CANDIDATES = 30  # what the gate sees: the search's top 30 notes (best chunk each)


def asked(*, user: User, question: str, vault_ids: list[int] | None) -> tuple[str, Scope, list[float]]:
    """A question made ready for retrieval: validated (400), its scope resolved (404 for an unreadable vault
    asked for), embedded."""
    text = validate_query(question)
    return text, scope_for(user, vault_ids), embed_query(text)


def gated_context(
    *,
    user: User,
    question: str,
    scope: Scope,
    threshold: int = 3,
    model: str | None = None,
) -> GateResult:
    """Candidates from `scope` (the requester's readable vaults), rated and cut."""
    text = validate_query(question)
    vector = embed_query(text)
    return gate_for(text=text, vector=vector, scope=scope, user=user, threshold=threshold, model=model)


def gate_for(
    *, text: str, vector: list[float], scope: Scope, user: User, threshold: int = 3, model: str | None = None
) -> GateResult:
    """Search and the gate, for an embedded question and a resolved scope (the caller's readable vaults)."""
    hits = hybrid_search_vector(text=text, query_vector=vector, scope=scope, k=CANDIDATES).hits
    candidates = load_candidates(hits=hits, query_vector=vector, scope=scope)
    usage_vault = scope.vault_ids[0] if len(scope.vault_ids) == 1 else None
    return gate(text, candidates, threshold=threshold, model=model, user=user, vault_id=usage_vault)
