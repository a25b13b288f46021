"""Filtered vector search must still return k results when the requester reads 1% of all chunks.

Plain filtered HNSW stops after ef_search candidates and then filters, returning almost nothing for a small
scope; iterative scanning keeps walking the graph. This test takes the index path on 20,000 chunks, and it
fails if iterative scanning is switched off (the second half shows that it would, and that the search then falls
back to the exact scan rather than return what the walk found).
"""

from __future__ import annotations

import numpy as np
import pytest
from django.conf import settings
from django.db import connection, transaction

from apps.llm.embeddings import current_model
from apps.notes.vectors import index_name
from apps.retrieval.search import apply_session_settings, hybrid_search_vector, hybrid_statement, run_statement
from tests.factories import make_user, make_vault, scope_of
from tests.retrieval.synthetic import populate

pytestmark = pytest.mark.django_db

VAULTS, PER_VAULT, K = 100, 200, 10


@pytest.fixture
def corpus(db):
    # The index is built on this corpus alone: one left by earlier tests of the session holds the entries of their
    # rolled-back rows (an HNSW index forgets them only on VACUUM), a graph this test did not choose.
    with connection.cursor() as cursor:
        cursor.execute("SELECT desirepath_vector_index_drop(%s)", [index_name(current_model())])
    owner = make_user("corpus-owner")
    vaults = [make_vault(owner, f"v{i}") for i in range(VAULTS)]
    vectors = populate(vaults, PER_VAULT, int(settings.EMBEDDING_DIMENSIONS))
    return vaults, vectors


def _queries(vectors: np.ndarray, vault_index: int, count: int = 20, per_vault: int = PER_VAULT) -> list[list[float]]:
    rng = np.random.default_rng(3)
    own = vectors[vault_index * per_vault : (vault_index + 1) * per_vault]
    picks = own[rng.choice(len(own), size=count, replace=False)] + 0.3 * rng.normal(size=(count, own.shape[1]))
    return [list(map(float, q / np.linalg.norm(q))) for q in picks]


def _plan(vault_id: int, query: list[float]) -> str:
    sql, params = hybrid_statement(
        text="nomatchword",
        query_vector=query,
        scope=scope_of([vault_id]),
        k=K,
        tiers=["hot"],
        strategy="hnsw",
    )
    with transaction.atomic(), connection.cursor() as cursor:
        apply_session_settings(cursor, "hnsw")
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def _index_walk(vault_id: int, query: list[float]) -> list[tuple[object, ...]]:
    sql, params = hybrid_statement(
        text="nomatchword", query_vector=query, scope=scope_of([vault_id]), k=K, tiers=["hot"], strategy="hnsw"
    )
    return run_statement(sql, params, "hnsw")


def test_one_percent_scope_still_gets_k_results_through_the_hnsw_index(corpus, settings):
    vaults, vectors = corpus
    scope = vaults[37]
    queries = _queries(vectors, 37)
    plan = _plan(scope.pk, queries[0])
    assert index_name(current_model()) in plan, plan

    recalls, counts, strategies = [], [], set()
    for query in queries:
        approx = hybrid_search_vector(
            text="nomatchword", query_vector=query, scope=scope_of([scope.pk]), k=K, strategy="hnsw"
        )
        exact = hybrid_search_vector(
            text="nomatchword", query_vector=query, scope=scope_of([scope.pk]), k=K, strategy="exact"
        )
        counts.append(len(approx.hits))
        strategies.add(approx.strategy)
        recalls.append(len({h.note for h in approx.hits} & {h.note for h in exact.hits}) / K)
    assert min(counts) == K
    assert strategies == {"hnsw"}  # the index walk found them: no search fell back to the exact scan
    assert np.mean(recalls) >= 0.8

    # Without iterative scanning the same index path returns a fraction of k: the failure this test guards. The
    # search then falls back to the exact scan, so the person searching still gets k notes.
    settings.SEARCH_HNSW_ITERATIVE_SCAN = "off"
    starved = [len(_index_walk(scope.pk, q)) for q in queries]
    assert np.mean(starved) < K / 2
    fallen_back = [
        hybrid_search_vector(text="nomatchword", query_vector=q, scope=scope_of([scope.pk]), k=K, strategy="hnsw")
        for q in queries
    ]
    assert {(len(result.hits), result.strategy) for result in fallen_back} == {(K, "exact")}


def test_strategy_follows_the_size_of_the_scope(settings):
    owner = make_user("scope-owner")
    vaults = [make_vault(owner, f"s{i}") for i in range(60)]
    vectors = populate(vaults, 20, int(settings.EMBEDDING_DIMENSIONS))
    query = _queries(vectors, 0, count=1, per_vault=20)[0]
    settings.SEARCH_EXACT_SCAN_MAX_CHUNKS = 200  # one vault holds 20 chunks, fifty hold 1,000
    small = hybrid_search_vector(text="x", query_vector=query, scope=scope_of([vaults[0].pk]), k=K)
    large = hybrid_search_vector(text="x", query_vector=query, scope=scope_of([v.pk for v in vaults[:50]]), k=K)
    assert (small.strategy, large.strategy) == ("exact", "hnsw")
    assert len(small.hits) == len(large.hits) == K
