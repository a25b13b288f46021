"""The second, narrow lookup behind the who-did-it abstention. The search that found the passages ranks the named
person's own turns first (their name is in each turn's speaker line), so the turn where someone else says they did
it is often not among them. This looks for the claim's words alone, without the name, among the other speakers'
turns in the same scope, through the same permission filter as every search; what it finds is read as evidence of
who did it, never answered from."""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError

from apps.chat.services.answering import Source, passages_of
from apps.chat.services.attribution import READ, WITNESS_CLAIM, Witness, claim_of
from apps.retrieval.candidates import load_candidates
from apps.retrieval.filed import without_filed_notes
from apps.retrieval.search import hybrid_search_vector, validate_query
from apps.vaults.scope import Scope

SEARCHED = 20  # the lookup's depth; how many of its turns are read is attribution.READ


def found_turns(*, question: str, sources: Sequence[Source], speakers: Sequence[str], scope: Scope) -> list[Witness]:
    """The turns the claim's words find outside the sources, best first; none when there are no sources, or the
    question makes no claim of one person, or its claim has fewer words than a turn found this way must carry."""
    passages = passages_of(sources)
    claim = claim_of(question, passages, speakers) if passages and READ else None
    if claim is None or len(claim.words) < WITNESS_CLAIM or not scope:
        return []
    try:
        text = validate_query(claim.lookup_text(question))
    except ValidationError:
        return []
    hits = hybrid_search_vector(text=text, query_vector=None, scope=scope, k=SEARCHED).hits
    shown = {p.text for p in passages}
    found = without_filed_notes(question, load_candidates(hits=hits, query_vector=None, scope=scope))
    return [Witness(path=c.path, text=c.text) for c in found if c.text not in shown and c.turn]
