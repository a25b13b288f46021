"""Store a note's chunks, reusing embeddings by content hash and embedding only what is new."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from django.conf import settings
from django.db import connection

from apps.llm.embeddings import current_model, embed_texts
from apps.notes.markdown import ChunkDraft, chunk_note, embed_input
from apps.notes.models import Chunk, Correction, CorrectionStatus, Note, Tier


def drafts_for(note: Note) -> list[ChunkDraft]:
    return chunk_note(note.title, note.body, max_chars=int(settings.CHUNK_MAX_CHARS))


def chunks_replace(*, vault_id: int, notes: Sequence[tuple[Note, list[ChunkDraft]]], embed: bool) -> int:
    """Replace the chunks of `notes`; returns how many texts were sent to the embedding model.

    Embeddings of unchanged chunk texts (same hash, same model) are reused from this vault; with
    `embed=False` new chunks wait for `chunks_embed_pending` (a Celery task) with a null embedding.
    """
    if not notes:
        return 0
    model = current_model()
    wanted = {d.content_hash for _, drafts in notes for d in drafts}
    known: dict[str, object] = dict(
        Chunk.objects.filter(vault_id=vault_id, content_hash__in=wanted, embedding_model=model)
        .exclude(embedding=None)
        .values_list("content_hash", "embedding")
        .distinct("content_hash")
        .order_by("content_hash")
    )
    missing: dict[str, str] = {}
    for _, drafts in notes:
        for draft in drafts:
            if draft.content_hash not in known:
                missing.setdefault(draft.content_hash, draft.embed_text)
    if embed and missing:
        vectors = embed_texts(list(missing.values()))
        known.update(zip(missing.keys(), vectors, strict=True))
    applied = Correction.objects.filter(note_id__in=[note.pk for note, _ in notes], status=CorrectionStatus.APPLIED)
    superseded: set[tuple[int, str]] = set()
    for note_id, content_hash, passage in applied.values_list("note_id", "content_hash", "passage"):
        superseded |= {(note_id, content_hash), (note_id, passage)}
    # passages an applied correction replaced stay cold when their note is re-chunked, renamed or retitled
    Chunk.objects.filter(note_id__in=[note.pk for note, _ in notes]).delete()
    rows = [
        Chunk(
            vault_id=vault_id,
            note=note,
            ordinal=draft.ordinal,
            heading=draft.heading,
            text=draft.text,
            content_hash=draft.content_hash,
            embedding=known.get(draft.content_hash),
            embedding_model=model if draft.content_hash in known else "",
            tier=Tier.COLD if {(note.pk, draft.content_hash), (note.pk, draft.text)} & superseded else note.tier,
        )
        for note, drafts in notes
        for draft in drafts
    ]
    Chunk.objects.bulk_create(rows, batch_size=500)
    return len(missing) if embed else 0


_STORE_VECTORS = """
UPDATE notes_chunk AS c SET embedding = v.embedding::vector, embedding_model = %(model)s
FROM unnest(%(hashes)s::text[], %(vectors)s::text[]) AS v(content_hash, embedding)
WHERE c.vault_id = %(vault)s AND c.note_id = ANY(%(notes)s) AND c.content_hash = v.content_hash
  AND c.embedding_model <> %(model)s
"""


def chunks_store_vectors(*, vault_id: int, note_ids: Sequence[int], vectors: dict[str, list[float]], model: str) -> int:
    """Give the waiting chunks of these notes their vectors, by content hash, in one statement (a text shared by
    several chunks is embedded once). A chunk replaced meanwhile by an edit is simply no longer there."""
    with connection.cursor() as cursor:
        cursor.execute(
            _STORE_VECTORS,
            {
                "model": model,
                "hashes": list(vectors),
                "vectors": [f"[{','.join(map(str, vector))}]" for vector in vectors.values()],
                "vault": vault_id,
                "notes": list(note_ids),
            },
        )
        return cursor.rowcount


def chunks_embed_pending(*, vault_id: int | None = None, batch: int = 256, limit: int | None = None) -> int:
    """Embed chunks that have no embedding from the current model (new API writes, model changes).

    Returns how many were embedded; stops after `limit` if given (callers showing progress)."""
    model = current_model()
    done = 0
    while limit is None or done < limit:
        pending = Chunk.objects.exclude(embedding_model=model)
        if vault_id is not None:
            pending = pending.filter(vault_id=vault_id)
        rows = list(pending.select_related("note").order_by("id")[:batch])
        if not rows:
            return done
        vectors = embed_texts([embed_input(row.note.title, row.heading, row.text) for row in rows])
        for row, vector in zip(rows, vectors, strict=True):
            row.embedding = vector
            row.embedding_model = model
        Chunk.objects.bulk_update(rows, ["embedding", "embedding_model"], batch_size=256)
        done += len(rows)
    return done


_RESOLVE = """
UPDATE notes_notelink AS l SET target_id = r.target
FROM (
    SELECT l2.id,
           CASE WHEN l2.kind = 'block' THEN (
               SELECT n.id FROM notes_note n
               WHERE n.vault_id = l2.vault_id AND n.tier = 'hot'
                 AND n.block_ids @> ARRAY[l2.target_text]::varchar[]
               ORDER BY n.id LIMIT 1)
           WHEN l2.target_text = '' THEN l2.source_id ELSE (
               SELECT n.id FROM notes_note n
               WHERE n.vault_id = l2.vault_id AND n.tier = 'hot'
                 AND n.link_keys @> ARRAY[lower(l2.target_text)]::varchar[]
               ORDER BY n.id LIMIT 1)
           END AS target
    FROM notes_notelink l2 WHERE l2.vault_id = %(vault)s {scope}
) AS r
WHERE l.id = r.id AND l.target_id IS DISTINCT FROM r.target
"""
# The links a change to some notes can move: those the notes write, and those whose target text is one of the
# names (link keys, block ids) the notes gave up or took on. Both halves are read through an index.
_SCOPE = """
    AND l2.id IN (
        SELECT id FROM notes_notelink WHERE source_id = ANY(%(sources)s)
        UNION
        SELECT id FROM notes_notelink WHERE vault_id = %(vault)s AND lower(target_text) = ANY(%(names)s)
    )
"""


def links_resolve(*, vault_id: int, names: Collection[str] | None = None, source_ids: Collection[int] = ()) -> None:
    """Point [[wikilinks]] at the live note they name (by path, file name, title or alias), and ((block
    references)) at the live note that declares the block.

    Without `names`, every link of the vault. With them, only the links of `source_ids` and the links whose
    target text is one of `names`: a write passes the link keys and block ids its notes gained, lost, or (moving
    tier) all of them, so a vault's other links are not read again."""
    with connection.cursor() as cursor:
        if names is None:
            cursor.execute(_RESOLVE.format(scope=""), {"vault": vault_id})
        else:
            names = sorted({name.lower() for name in names})
            cursor.execute(
                _RESOLVE.format(scope=_SCOPE), {"vault": vault_id, "names": names, "sources": list(source_ids)}
            )


def names_of(note: Note) -> set[str]:
    """The names a link can give `note` by: its link keys (lowercased already) and its block ids."""
    return {*note.link_keys, *note.block_ids}
