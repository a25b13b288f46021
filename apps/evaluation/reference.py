"""The flat reference printed beside the product's pipelines: the simplest retrieval a reader could build alone.

Recipe, computed in-process on the notes and chunks the run ingested:
- `ref-bm25`: BM25 over whole notes (path and raw text, frontmatter included), lower-cased `\\w+` tokens, with
  rank-bm25's BM25Okapi defaults: k1 = 1.5, b = 0.75, idf = ln((N - df + 0.5) / (df + 0.5)), and a term whose idf
  would be negative (in more than half the notes) gets 0.25 × the mean idf instead.
- `ref-dense`: MiniLM (the product's model and its stored chunk vectors), a note scored by its best chunk's cosine.
- `ref-rrf`: reciprocal rank fusion of the two with k = 60.
Each ranking lists one chunk per note (the note's best chunk for meaning, its first for BM25), so the harness scores
it like the product's note-level pipelines.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from apps.llm.embeddings import current_model, embed_query
from apps.notes.models import ChunkVector, Note
from apps.vaults.models import Vault

TOKEN = re.compile(r"\w+")
K1, B, EPSILON = 1.5, 0.75, 0.25
RRF_K = 60
DEPTH = 50
REFERENCES = ("ref-bm25", "ref-dense", "ref-rrf")


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


class Bm25Okapi:
    """rank-bm25's BM25Okapi, in a few lines (the package is not a dependency)."""

    def __init__(self, documents: list[list[str]]) -> None:
        self.frequencies = [Counter(doc) for doc in documents]
        self.lengths = np.array([len(doc) for doc in documents], dtype=float)
        self.average = float(self.lengths.mean()) if documents else 0.0
        df: Counter[str] = Counter(term for freq in self.frequencies for term in freq)
        n = len(documents)
        idf = {term: math.log((n - count + 0.5) / (count + 0.5)) for term, count in df.items()}
        floor = EPSILON * (sum(idf.values()) / len(idf)) if idf else 0.0
        self.idf = {term: value if value >= 0 else floor for term, value in idf.items()}

    def scores(self, query: list[str]) -> np.ndarray:
        scores = np.zeros(len(self.frequencies))
        norm = K1 * (1 - B + B * self.lengths / max(self.average, 1e-9))
        for term in query:
            if term not in self.idf:
                continue
            tf = np.array([freq.get(term, 0) for freq in self.frequencies], dtype=float)
            scores += self.idf[term] * tf * (K1 + 1) / (tf + norm)
        return scores


@dataclass
class FlatReference:
    notes: list[int]  # note ids, in the BM25 index's order
    first_chunk: dict[int, int]
    bm25: Bm25Okapi
    chunk_ids: list[int]
    chunk_notes: list[int]
    vectors: np.ndarray  # unit rows, one per embedded chunk

    @classmethod
    def of(cls, vault: Vault) -> FlatReference:
        notes = list(Note.objects.filter(vault=vault, tier="hot").order_by("pk").values_list("pk", "path", "body"))
        chunks = list(
            ChunkVector.objects.filter(vault=vault, tier="hot", model=current_model())
            .order_by("note_id", "chunk__ordinal")
            .values_list("chunk_id", "note_id", "embedding")
        )
        first: dict[int, int] = {}
        for chunk, note, _ in chunks:
            first.setdefault(note, chunk)
        vectors = np.array([np.asarray(vec, dtype=float) for _, _, vec in chunks]).reshape(len(chunks), -1)
        if len(vectors):
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return cls(
            notes=[pk for pk, _, _ in notes],
            first_chunk=first,
            bm25=Bm25Okapi([tokens(f"{path}\n{body}") for _, path, body in notes]),
            chunk_ids=[c for c, _, _ in chunks],
            chunk_notes=[n for _, n, _ in chunks],
            vectors=vectors,
        )

    def bm25_notes(self, query: str) -> list[int]:
        scores = self.bm25.scores(tokens(query))
        order = np.argsort(-scores, kind="stable")
        return [self.notes[i] for i in order[:DEPTH] if scores[i] > 0]

    def dense(self, query_vector: list[float]) -> tuple[list[int], dict[int, int]]:
        """Notes by their best chunk's cosine, and that chunk."""
        if not len(self.vectors):
            return [], {}
        sims = self.vectors @ np.asarray(query_vector, dtype=float)
        best: dict[int, int] = {}
        for i in np.argsort(-sims, kind="stable"):
            best.setdefault(self.chunk_notes[i], self.chunk_ids[i])
            if len(best) == DEPTH:
                break
        return list(best), best

    def rankings(self, query: str, query_vector: list[float] | None = None) -> dict[str, list[int]]:
        """Chunk ids, one per note, best first, for each of REFERENCES."""
        vector = query_vector if query_vector is not None else embed_query(query)
        lexical = self.bm25_notes(query)
        meaning, best = self.dense(vector)
        fused: dict[int, float] = {}
        for ranking in (lexical, meaning):
            for rank, note in enumerate(ranking, start=1):
                fused[note] = fused.get(note, 0.0) + 1.0 / (RRF_K + rank)
        rrf = sorted(fused, key=lambda note: -fused[note])[:DEPTH]

        def chunk(note: int) -> int:
            return best.get(note) or self.first_chunk.get(note, -1)

        return {
            "ref-bm25": [chunk(n) for n in lexical],
            "ref-dense": [chunk(n) for n in meaning],
            "ref-rrf": [chunk(n) for n in rrf],
        }
