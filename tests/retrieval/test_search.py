"""Hybrid search over the sample vault: exact tokens, meaning, fusion, hostile queries, scope."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.test import override_settings

from apps.notes.models import Chunk, ChunkVector
from apps.retrieval.search import hybrid_search
from apps.vaults.scope import scope_for
from tests.factories import api, import_folder, make_note, make_user, make_vault, share
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db


def top_paths(client, q, **params):
    response = client.get("/api/search/", {"q": q, **params})
    assert response.status_code == 200, response.content
    assert_matches_schema(response)
    return [hit["path"] for hit in response.json()["results"]]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("PTW", "ops/Permit to Work.md"),
        ("task-todo:", "engineering/Task Tracking Convention.md"),
        ("OLLAMA_ORIGINS", "engineering/Running a Local Model Server.md"),
        ("hnsw.ef_search", "engineering/Vector Search Tuning.md"),
        ("ECONNREFUSED 127.0.0.1:6379", "ops/Redis Outage Postmortem.md"),
        ("ERR_SSL_PROTOCOL_ERROR", "ops/TLS Misconfiguration Postmortem.md"),
        ("IT-42", "ops/Laptop and VPN Setup.md"),
        ("ICE 578", "travel/Freiburg and the Black Forest.md"),
    ],
)
def test_exact_tokens_are_found_by_keyword(sample, query, expected):
    response = api(sample.owner).get("/api/search/", {"q": query, "k": 3})
    hits = response.json()["results"]
    found = {hit["path"]: hit for hit in hits}
    assert expected in found, [h["path"] for h in hits]
    assert "keyword" in found[expected]["sources"]


def test_meaning_search_finds_notes_without_shared_words(sample):
    paths = top_paths(api(sample.owner), "what temperature do I bake the rosemary flatbread at", k=3)
    assert "kitchen/focaccia.md" in paths


def test_result_shape_names_note_vault_chunk_and_sources(sample):
    response = api(sample.owner).get("/api/search/", {"q": "Redis outage", "k": 1})
    assert_matches_schema(response)
    hit = response.json()["results"][0]
    assert set(hit) >= {"note", "vault", "path", "title", "chunk", "snippet", "score", "sources"}
    assert hit["vault"] == sample.pk
    assert Chunk.objects.get(pk=hit["chunk"]).note_id == hit["note"]
    assert set(hit["sources"]) <= {"vector", "keyword"}


@pytest.mark.parametrize(
    "query",
    [
        "'; DROP TABLE notes_note; --",
        "a & b | !c <-> (d:*",
        '"unbalanced quote',
        "\\x00\\\\ %s %(text)s {vector_order}",
        "OR OR AND NOT -",
        "🙂 ünïcödé — ∑",
    ],
)
def test_hostile_queries_are_answered_safely(sample, query):
    response = api(sample.owner).get("/api/search/", {"q": query})
    assert response.status_code == 200
    assert isinstance(response.json()["results"], list)
    assert api(sample.owner).get("/api/search/", {"q": "PTW"}).json()["results"]  # tables intact


@pytest.mark.parametrize(("query", "message"), [("", "empty"), ("   ", "empty"), ("x" * 1_000_000, "limit")])
def test_empty_and_huge_queries_get_a_clear_400(sample, query, message):
    client = api(sample.owner)
    response = client.get("/api/search/", {"q": query})
    assert response.status_code == 400
    assert message in response.json()["q"][0]


def test_k_bounds_the_results(sample):
    client = api(sample.owner)
    assert len(top_paths(client, "notes", k=5)) == 5
    assert client.get("/api/search/", {"q": "notes", "k": 0}).status_code == 400
    assert client.get("/api/search/", {"q": "notes", "k": 500}).status_code == 400


def test_search_is_limited_to_the_vaults_asked_for_and_readable(sample):
    owner = sample.owner
    other = make_vault(owner, "Other")
    make_note(other, "Unique.md", "# Unique\nquetzalcoatl feathers")
    client = api(owner)
    assert top_paths(client, "quetzalcoatl")[0] == "Unique.md"
    assert "Unique.md" not in top_paths(client, "quetzalcoatl", vault=sample.pk)

    stranger = make_user()
    assert api(stranger).get("/api/search/", {"q": "quetzalcoatl", "vault": other.pk}).status_code == 404
    assert top_paths(api(stranger), "quetzalcoatl") == []
    share(other, "reader", user=stranger)
    assert top_paths(api(stranger), "quetzalcoatl") == ["Unique.md"]


def test_vectors_of_another_embedding_model_are_never_compared(sample, settings):
    client = api(sample.owner)
    before = client.get("/api/search/", {"q": "rosemary flatbread oven", "k": 5}).json()["results"]
    assert any("vector" in hit["sources"] for hit in before)
    ChunkVector.objects.filter(vault=sample).update(model="local/some-older-model")
    after = client.get("/api/search/", {"q": "rosemary flatbread oven", "k": 5}).json()["results"]
    assert after and all(hit["sources"] == ["keyword"] for hit in after)


FILMS = {
    "Films/Blade Runner.md": 'director:\n  - "[[Ridley Scott]]"\ncast:\n  - "[[Harrison Ford]]"\nyear: 1982',
    "Films/Amelie.md": 'director:\n  - "[[Jean-Pierre Jeunet]]"\ncast:\n  - "[[Audrey Tautou]]"\nyear: 2001',
    "Films/Heat.md": 'director:\n  - "[[Michael Mann]]"\ncast:\n  - "[[Al Pacino]]"\nyear: 1995',
}


def test_a_note_made_only_of_properties_is_found_by_their_meaning_and_shows_them(vault):
    """Many notes in a real vault are a title and properties (a film, a book, a person): what they say is their
    properties, so meaning search reads them and the passage shown is them."""
    for path, properties in FILMS.items():
        make_note(vault, path, f'---\ncategories:\n  - "[[Movies]]"\n{properties}\n---\n')
    hits = hybrid_search(scope=scope_for(vault.owner), query="the film Audrey Tautou acts in", k=3, mode="vector").hits
    assert hits[0].path == "Films/Amelie.md", [h.path for h in hits]
    assert "cast: Audrey Tautou" in hits[0].snippet


def test_a_long_note_does_not_outrank_the_note_about_the_words_by_its_length_alone(vault):
    """A changelog of forty releases mentions most features somewhere; the note about one feature is the answer,
    even where one of the changelog's entries names the feature more often than the note does."""
    filler = "- Faster start-up on large graphs; translations updated for several languages.\n" * 12
    entry = "- Calendar: calendar events, recurring events and their time zones now export.\n"
    releases = "\n\n".join(f"## Release 0.{n}\n\n" + (entry if n == 7 else "") + filler for n in range(40))
    make_note(vault, "Changelog.md", f"# Changelog\n\n{releases}")
    make_note(vault, "Calendar.md", f"# Calendar\n\nOpen the calendar to see the week's events.\n\n{filler}")
    assert Chunk.objects.filter(note__path="Changelog.md").count() >= 40
    ranked = [
        hit.path
        for hit in hybrid_search(scope=scope_for(vault.owner), query="calendar events", k=5, mode="keyword").hits
    ]
    assert ranked == ["Calendar.md", "Changelog.md"]


def test_the_search_page_shows_snippets_without_markdown_marks():
    from django.test import Client

    from tests.corpora import CORPORA

    owner = make_user()
    vault = make_vault(owner, "Foam docs")
    make_note(vault, "user/features/daily-notes.md", (CORPORA / "foam-docs/user/features/daily-notes.md").read_text())
    client = Client()
    client.force_login(owner)
    page = client.get("/", {"q": "customize daily note location template"}).content.decode()
    snippets = page.split('class="snippet"')[1:]
    assert snippets, page
    for snippet in snippets:
        shown = snippet.split("</p>", 1)[0]
        assert "<mark>" in shown
        assert not [mark for mark in ("**", "`", "[[", "]]") if mark in shown], shown


STANDING_OUT = {  # a logseq-docs question and the page that answers it, which the keyword half ranks clearly first
    "how do I place an existing page or block onto a whiteboard as a portal?": "pages/Whiteboard___Tool___Portal.md",
    "how do I hide some blocks at the bottom of a page that mention a certain tag, with the funnel button?": (
        "pages/How to filter linked references.md"
    ),
}


def test_the_half_whose_best_note_stands_out_leads_the_fused_ranking():
    """On a real documentation graph, the keyword half puts the page clearly first while the meaning half finds many
    pages about as close (whiteboards, references): the page leads the fused ranking, as it leads the keyword half."""
    from tests.corpora import CORPORA

    assert (CORPORA / "logseq-docs").is_dir(), f"the real vaults are not at {CORPORA} (set DESIREPATH_CORPORA)"
    vault = make_vault(make_user(), "Logseq docs")
    assert import_folder(vault, CORPORA / "logseq-docs", source="logseq", follow_up=False).status == "succeeded"
    scope = scope_for(vault.owner)
    for question, page in STANDING_OUT.items():
        keyword = [hit.path for hit in hybrid_search(scope=scope, query=question, k=10, mode="keyword").hits]
        meaning = [hit.path for hit in hybrid_search(scope=scope, query=question, k=10, mode="vector").hits]
        assert keyword[0] == page != meaning[0], (keyword, meaning)
        fused = [hit.path for hit in hybrid_search(scope=scope, query=question, k=10).hits]
        assert fused[0] == page, (question, fused)
    # a fixed weight, the one the leads move from or an even one, puts the funnel question's page second
    question = next(q for q in STANDING_OUT if "funnel" in q)
    for weight in (float(django_settings.SEARCH_FUSION_VECTOR_WEIGHT), 0.5):
        with override_settings(SEARCH_FUSION_LEAD_SHIFT=0, SEARCH_FUSION_VECTOR_WEIGHT=weight):
            fixed = [hit.path for hit in hybrid_search(scope=scope, query=question, k=10).hits]
        assert fixed[1] == STANDING_OUT[question], (weight, fixed)
