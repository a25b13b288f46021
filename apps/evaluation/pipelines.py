"""The pipelines compared by the harness. Each calls the product's own retrieval service, as the eval user.

Flat pipelines inject their top 10 (`hybrid-top6` its top 6, the gate's token yardstick). `gate` is hybrid
search followed by the relevance gate (local scorer unless
the scoring slot names a model); `full` is what the product does end to end: the significance check (casual
messages get nothing), then the graph walk and the gate over what search and the walk found. A gated pipeline
ranks every candidate it weighed in the gate's order (what passed first), as deep as the flat ones rank, and
injects what passed: its ranking is compared with the search's on equal terms, and what reaches the answer is
counted apart (items, noise, silence).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.models import User

from apps.chat.services.answering import Source, section_of
from apps.graph.context import graph_context
from apps.research.run import context_for
from apps.retrieval.context import gated_context
from apps.retrieval.gate import GateResult
from apps.retrieval.search import hybrid_search
from apps.retrieval.significance import significance
from apps.vaults.scope import scope_for

FLAT_INJECT = 10
RANK_DEPTH = 50


@dataclass(frozen=True)
class Retrieved:
    ranking: list[int]  # chunk ids, best first, up to RANK_DEPTH
    injected: list[int]  # chunk ids that would reach the answer
    sources: tuple[Source, ...] | None = None  # what chat's answerer would be given; None: the pipeline never answers


def _answered(result: GateResult) -> Retrieved:
    chunks = [r.candidate.chunk for r in result.survivors]
    sources = tuple(
        Source(
            number=n,
            path=r.candidate.path,
            text=r.candidate.text,
            provenance=r.candidate.provenance,
            heading=section_of(r.candidate.heading, r.candidate.title),
            title=r.candidate.title,
            byline=r.candidate.byline,
            decision=r.candidate.decision,
            properties=r.candidate.properties,
        )
        for n, r in enumerate(result.survivors, start=1)
    )
    ranking = [r.candidate.chunk for r in result.rated][:RANK_DEPTH]
    return Retrieved(ranking=ranking, injected=chunks, sources=sources)


Pipeline = Callable[[User, int, str], Retrieved]


def _flat(mode: str, inject: int = FLAT_INJECT) -> Pipeline:
    def run(user: User, vault_id: int, query: str) -> Retrieved:
        hits = hybrid_search(scope=scope_for(user, [vault_id]), query=query, k=RANK_DEPTH, mode=mode).hits
        chunks = [hit.chunk for hit in hits]
        return Retrieved(ranking=chunks, injected=chunks[:inject])

    return run


def _gate(user: User, vault_id: int, query: str) -> Retrieved:
    return _answered(gated_context(user=user, question=query, scope=scope_for(user, [vault_id])))


def _full(user: User, vault_id: int, query: str) -> Retrieved:
    if not significance(query).significant:
        return Retrieved(ranking=[], injected=[], sources=())
    return _answered(graph_context(user=user, question=query, scope=scope_for(user, [vault_id])))


def _research(user: User, vault_id: int, query: str) -> Retrieved:
    if not significance(query).significant:
        return Retrieved(ranking=[], injected=[], sources=())
    result, _ = context_for(user=user, question=query, scope=scope_for(user, [vault_id]))
    return _answered(result)


PIPELINES: dict[str, Pipeline] = {
    "keyword": _flat("keyword"),
    "vector": _flat("vector"),
    "hybrid": _flat("hybrid"),
    "hybrid-top6": _flat("hybrid", 6),  # the gate's budget: what a flat top 6 injects
    "gate": _gate,
    "full": _full,
    "research": _research,  # full, plus deep research when the judge says so
}
