"""Synthetic corpora for index tests and benchmarks: many vaults, one chunk per note, clustered unit vectors.

Vectors are random but clustered the way real embeddings are; everything else (tables, triggers, indexes,
the search statement) is the product's own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from django.db import connection

from apps.llm.embeddings import current_model
from apps.notes.vectors import vector_index_ensure
from apps.vaults.models import Vault

WORDS = [
    "redis",
    "postgres",
    "celery",
    "vault",
    "note",
    "chunk",
    "index",
    "search",
    "latency",
    "budget",
    "garden",
    "recipe",
    "travel",
    "train",
    "basil",
    "tomato",
    "focaccia",
    "permit",
    "outage",
    "incident",
    "review",
    "decision",
    "tradeoff",
    "cache",
    "queue",
    "worker",
    "schema",
    "migration",
]


def clustered_vectors(count: int, dims: int, *, clusters: int = 64, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(clusters, dims))
    labels = rng.integers(0, clusters, size=count)
    vectors = centers[labels] + 0.6 * rng.normal(size=(count, dims))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors.astype(np.float32)


def vector_text(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.5f}" for x in vector) + "]"


@contextmanager
def copy_into(cursor: Any, table: str, columns: str) -> Iterator[Any]:
    """COPY rows into `table`. Row-level security refuses COPY FROM, so the rows go to a temporary table first and
    from there in one INSERT, which the table's policies check like any other."""
    staging = f"copy_{table}"
    cursor.execute(f"CREATE TEMP TABLE {staging} AS SELECT {columns} FROM {table} WITH NO DATA")
    with cursor.cursor.copy(f"COPY {staging} ({columns}) FROM STDIN") as copy:
        yield copy
    cursor.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {staging}")
    cursor.execute(f"DROP TABLE {staging}")


def populate(vaults: list[Vault], per_vault: int, dims: int, *, seed: int = 7, build_index: bool = True) -> np.ndarray:
    """COPY `per_vault` notes of one embedded chunk each into every vault; returns the vectors in insert order. The
    model's HNSW index is built after the rows are in (unless it exists, or `build_index` is off)."""
    total = len(vaults) * per_vault
    vectors = clustered_vectors(total, dims, seed=seed)
    rng = np.random.default_rng(seed + 1)
    model = current_model()
    with connection.cursor() as cursor:
        with copy_into(
            cursor,
            "notes_note",
            "vault_id, path, title, body, frontmatter, tags, aliases, link_keys, provenance, content_hash, tier,"
            " cold_reason, source, created_at, updated_at",
        ) as copy:
            for v_index, vault in enumerate(vaults):
                for i in range(per_vault):
                    path = f"synthetic/{v_index}/{i}.md"
                    copy.write_row(
                        (
                            vault.pk,
                            path,
                            path,
                            "synthetic",
                            "{}",
                            "{}",
                            "{}",
                            "{}",
                            "authored",
                            hashlib.sha256(path.encode()).hexdigest(),
                            "hot",
                            "",
                            "bench",
                            "now",
                            "now",
                        )
                    )
        cursor.execute(
            "SELECT id, vault_id FROM notes_note WHERE source = 'bench' AND vault_id = ANY(%s) ORDER BY id",
            [[v.pk for v in vaults]],
        )
        note_rows = cursor.fetchall()
        with copy_into(cursor, "notes_chunk", "vault_id, note_id, ordinal, heading, text, content_hash, tier") as copy:
            for note_id, vault_id in note_rows:
                words = " ".join(rng.choice(WORDS, size=40))
                copy.write_row((vault_id, note_id, 0, "", words, f"h{note_id}", "hot"))
        cursor.execute(
            "SELECT c.id, c.note_id, c.vault_id FROM notes_chunk c JOIN notes_note n ON n.id = c.note_id"
            " WHERE n.source = 'bench' AND c.vault_id = ANY(%s)",
            [[v.pk for v in vaults]],
        )
        chunk_of = {note_id: (chunk_id, vault_id) for chunk_id, note_id, vault_id in cursor.fetchall()}
        with copy_into(cursor, "notes_chunkvector", "chunk_id, model, vault_id, note_id, tier, embedding") as copy:
            for index, (note_id, _) in enumerate(note_rows):
                chunk_id, vault_id = chunk_of[note_id]
                copy.write_row((chunk_id, model, vault_id, note_id, "hot", vector_text(vectors[index])))
        if build_index:
            vector_index_ensure(model)
        cursor.execute("ANALYZE notes_chunk")
        cursor.execute("ANALYZE notes_chunkvector")
        cursor.execute("ANALYZE notes_note")
    return vectors
