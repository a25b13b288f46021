"""The constellation's data: one readable vault's entities, edges (strength, hot, cold, speculative) and
communities, named after their notes; 404 for anyone who cannot read the vault, 400 for a vault that is not an id."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.graph.communities import communities_detect
from apps.graph.learning import weight_adjust
from apps.graph.models import Community, Dependency, Entity
from apps.graph.services import graph_extract_pending
from tests.corpora import CORPORA
from tests.factories import api, make_note, make_user, make_vault, share
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db


def test_readers_get_the_vault_s_graph_to_draw_and_nobody_else_does(sample):
    graph_extract_pending(vault_id=sample.pk)
    communities_detect(vault_id=sample.pk)
    reader, outsider = make_user(), make_user()
    share(sample, "reader", user=reader)
    cold_edge = Dependency.objects.filter(vault=sample).exclude(kind="member_of").order_by("id").first()
    for _ in range(25):
        weight_adjust(target="edge_strength", target_id=cold_edge.pk, delta=-0.01, source="feedback", reason="t")

    response = api(reader).get(f"/api/graph/constellation/?vault={sample.pk}")
    assert_matches_schema(response)
    data = response.json()

    ids = {n["id"] for n in data["nodes"]}
    assert ids and ids <= set(Entity.objects.filter(vault=sample).values_list("pk", flat=True))
    assert all(n["kind"] != "community" for n in data["nodes"])  # communities are clusters, not dots
    assert all(e["source"] in ids and e["target"] in ids and e["kind"] != "member_of" for e in data["edges"])
    by_id = {e["id"]: e for e in data["edges"]}
    assert by_id[cold_edge.pk]["cold"] and by_id[cold_edge.pk]["strength"] == pytest.approx(0.25)
    assert all(e["speculative"] == (e["kind"] == "bridge" and e["confidence"] < 0.5) for e in data["edges"])
    assert {c["id"] for c in data["communities"]} == set(
        Community.objects.filter(vault=sample).values_list("entity_id", flat=True)
    )
    assert any(n["community"] for n in data["nodes"]) and data["modularity"] > 0

    assert api(outsider).get(f"/api/graph/constellation/?vault={sample.pk}").status_code == 404
    for bad in ("", "abc", "²", "-1"):
        assert api(reader).get(f"/api/graph/constellation/?vault={bad}").status_code == 400
    pages = {}
    for user in (reader, outsider):
        browser = Client()
        browser.force_login(user)
        pages[user] = browser.get(f"/vaults/{sample.pk}/constellation/").status_code
    assert (pages[reader], pages[outsider]) == (200, 404)


def test_a_real_vault_s_communities_are_named_by_the_titles_of_their_notes_never_by_keys():
    # Foam's feature pages: their keyboard shortcuts are the most co-mentioned names ("Foam · Ctrl · Shift").
    vault = make_vault(make_user(), "foam-docs")
    root = CORPORA / "foam-docs"
    for path in sorted((root / "user" / "features").glob("*.md")):
        make_note(vault, str(path.relative_to(root)), path.read_text(), embed=False)
    graph_extract_pending(vault_id=vault.pk)
    communities_detect(vault_id=vault.pk)

    communities = list(Community.objects.filter(vault=vault))
    assert len(communities) >= 4
    for community in communities:
        members = Entity.objects.filter(outgoing__kind="member_of", outgoing__target=community.entity)
        titles = set(members.filter(kind="note").values_list("name", flat=True))
        parts = community.name.split(" · ")
        assert set(parts) <= set(members.values_list("name", flat=True)), community.name
        assert not {p.lower() for p in parts} & {"shift", "ctrl", "cmd", "alt", "enter", "tab"}, community.name
        assert not titles or parts[0] in titles, (community.name, titles)  # led by a note the reader can open
