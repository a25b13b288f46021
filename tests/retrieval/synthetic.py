"""Synthetic corpora for index tests and benchmarks: many vaults, one chunk per note, clustered unit vectors.

Vectors are random but clustered the way real embeddings are; everything else (tables, triggers, indexes,
the search statement) is the product's own.
"""

from __future__ import annotations

import hashlib

import numpy as np
from django.db import connection

from apps.llm.embeddings import current_model
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


def populate(vaults: list[Vault], per_vault: int, dims: int, *, seed: int = 7) -> np.ndarray:
    """COPY `per_vault` notes of one embedded chunk each into every vault; returns the vectors in insert order."""
    total = len(vaults) * per_vault
    vectors = clustered_vectors(total, dims, seed=seed)
    rng = np.random.default_rng(seed + 1)
    model = current_model()
    with connection.cursor() as cursor:
        raw = cursor.cursor
        with raw.copy(
            "COPY notes_note (vault_id, path, title, body, frontmatter, tags, aliases, link_keys, provenance,"
            " content_hash, tier, cold_reason, source, created_at, updated_at) FROM STDIN"
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
        with raw.copy(
            "COPY notes_chunk (vault_id, note_id, ordinal, heading, text, content_hash, embedding, embedding_model,"
            " tier) FROM STDIN"
        ) as copy:
            for index, (note_id, vault_id) in enumerate(note_rows):
                words = " ".join(rng.choice(WORDS, size=40))
                copy.write_row(
                    (vault_id, note_id, 0, "", words, f"h{note_id}", vector_text(vectors[index]), model, "hot")
                )
        cursor.execute("ANALYZE notes_chunk")
        cursor.execute("ANALYZE notes_note")
    return vectors
