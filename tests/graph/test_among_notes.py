"""A vault of notes is searched as notes even when a note or two reads like a conversation turn ("Maria: …" in
meeting minutes): the search's order decides what passes, not the scorer fitted on conversations."""

from __future__ import annotations

import pytest

from apps.graph.context import graph_context
from apps.graph.services import graph_extract_pending
from apps.retrieval.search import hybrid_search
from tests.factories import make_note

pytestmark = pytest.mark.django_db


def test_a_vault_of_notes_with_one_turn_like_note_is_cited_in_the_search_s_order(vault):
    make_note(vault, "Templates/Restaurant Template.md", "---\ncategories: Places\ntype: Restaurants\nloc:\n---\n")
    make_note(vault, "Templates/Recipe Template.md", "---\ncategories: Recipes\ncuisine:\ningredients:\n---\n")
    make_note(vault, "Minutes.md", "Maria: we agreed to meet at the Lisbon restaurant on Friday.\n")
    make_note(vault, "Books/Dune.md", "---\ncategories: Books\nauthor: Frank Herbert\n---\n")
    make_note(vault, "Trips/Kyoto.md", "# Kyoto\nTemples, gardens and a tea house near the river.\n")
    graph_extract_pending(vault_id=vault.pk)
    question = "how do I log a restaurant I ate at?"

    searched = [h.path for h in hybrid_search(user=vault.owner, query=question, vault_ids=[vault.pk]).hits]
    result = graph_context(user=vault.owner, question=question, vault_ids=[vault.pk])
    cited = [r.candidate.path for r in result.survivors]
    assert "Minutes.md" in searched  # a turn-like note is among the candidates
    # What the search ranked passes in its order, as in a vault with no such note: the recipe template too, which the
    # scorer rates as unrelated; read as a conversation, only the restaurant template passed.
    assert cited == searched and cited[0] == "Templates/Restaurant Template.md"
