"""Where each embedding model's vectors live: rows of `notes_chunkvector` tagged with the model, and one partial HNSW
index per model over the vector cast to that model's size.

pgvector indexes a vector column only at one size, so a table holding 384- and 768-dimensional rows is indexed
per model: `USING hnsw ((embedding::vector(768)) vector_cosine_ops) WHERE (model || '') = '…'`. A search repeats
both the cast and the predicate with the model as a literal, so the planner matches exactly that model's index
(iterative scans included), and the index holds no other model's rows. The predicate is an expression no btree
indexes, so when search has ruled the btrees out (a large scope) none can serve the model filter instead.
Dropping a model deletes its rows and its index; the rest is untouched.
"""

from __future__ import annotations

import hashlib

from django.db import connection
from django.db.models import Exists, OuterRef, QuerySet

from apps.llm.embeddings import model_dimensions
from apps.notes.models import Chunk, ChunkVector


def index_name(model: str) -> str:
    return f"chunkvector_hnsw_{hashlib.sha1(model.encode(), usedforsecurity=False).hexdigest()[:12]}"


def vector_cast(model: str) -> str:
    """The SQL type a model's vectors are compared as: the cast its HNSW index is built over."""
    return f"vector({int(model_dimensions(model))})"


def vector_index_exists(model: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [index_name(model)])
        return cursor.fetchone() is not None


def vector_index_ensure(model: str) -> None:
    """Build the model's HNSW index if it is not there (built once; kept up to date by PostgreSQL afterwards)."""
    if vector_index_exists(model):
        return
    with connection.cursor() as cursor:
        # PostgreSQL will not index a table with deferred foreign-key checks pending in this transaction: run them
        # now, then defer again (every deferrable constraint here is a foreign key, initially deferred).
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        # Built by the table's owner (migration notes 0018): the application's role may not create an index.
        cursor.execute(
            "SELECT desirepath_vector_index_build(%s, %s, %s)",
            [index_name(model), int(model_dimensions(model)), model],
        )
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def vectors_drop(model: str) -> int:
    """Remove every vector of `model` and its index; returns how many vectors went."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT desirepath_vector_index_drop(%s)", [index_name(model)])
    deleted, _ = ChunkVector.objects.filter(model=model).delete()
    return deleted


def chunks_without_vector(model: str) -> QuerySet[Chunk]:
    """Chunks `model` has not embedded yet."""
    return Chunk.objects.filter(~Exists(ChunkVector.objects.filter(chunk=OuterRef("pk"), model=model)))
