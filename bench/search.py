"""Benchmark: hybrid search latency and recall on synthetic corpora, query embedding, import throughput.

Everything runs in a throwaway database (`desirepath_bench`) on the embedded PostgreSQL, dropped at the end.
Usage: .venv/bin/python bench/search.py [--sizes 10000 100000] [--queries 200] [--json bench/results/search.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DB_NAME = "desirepath_bench"
sys.path.insert(0, str(ROOT))
os.environ.pop("DATABASE_URL", None)  # always the embedded server: the cleanup drops a database by name
os.environ["DESIREPATH_DB_NAME"] = DB_NAME
os.environ["DJANGO_SETTINGS_MODULE"] = "desirepath.settings.dev"

import django  # noqa: E402

django.setup()

from apps.core import row_security  # noqa: E402

# The benchmark arranges its corpora as an operator would; each measured search is bound as its requester.
row_security.process_default_set(row_security.system("the benchmark arranges and measures"))

import numpy as np  # noqa: E402
import psycopg  # noqa: E402
from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import override_settings  # noqa: E402
from tqdm import tqdm  # noqa: E402

import apps.notes.services.chunks as chunk_service  # noqa: E402
from apps.llm.embeddings import current_model, embed_query, embed_texts  # noqa: E402
from apps.notes.hooks import imported  # noqa: E402
from apps.notes.markdown import embed_input  # noqa: E402
from apps.notes.models import Chunk  # noqa: E402
from apps.notes.services.ingest import import_job_create, import_job_run  # noqa: E402
from apps.notes.vectors import vector_index_ensure, vectors_drop  # noqa: E402
from apps.retrieval.search import SearchResult, hybrid_search_vector  # noqa: E402
from apps.vaults.models import VaultRole  # noqa: E402
from apps.vaults.permissions import vault_ids_for  # noqa: E402
from apps.vaults.scope import system_scope  # noqa: E402
from tests.factories import SAMPLE_VAULT, make_user, make_vault, share  # noqa: E402
from tests.retrieval.synthetic import WORDS, populate  # noqa: E402

VAULTS, K, WARMUP, INGEST_RUNS, EMBED_SENTENCES = 100, 10, 20, 3, 100
QUERY_NOISE = 0.03  # per dimension: the query keeps a cosine of ~0.86 to the corpus vector it came from
Stats = dict[str, float]

# The keyword half as it was before BM25 (ts_rank_cd over up to 200 all-term and 1,000 any-term matches, taken in no
# order), kept here so every run measures the new keyword half beside it on the same data.
_OR_EN = "replace(websearch_to_tsquery('english', %(text)s)::text, ' & ', ' | ')::tsquery"
TS_RANK_KEYWORD = f"""
WITH kw_and AS MATERIALIZED (
    SELECT c.id, c.note_id, c.search_vector FROM notes_chunk c
    WHERE c.vault_id = ANY(%(vaults)s) AND c.tier = 'hot'
      AND (c.search_vector @@ websearch_to_tsquery('english', %(text)s)
           OR c.search_simple @@ websearch_to_tsquery('simple', %(text)s))
    LIMIT 200
),
kw_or AS MATERIALIZED (
    SELECT c.id, c.note_id, c.search_vector FROM notes_chunk c
    WHERE c.vault_id = ANY(%(vaults)s) AND c.tier = 'hot' AND c.search_vector @@ {_OR_EN}
    LIMIT 1000
),
kw_scored AS (
    SELECT m.id, m.note_id, max(m.bonus) + ts_rank_cd(m.search_vector, {_OR_EN}) AS score
    FROM (SELECT id, note_id, search_vector, 1.0 AS bonus FROM kw_and
          UNION ALL SELECT id, note_id, search_vector, 0.0 FROM kw_or) AS m
    GROUP BY m.id, m.note_id, m.search_vector
)
SELECT note_id, max(score) AS score FROM kw_scored GROUP BY note_id ORDER BY score DESC, note_id LIMIT 50
"""


def admin_connection() -> psycopg.Connection[Any]:
    host = str(settings.DATABASES["default"]["HOST"])
    return psycopg.connect(host=host, user="postgres", dbname="postgres", autocommit=True)


def drop_database() -> None:
    assert settings.DATABASES["default"]["NAME"] == DB_NAME
    connection.close()
    with admin_connection() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB_NAME}" WITH (FORCE)')


def fresh_database() -> None:
    drop_database()
    with admin_connection() as conn:
        conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    call_command("migrate", verbosity=0)


def summary(values_ms: list[float]) -> Stats:
    a = np.asarray(values_ms)
    return {"p50": float(np.percentile(a, 50)), "p95": float(np.percentile(a, 95)), "mean": float(a.mean())}


def seconds(started: float) -> float:
    return time.perf_counter() - started


def bench_ingestion(owner: User) -> dict[str, Any]:
    # Warm-up: load the model and run full-size batches of long inputs once (torch's first large batch is slow).
    embed_texts([" ".join(WORDS * 5)[:900]] * 128)
    inside: list[float] = []  # time the import spends in the embedding model (the rest is parsing and SQL)

    def timed_embed(texts: list[str], **kwargs: Any) -> list[list[float]]:
        started = time.perf_counter()
        vectors = embed_texts(texts, **kwargs)
        inside.append(seconds(started))
        return vectors

    chunk_service.embed_texts = timed_embed  # type: ignore[assignment]
    runs = []
    for run in tqdm(range(INGEST_RUNS), desc="ingestion"):
        vault = make_vault(owner, f"ingest {run}")
        inside.clear()
        started = time.perf_counter()
        job = import_job_create(actor=owner, vault=vault, folder=str(SAMPLE_VAULT), source="sample")
        with imported.muted():  # the follow-up steps would reach a running platform's worker
            job = import_job_run(job_id=job.pk)
        ingest_s = seconds(started)
        embed_in_import_s = sum(inside)
        # The same texts, each distinct one once (as the product embeds them), in one call.
        chunks = Chunk.objects.filter(vault=vault).select_related("note").order_by("note_id", "ordinal")
        texts = list(dict.fromkeys(embed_input(c.note.title, c.heading, c.text) for c in chunks))
        started = time.perf_counter()
        embed_texts(texts)
        runs.append(
            {"notes": job.counts.get("created", 0), "chunks_embedded": job.counts.get("chunks_embedded", 0)}
            | {"bare_texts": len(texts), "ingest_s": ingest_s, "bare_embed_s": seconds(started)}
            | {"embed_in_import_s": embed_in_import_s}
        )
    chunk_service.embed_texts = embed_texts
    ingest_s = sum(r["ingest_s"] for r in runs)
    notes_per_s = sum(r["notes"] for r in runs) / ingest_s
    chunks_per_s = sum(r["chunks_embedded"] for r in runs) / ingest_s
    bare_per_s = sum(r["bare_texts"] for r in runs) / sum(r["bare_embed_s"] for r in runs)
    share = sum(r["embed_in_import_s"] for r in runs) / ingest_s
    totals = {"notes_per_s": notes_per_s, "chunks_per_s": chunks_per_s, "bare_chunks_per_s": bare_per_s}
    return {"runs": runs, **totals, "ratio": chunks_per_s / bare_per_s, "embedding_share_of_import": share}


def bench_query_embedding(rng: np.random.Generator) -> Stats:
    openers = ["how do we", "why did the", "what is our", "notes about the", "when should we", "who owns the"]
    sentences = [
        f"{rng.choice(openers)} {' '.join(rng.choice(WORDS, size=int(rng.integers(3, 7))))} this week"
        for _ in range(EMBED_SENTENCES)
    ]
    embed_query("warm-up sentence")
    timings = []
    for sentence in tqdm(sentences, desc="query embedding"):
        started = time.perf_counter()
        embed_query(sentence)
        timings.append(seconds(started) * 1000)
    return summary(timings)


def make_queries(
    rng: np.random.Generator, vectors: np.ndarray, per_vault: int, vault_indexes: list[int], count: int
) -> list[tuple[str, list[float]]]:
    queries = []
    for _ in range(count):
        text = " ".join(rng.choice(WORDS, size=int(rng.integers(2, 5)), replace=False))
        row = int(rng.choice(vault_indexes)) * per_vault + int(rng.integers(per_vault))
        vector = vectors[row] + QUERY_NOISE * rng.normal(size=vectors.shape[1])
        queries.append((text, [float(x) for x in vector / np.linalg.norm(vector)]))
    return queries


# The tables the search statement reads: row-level security is switched off on them, by their owner, for the
# measurement "without" (the same statement on the same connection, bound the same way).
SEARCH_TABLES = [
    "notes_note",
    "notes_chunk",
    "notes_chunkvector",
    "notes_chunkterm",
    "notes_vaultterm",
    "notes_vaulttext",
]


@contextmanager
def row_security_off(owner: psycopg.Connection[Any]) -> Iterator[None]:
    for table in SEARCH_TABLES:
        owner.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
    try:
        yield
    finally:
        for table in SEARCH_TABLES:
            owner.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")


def bench_requester(reader: User, scope: list[int], queries: list[tuple[str, list[float]]]) -> dict[str, Any]:
    host = str(connection.settings_dict["HOST"])
    owner = psycopg.connect(host=host, user="postgres", dbname=DB_NAME, autocommit=True)
    for text, vector in queries[:WARMUP]:
        for strategy in (None, "exact"):
            hybrid_search_vector(
                text=text, query_vector=vector, scope=system_scope(scope, reason="benchmark"), k=K, strategy=strategy
            )
        with connection.cursor() as cursor:
            cursor.execute(TS_RANK_KEYWORD, {"text": text, "vaults": scope})
    m: dict[str, list[float]] = {"product": [], "exact": [], "fixed_weight": [], "perms": [], "recall": [], "hits": []}
    m |= {"bm25_keyword": [], "ts_rank_keyword": [], "vector_only": [], "walled": [], "unwalled": []}
    strategies: Counter[str] = Counter()
    for index, (text, vector) in enumerate(tqdm(queries[WARMUP:], desc=f"{len(scope)} vault(s)", leave=False)):
        started = time.perf_counter()
        readable = set(vault_ids_for(reader))
        m["perms"].append(seconds(started) * 1000)
        assert set(scope) <= readable
        results: dict[str | None, SearchResult] = {}
        # The product's statement, the same forced to an exact scan, and the same with a fixed fusion weight (the
        # reference for what following each half's lead costs), in rotating order so none always profits from
        # another's warm cache.
        variants = [("product", None, None), ("exact", "exact", None), ("fixed_weight", None, 0.0)]
        bench_scope = system_scope(scope, reason="benchmark")
        for name, strategy, shift in variants[index % 3 :] + variants[: index % 3]:
            fixed = nullcontext() if shift is None else override_settings(SEARCH_FUSION_LEAD_SHIFT=shift)
            with fixed:
                started = time.perf_counter()
                result = hybrid_search_vector(text=text, query_vector=vector, scope=bench_scope, k=K, strategy=strategy)
            m[name].append(seconds(started) * 1000)
            if name != "fixed_weight":
                results[strategy] = result
        # The keyword half alone, BM25 (the product's) and ts_rank_cd (before), in alternating order.
        for half in ("bm25", "ts_rank") if index % 2 == 0 else ("ts_rank", "bm25"):
            started = time.perf_counter()
            if half == "bm25":
                hybrid_search_vector(
                    text=text, query_vector=None, scope=system_scope(scope, reason="benchmark"), k=K, strategy="exact"
                )
            else:
                with connection.cursor() as cursor:
                    cursor.execute(TS_RANK_KEYWORD, {"text": text, "vaults": scope})
                    cursor.fetchall()
            m[f"{half}_keyword"].append(seconds(started) * 1000)
        # Vector-only mode (the same statement with its keyword half switched off), automatic strategy.
        started = time.perf_counter()
        hybrid_search_vector(
            text=text, query_vector=vector, scope=system_scope(scope, reason="benchmark"), k=K, use_keyword=False
        )
        m["vector_only"].append(seconds(started) * 1000)
        # The product's statement bound to the reader's vaults, with the tables' row-level security on and off.
        for walled in (True, False) if index % 2 == 0 else (False, True):
            with (
                nullcontext() if walled else row_security_off(owner),
                row_security.bound(row_security.vaults(tuple(readable))),
            ):
                started = time.perf_counter()
                hybrid_search_vector(text=text, query_vector=vector, scope=system_scope(scope, reason="benchmark"), k=K)
                m["walled" if walled else "unwalled"].append(seconds(started) * 1000)
        strategies[results[None].strategy] += 1
        m["hits"].append(len(results[None].hits))
        truth = {h.note for h in results["exact"].hits}
        m["recall"].append(len({h.note for h in results[None].hits} & truth) / max(1, len(truth)))
    owner.close()
    p, e = summary(m["product"]), summary(m["exact"])
    walled, unwalled = summary(m["walled"]), summary(m["unwalled"])
    return {
        "row_security_on_ms": walled,
        "row_security_off_ms": unwalled,
        "row_security_ratio_p95": walled["p95"] / unwalled["p95"],
        "vaults": len(scope),
        "strategies": dict(strategies),
        "product_ms": p,
        "exact_ms": e,
        "fixed_weight_ms": summary(m["fixed_weight"]),
        "bm25_keyword_ms": summary(m["bm25_keyword"]),
        "ts_rank_keyword_ms": summary(m["ts_rank_keyword"]),
        "vector_only_ms": summary(m["vector_only"]),
        "ratio_p50": p["p50"] / e["p50"],
        "ratio_p95": p["p95"] / e["p95"],
        "recall_at_10": float(np.mean(m["recall"])),
        "mean_hits": float(np.mean(m["hits"])),
        "vault_ids_for_ms": summary(m["perms"]),
    }


def bench_size(size: int, queries: int, rng: np.random.Generator) -> dict[str, Any]:
    fresh_database()
    per_vault = size // VAULTS
    owner = make_user("bench-owner")
    vaults = [make_vault(owner, f"bench {i}") for i in tqdm(range(VAULTS), desc="vaults", leave=False)]
    readers = {1: make_user("bench-reader-1"), 50: make_user("bench-reader-50")}
    for count, reader in readers.items():
        for vault in vaults[:count]:
            share(vault, VaultRole.READER, user=reader)
    with connection.cursor() as cursor:
        vectors_drop(current_model())  # the sample's vectors and index: the index is built once the rows are in
        started = time.perf_counter()
        vectors = populate(vaults, per_vault, int(settings.EMBEDDING_DIMENSIONS), build_index=False)
        copy_s = seconds(started)
        started = time.perf_counter()
        cursor.execute("SET maintenance_work_mem = '1GB'")
        vector_index_ensure(current_model())
        cursor.execute("RESET maintenance_work_mem")
        build_s = seconds(started)
        started = time.perf_counter()
        cursor.execute("VACUUM ANALYZE notes_chunk, notes_chunkvector")  # autocommit outside atomic blocks
        cursor.execute("VACUUM ANALYZE notes_chunkterm, notes_vaultterm, notes_vaulttext")
        cursor.execute("SELECT count(*) FROM notes_chunkvector WHERE model = %s", [current_model()])
        chunks = int(cursor.fetchone()[0])
        vacuum_s = seconds(started)
    print(f"\n{size:,} chunks: COPY {copy_s:.1f} s, HNSW build {build_s:.1f} s, VACUUM ANALYZE {vacuum_s:.1f} s")
    requesters = {}
    for count, reader in readers.items():
        scope = [v.pk for v in vaults[:count]]
        picks = make_queries(rng, vectors, per_vault, list(range(count)), WARMUP + queries)
        requesters[f"{count} vault{'s' if count > 1 else ''}"] = bench_requester(reader, scope, picks)
    return {
        "size": size,
        "chunks": chunks,
        "copy_s": copy_s,
        "hnsw_build_s": build_s,
        "vacuum_analyze_s": vacuum_s,
        "requesters": requesters,
    }


def print_report(report: dict[str, Any]) -> None:
    print("\nHybrid search, k=10 (ms, SQL only; product = automatic strategy, baseline = forced exact scan)")
    header = f"{'chunks':>8} {'scope':>9} {'strategy':>9} {'p50':>7} {'p95':>7} {'mean':>7} {'ex p50':>7}"
    print(header + f" {'ex p95':>7} {'ratio':>6} {'recall':>6} {'hits':>5} {'perm p50':>8}")
    for size in report["search"]:
        for name, r in size["requesters"].items():
            p, e = r["product_ms"], r["exact_ms"]
            print(
                f"{size['size']:>8,} {name:>9} {'/'.join(r['strategies']):>9} {p['p50']:>7.1f} {p['p95']:>7.1f}"
                f" {p['mean']:>7.1f} {e['p50']:>7.1f} {e['p95']:>7.1f} {r['ratio_p50']:>6.2f}"
                f" {r['recall_at_10']:>6.3f} {r['mean_hits']:>5.1f} {r['vault_ids_for_ms']['p50']:>8.1f}"
            )
        for name, r in size["requesters"].items():
            b, t = r["bm25_keyword_ms"], r["ts_rank_keyword_ms"]
            print(
                f"{'':>8} {name:>9} keyword half alone: BM25 {b['p50']:.1f} / {b['p95']:.1f} ms,"
                f" ts_rank_cd (before) {t['p50']:.1f} / {t['p95']:.1f} ms (p50 / p95)"
            )
            v = r["vector_only_ms"]
            print(f"{'':>8} {name:>9} vector-only mode: {v['p50']:.1f} / {v['p95']:.1f} ms (p50 / p95)")
            f = r["fixed_weight_ms"]
            print(f"{'':>8} {name:>9} hybrid, fixed fusion weight: {f['p50']:.1f} / {f['p95']:.1f} ms (p50 / p95)")
            on, off = r["row_security_on_ms"], r["row_security_off_ms"]
            print(
                f"{'':>8} {name:>9} bound to the reader: row-level security on {on['p50']:.1f} / {on['p95']:.1f} ms,"
                f" off {off['p50']:.1f} / {off['p95']:.1f} ms; p95 ratio {r['row_security_ratio_p95']:.3f}"
            )
        print(f"{'':>8} HNSW build {size['hnsw_build_s']:.1f} s, COPY {size['copy_s']:.1f} s")
    q, i = report["query_embedding_ms"], report["ingestion"]
    print(f"\nQuery embedding (MiniLM, CPU): p50 {q['p50']:.1f} ms, p95 {q['p95']:.1f} ms, mean {q['mean']:.1f} ms")
    print(
        f"Ingestion of samples/vault x{len(i['runs'])}: {i['notes_per_s']:.1f} notes/s, {i['chunks_per_s']:.1f}"
        f" chunks/s; bare embedding {i['bare_chunks_per_s']:.1f} chunks/s; ratio {i['ratio']:.2f} (target >= 0.70);"
        f" {100 * i['embedding_share_of_import']:.0f}% of import time is spent in the embedding model"
    )
    print("\nMarkdown (README 'Performance'):\n")
    print(
        "| Chunks | Requester | Strategy | p50 / p95 ms | Exact scan p50 / p95 ms | Ratio p50 | Recall@10"
        " | BM25 keyword p50 / p95 ms | ts_rank_cd keyword p50 / p95 ms | Vector-only p50 / p95 ms |"
    )
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for size in report["search"]:
        for name, r in size["requesters"].items():
            p, e = r["product_ms"], r["exact_ms"]
            b, t, v = r["bm25_keyword_ms"], r["ts_rank_keyword_ms"], r["vector_only_ms"]
            print(
                f"| {size['size']:,} | reads {name} | {'/'.join(r['strategies'])} | {p['p50']:.1f} / {p['p95']:.1f}"
                f" | {e['p50']:.1f} / {e['p95']:.1f} | {r['ratio_p50']:.2f} | {r['recall_at_10']:.3f}"
                f" | {b['p50']:.1f} / {b['p95']:.1f} | {t['p50']:.1f} / {t['p95']:.1f}"
                f" | {v['p50']:.1f} / {v['p95']:.1f} |"
            )
    print(f"\nQuery embedding: p50 {q['p50']:.1f} ms, p95 {q['p95']:.1f} ms.\n")
    print("| Ingestion notes/s | chunks/s | Bare embedding chunks/s | Ratio |")
    print("|---:|---:|---:|---:|")
    print(f"| {i['notes_per_s']:.1f} | {i['chunks_per_s']:.1f} | {i['bare_chunks_per_s']:.1f} | {i['ratio']:.2f} |")
    m = report["meta"]
    load = "/".join(f"{x:.1f}" for x in m["loadavg_start"])
    print(f"\n{m['cpus']} CPUs (load {load} at start), {m['postgres']}; {m['queries']} queries per cell;", end=" ")
    print(f"total {m['total_s']:.0f} s.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "search.json")
    args = parser.parse_args()
    started, load = time.perf_counter(), os.getloadavg()
    rng = np.random.default_rng(11)
    try:
        fresh_database()
        ingestion = bench_ingestion(make_user("bench-importer"))
        query_embedding = bench_query_embedding(rng)
        search = [bench_size(size, args.queries, rng) for size in args.sizes]
        with connection.cursor() as cursor:
            cursor.execute("SELECT version()")
            postgres = str(cursor.fetchone()[0]).split(" on ")[0]
    finally:
        drop_database()
    report = {
        "meta": {
            "cpus": os.cpu_count(),
            "loadavg_start": load,
            "loadavg_end": os.getloadavg(),
            "python": platform.python_version(),
            "postgres": postgres,
            "queries": args.queries,
            "warmup": WARMUP,
            "k": K,
            "vaults": VAULTS,
            "exact_scan_max_chunks": int(settings.SEARCH_EXACT_SCAN_MAX_CHUNKS),
            "hnsw_ef_search": int(settings.SEARCH_HNSW_EF_SEARCH),
            "query_noise": QUERY_NOISE,
            "total_s": seconds(started),
        },
        "search": search,
        "query_embedding_ms": query_embedding,
        "ingestion": ingestion,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    print_report(report)
    print(f"Figures written to {args.json}")


if __name__ == "__main__":
    main()
