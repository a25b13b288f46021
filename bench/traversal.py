"""Benchmark: the graph context path (search → entry entities → bounded walk → facts → local gate) at 5k and 50k
entities, against the same process's search + local gate without the walk (the baseline); and the constellation's
data (what `GET /api/graph/constellation/` serializes) at each size.

Synthetic graph in a throwaway database (`desirepath_bench`, dropped at the end): one vault, one chunk per
entity with clustered vectors, each chunk mentioning its entity and two of the same cluster, six edges per entity
mostly inside its cluster, and a few hubs with hundreds of edges (the speaker of a long conversation); a third of
the edges carry rhythm values for the hour, the weekday and all times (the walk reads all three).
A request embeds its question once (`apps.retrieval.context.asked`) and the walk's intent check reads that vector
from the query cache; so each question's text is embedded before it is timed here too (the vector the walk and the
search use is the synthetic one), as neither path pays for embedding.
Usage: .venv/bin/python bench/traversal.py [--sizes 5000 50000] [--queries 200]
"""

# isort: skip_file
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.search import QUERY_NOISE, ROOT, drop_database, fresh_database, summary  # sets Django up

import numpy as np
from django.conf import settings
from django.db import connection

from apps.graph.constellation import constellation
from apps.graph.context import context_for
from apps.graph.doors import term_counts_refresh
from apps.graph.rhythm import ALL, slots_at
from apps.llm.embeddings import embed_query
from apps.retrieval.context import gate_for
from apps.vaults.scope import scope_for
from tests.factories import make_user, make_vault
from tests.retrieval.synthetic import WORDS, copy_into, populate

WARMUP, HUBS, DEGREE = 20, 5, 6
LADDER = [(1.0, "user-asserted"), (0.9, "multi-memory"), (0.7, "single-memory"), (0.5, "pattern-matched")]


RHYTHM = """
INSERT INTO graph_rhythmvalue (vault_id, intent, edge_id, slot, value, helped, failed)
SELECT d.vault_id, 'any', d.id, s.slot, 0.4 + (d.id %% 5) * 0.05, 1, 1
FROM graph_dependency d CROSS JOIN unnest(%(slots)s::text[]) AS s(slot)
WHERE d.vault_id = %(vault)s AND d.id %% 3 = 0
"""


def build_graph(vault_id: int, size: int, vectors: np.ndarray, rng: np.random.Generator) -> None:
    clusters = np.argmax(vectors @ vectors[rng.choice(len(vectors), 64, replace=False)].T, axis=1)
    by_cluster: dict[int, list[int]] = {}
    for i, c in enumerate(clusters):
        by_cluster.setdefault(int(c), []).append(i)
    with connection.cursor() as cursor:
        columns = "vault_id, name, key, kind, tier, strength, created_at, health, votes_up, votes_down"
        with copy_into(cursor, "graph_entity", columns) as copy:
            for i in range(size):
                copy.write_row((vault_id, f"entity {i}", f"entity {i}", "thing", "hot", 0.5, "now", "healthy", 0, 0))
        cursor.execute("SELECT id FROM graph_entity WHERE vault_id = %s ORDER BY id", [vault_id])
        entities = [r[0] for r in cursor.fetchall()]
        cursor.execute("SELECT id, note_id FROM notes_chunk WHERE vault_id = %s ORDER BY id", [vault_id])
        chunks = cursor.fetchall()
        with copy_into(cursor, "graph_mention", "vault_id, entity_id, note_id, chunk_id") as copy:
            for i, (chunk, note) in enumerate(chunks):
                mates = by_cluster[int(clusters[i])]
                named = {i, *(int(m) for m in rng.choice(mates, size=min(2, len(mates)))), int(rng.integers(HUBS))}
                for e in named:
                    copy.write_row((vault_id, entities[e], note, chunk))
        seen: set[tuple[int, int]] = set()
        with copy_into(
            cursor,
            "graph_dependency",
            "vault_id, source_id, target_id, kind, strength, initial_strength, confidence, reason, evidence,"
            " created_at",
        ) as copy:
            for i in range(size):
                mates = by_cluster[int(clusters[i])]
                for _ in range(DEGREE // 2):
                    j = int(rng.choice(mates)) if rng.random() < 0.8 else int(rng.integers(size))
                    pair = (min(i, j), max(i, j))
                    if i == j or pair in seen:
                        continue
                    seen.add(pair)
                    confidence, reason = LADDER[int(rng.integers(len(LADDER)))]
                    copy.write_row(
                        (
                            vault_id,
                            entities[pair[0]],
                            entities[pair[1]],
                            "co_mentioned",
                            0.5,
                            0.5,
                            confidence,
                            reason,
                            1,
                            "now",
                        )
                    )
        cursor.execute(RHYTHM, {"vault": vault_id, "slots": [*slots_at(), ALL]})  # a third of the edges learned now
    term_counts_refresh(vault_id=vault_id)  # what the worker keeps after extraction: the doors' counts
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE graph_rhythmvalue")
        cursor.execute("ANALYZE graph_entity")
        cursor.execute("ANALYZE graph_mention")
        cursor.execute("ANALYZE graph_dependency")


def bench_size(size: int, queries: int, rng: np.random.Generator) -> dict[str, Any]:
    fresh_database()
    owner = make_user("bench-owner")
    vault = make_vault(owner, "bench graph")
    vectors = populate([vault], size, int(settings.EMBEDDING_DIMENSIONS))  # the model's HNSW index built after
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE notes_chunk, notes_chunkvector")
    build_graph(vault.pk, size, vectors, rng)
    picks = []
    for index in rng.integers(0, size, WARMUP + queries):
        q = vectors[index] + rng.normal(scale=QUERY_NOISE, size=vectors.shape[1])
        picks.append((" ".join(rng.choice(WORDS, 3)), (q / np.linalg.norm(q)).astype(float).tolist()))
    scope = scope_for(owner, [vault.pk])
    product, baseline, walk_ms, paths = [], [], [], []
    for n, (text, vector) in enumerate(picks):
        embed_query(text)  # what the request did before it asked for context (`asked`)
        started = time.perf_counter()
        result = context_for(text=text, vector=vector, scope=scope, user=owner)
        product_ms = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        gate_for(text=text, vector=vector, scope=scope, user=owner)
        baseline_ms = (time.perf_counter() - started) * 1000
        if n >= WARMUP:
            product.append(product_ms)
            baseline.append(baseline_ms)
            traces = [r.candidate.trace for r in result.rated if r.candidate.trace]
            walk_ms.append(max((t.walk_ms or 0.0 for t in traces), default=0.0))
            paths.append(sum(bool(t.edges) for t in traces))
    drawn = []
    for n in range(WARMUP + 20):
        started = time.perf_counter()
        data = constellation(user=owner, vault_id=vault.pk)
        json.dumps(data)  # what the API sends
        if n >= WARMUP:
            drawn.append((time.perf_counter() - started) * 1000)
    p, b = summary(product), summary(baseline)
    return {
        "constellation_ms": summary(drawn),
        "constellation_nodes": len(data["nodes"]),
        "constellation_edges": len(data["edges"]),
        "entities": size,
        "product_ms": p,
        "baseline_ms": b,
        "ratio_p50": p["p50"] / b["p50"],
        "walk_ms": summary(walk_ms),
        "walked_units_mean": float(np.mean(paths)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[5_000, 50_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "traversal.json")
    args = parser.parse_args()
    rng = np.random.default_rng(5)
    started, load = time.perf_counter(), os.getloadavg()
    try:
        sizes = [bench_size(size, args.queries, rng) for size in args.sizes]
    finally:
        drop_database()
    report = {
        "meta": {
            "cpus": os.cpu_count(),
            "loadavg_start": load,
            "queries": args.queries,
            "total_s": time.perf_counter() - started,
        },
        "sizes": sizes,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    print("| entities | graph context p50 / p95 ms | search + gate p50 / p95 ms | ratio p50 | walk p50 / p95 ms |")
    print("|---:|---:|---:|---:|---:|")
    for s in sizes:
        p, b, w = s["product_ms"], s["baseline_ms"], s["walk_ms"]
        print(
            f"| {s['entities']:,} | {p['p50']:.1f} / {p['p95']:.1f} | {b['p50']:.1f} / {b['p95']:.1f} | "
            f"{s['ratio_p50']:.2f} | {w['p50']:.1f} / {w['p95']:.1f} |"
        )
    for s in sizes:
        c = s["constellation_ms"]
        print(
            f"constellation at {s['entities']:,} entities: {s['constellation_nodes']:,} nodes, "
            f"{s['constellation_edges']:,} edges in p50 / p95 {c['p50']:.1f} / {c['p95']:.1f} ms"
        )
    print(f"Figures written to {args.json}")


if __name__ == "__main__":
    main()
