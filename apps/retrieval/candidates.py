"""Candidates for the relevance gate: the search's hits with their full chunk text and meaning similarity.

Read in one SQL statement that repeats the permission filter (`vault_id = ANY(%(scope)s)`, from a `Scope`), so a
chunk id that reached this point by any route is still never read from a vault the requester cannot read, nor from a
note drawn from one (`drawn_from`: what the Librarian filed, summarised or published). A query embedded just
before a model switch completed has another size than the active model's vectors: it scores 0, never an error.
A passage other than its note's first carries the note's byline, read from the first in the same statement under the
same filter, and only while the first is served (a corrected passage is not); a passage of a note with a decision
section ("## Decision") carries what it decided, read the same way from the section's first served passage. Every
passage of a note with a body carries the note's properties ("date: 2023-09-12"), which no passage's text holds. A
passage that opens like a speaker line is read with its note's text, which tells whether it is a turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection

from apps.core.text import names_of_thing, thing_asked_about, titled_as
from apps.llm.embeddings import current_model
from apps.notes.markdown import DECISION_HEADING_LINE, DECISION_HEADING_PATH, byline_of, decision_of
from apps.notes.models import Chunk, Tier
from apps.notes.turns import is_turn, speakers
from apps.retrieval.search import SearchHit, vector_literal
from apps.retrieval.trace import Trace
from apps.vaults.scope import Scope

# A speaker line's colon lies within a time stamp and a name of this many characters; only then is the note's text
# read, to tell a conversation's turn from a label ("Evening: …").
SPEAKER_REACH = 90
_CANDIDATES = r"""
SELECT c.id, c.note_id, c.vault_id, n.path, n.title, c.heading, c.text, n.provenance,
       CASE WHEN %(qvec)s::vector IS NULL OR v.embedding IS NULL
                 OR vector_dims(v.embedding) <> vector_dims(%(qvec)s::vector) THEN 0.0
            ELSE 1 - (v.embedding <=> %(qvec)s::vector) END AS similarity,
       v.embedding IS NOT NULL AS embedded,
       CASE WHEN c.ordinal = 0 THEN '' ELSE COALESCE(
           (SELECT f.text FROM notes_chunk f
            WHERE f.note_id = c.note_id AND f.ordinal = 0 AND f.tier = 'hot' AND f.vault_id = ANY(%(scope)s)
            ORDER BY f.id LIMIT 1), '') END AS opening,
       COALESCE(decided.heading, ''), COALESCE(decided.text, ''),
       CASE WHEN c.ordinal = 0 THEN c.properties ELSE COALESCE(
           (SELECT f.properties FROM notes_chunk f
            WHERE f.note_id = c.note_id AND f.ordinal = 0 AND f.tier = 'hot' AND f.vault_id = ANY(%(scope)s)
            ORDER BY f.id LIMIT 1), '') END AS properties,
       CASE WHEN left(ltrim(c.text), %(speaker_reach)s) ~ ':\s' THEN n.body ELSE '' END AS talk
FROM notes_chunk c JOIN notes_note n ON n.id = c.note_id AND n.vault_id = ANY(%(scope)s)
    AND n.drawn_from <@ %(readable)s::bigint[]
LEFT JOIN notes_chunkvector v ON v.chunk_id = c.id AND v.model = %(model)s AND v.vault_id = ANY(%(scope)s)
LEFT JOIN LATERAL (
    SELECT d.heading, d.text FROM notes_chunk d
    WHERE d.note_id = c.note_id AND d.tier = 'hot' AND d.vault_id = ANY(%(scope)s)
        AND (d.heading ~* %(decision)s OR d.text ~* %(decision_line)s)
    ORDER BY d.ordinal, d.id LIMIT 1
) decided ON NOT (c.heading ~* %(decision)s OR c.text ~* %(decision_line)s)
WHERE c.id = ANY(%(chunks)s) AND c.vault_id = ANY(%(scope)s)
"""


@dataclass(frozen=True)
class Candidate:
    chunk: int
    note: int
    vault: int
    path: str
    title: str
    heading: str
    text: str
    provenance: str
    rank: int  # 0-based position in the search's ranking
    similarity: float  # cosine between the message and the chunk (0 when no vector)
    trace: Trace | None = None  # the graph path that brought it, for feedback on paths
    embedded: bool = True  # False for a passage written since the last embedding run: its similarity is unknown
    byline: str = ""  # its note's byline ("**Author:** …"), when the passage is not the note's first, which holds it
    decision: str = ""  # what its note decided ("## Decision"), when the passage is not the one that says it
    properties: str = ""  # its note's properties, one "key: value" line each, when no passage's text holds them
    turn: bool = False  # a conversation's turn (`is_turn`), not a passage of a note


def load_candidates(*, hits: list[SearchHit], query_vector: list[float] | None, scope: Scope) -> list[Candidate]:
    """The hits' chunks, in the search's order, read only from `scope`."""
    return load_chunks(chunks=[hit.chunk for hit in hits], query_vector=query_vector, scope=scope)


def with_openings(hits: Sequence[SearchHit], question: str, scope: Scope) -> list[int]:
    """The hits' chunks, each note titled as the thing a "What is …?" question asks about followed by its opening
    passage: search offers a note by its passage closest to the question, which for "What is a block anchor?" is
    one that uses block anchors, while the note says what one is at its top."""
    chunks = [hit.chunk for hit in hits]
    thing = thing_asked_about(question)
    if thing is None:
        return chunks
    names = names_of_thing(thing)
    titled = [hit.note for hit in hits if titled_as(hit.title, names)]
    if not titled:
        return chunks
    top = Chunk.objects.filter(note_id__in=titled, ordinal=0).exclude(tier=Tier.COLD)  # as search reads them
    openings = dict(scope.filter(top).values_list("note_id", "pk"))
    out: list[int] = []
    for hit in hits:
        out.append(hit.chunk)
        opening = openings.get(hit.note)
        if opening is not None and opening not in chunks and opening not in out:
            out.append(opening)
    return out


def load_chunks(*, chunks: list[int], query_vector: list[float] | None, scope: Scope) -> list[Candidate]:
    """Chunks as candidates, in the given order (their rank), read only from `scope` and only of notes drawn from
    no vault outside its `readable`."""
    if not chunks or not scope:
        return []
    params = {
        "qvec": vector_literal(query_vector) if query_vector is not None else None,
        **scope.params(),
        "chunks": chunks,
        "model": current_model(),
        "decision": DECISION_HEADING_PATH,
        "decision_line": DECISION_HEADING_LINE,
        "speaker_reach": SPEAKER_REACH,
    }
    with connection.cursor() as cursor:
        cursor.execute(_CANDIDATES, params)
        rows = {row[0]: row for row in cursor.fetchall()}
    found = [rows[chunk] for chunk in chunks if chunk in rows]
    bodies = {row[1]: row[-1] for row in found if row[-1]}
    talk = {note: speakers(body) for note, body in bodies.items()}  # who speaks in each note, read once
    return [_candidate(row, rank, talk.get(row[1], set())) for rank, row in enumerate(found)]


def _candidate(row: tuple[Any, ...], rank: int, spoken_by: set[str]) -> Candidate:
    chunk, note, vault, path, title, heading, text, provenance, similarity, embedded, opening, *rest = row
    decided_heading, decided_text, properties, _ = rest
    return Candidate(
        chunk,
        note,
        vault,
        path,
        title,
        heading,
        text,
        provenance,
        rank,
        float(similarity),
        embedded=bool(embedded),
        byline=byline_of(opening),
        decision=decision_of(decided_text, decided_heading),
        properties=properties,
        turn=is_turn(text, spoken_by),
    )
