"""Store a note's chunks, reusing embeddings by content hash and embedding only what is new."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from django.conf import settings
from django.db import connection
from django.db.models.functions import Lower

from apps.llm.embeddings import current_model, embed_texts
from apps.notes.markdown import ChunkDraft, chunk_note, embed_input
from apps.notes.models import Chunk, ChunkVector, Correction, CorrectionStatus, LinkKind, Note, NoteLink, Tier
from apps.notes.rendering.embeds import note_body
from apps.notes.rendering.logseq import block_of, block_text
from apps.notes.syntax import referenced_block_ids
from apps.notes.vectors import chunks_without_vector, vector_index_ensure


def drafts_for(note: Note) -> list[ChunkDraft]:
    shown = shown_blocks(note)
    return chunk_note(note.title, note.body, max_chars=int(settings.CHUNK_MAX_CHARS), shown_blocks=shown)


def shown_blocks(note: Note) -> dict[str, str]:
    """What each Logseq block `note` refers to shows (by id): the block's first line, from the note itself or the
    live note of its vault that declares it (the one its reference links to)."""
    wanted = referenced_block_ids(note.body)
    if not wanted:
        return {}
    holders = [note] if set(note.block_ids) & wanted else []
    holders += (
        Note.objects.filter(vault_id=note.vault_id, tier=Tier.HOT, block_ids__overlap=sorted(wanted))
        .exclude(pk=note.pk)
        .order_by("pk")
        .only("body", "block_ids")
    )
    shown: dict[str, str] = {}
    for holder in holders:
        body = note_body(holder.body)
        for block_id in wanted & set(holder.block_ids) - shown.keys():
            if (block := block_of(body, block_id)) is not None:
                shown[block_id] = block_text(block)
    return shown


def chunks_replace(*, vault_id: int, notes: Sequence[tuple[Note, list[ChunkDraft]]], embed: bool) -> int:
    """Replace the chunks of `notes`; returns how many texts were sent to the embedding model.

    Vectors of unchanged chunk texts (same hash, any model) are reused from this vault; with `embed=False` new
    chunks wait for `chunks_embed_pending` (a Celery task) without a vector of the current model.
    """
    if not notes:
        return 0
    model = current_model()
    wanted = {d.content_hash for _, drafts in notes for d in drafts}
    # every model's vectors of unchanged texts are kept, so a model being built beside the current one keeps its own
    reused: dict[tuple[str, str], object] = {
        (vector_model, content_hash): embedding
        for vector_model, content_hash, embedding in ChunkVector.objects.filter(
            vault_id=vault_id, chunk__content_hash__in=wanted
        )
        .values_list("model", "chunk__content_hash", "embedding")
        .distinct("model", "chunk__content_hash")
        .order_by("model", "chunk__content_hash")
    }
    known: dict[str, object] = {h: vector for (m, h), vector in reused.items() if m == model}
    missing: dict[str, str] = {}
    for _, drafts in notes:
        for draft in drafts:
            if draft.content_hash not in known:
                missing.setdefault(draft.content_hash, draft.embed_text)
    if embed and missing:
        vectors = embed_texts(list(missing.values()))
        known.update(zip(missing.keys(), vectors, strict=True))
        reused.update(((model, h), vector) for h, vector in zip(missing.keys(), vectors, strict=True))
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
            properties=draft.properties,
            content_hash=draft.content_hash,
            tier=Tier.COLD if {(note.pk, draft.content_hash), (note.pk, draft.text)} & superseded else note.tier,
        )
        for note, drafts in notes
        for draft in drafts
    ]
    Chunk.objects.bulk_create(rows, batch_size=500)
    by_hash: dict[str, list[tuple[str, object]]] = {}
    for (vector_model, content_hash), embedding in reused.items():
        by_hash.setdefault(content_hash, []).append((vector_model, embedding))
    for vector_model in {m for m, _ in reused}:
        vector_index_ensure(vector_model)
    ChunkVector.objects.bulk_create(
        [
            ChunkVector(chunk=row, model=vector_model, embedding=embedding)
            for row in rows
            for vector_model, embedding in by_hash.get(row.content_hash, [])
        ],
        batch_size=500,
    )
    return len(missing) if embed else 0


_STORE_VECTORS = """
INSERT INTO notes_chunkvector (chunk_id, model, embedding)
SELECT c.id, %(model)s, v.embedding::vector
FROM unnest(%(hashes)s::text[], %(vectors)s::text[]) AS v(content_hash, embedding)
JOIN notes_chunk c ON c.content_hash = v.content_hash AND c.vault_id = %(vault)s AND c.note_id = ANY(%(notes)s)
ON CONFLICT (chunk_id, model) DO NOTHING
"""


def chunks_store_vectors(*, vault_id: int, note_ids: Sequence[int], vectors: dict[str, list[float]], model: str) -> int:
    """Give the waiting chunks of these notes their vectors, by content hash, in one statement (a text shared by
    several chunks is embedded once). A chunk replaced meanwhile by an edit is simply no longer there."""
    vector_index_ensure(model)
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


def chunks_embed_pending(
    *, vault_id: int | None = None, batch: int = 256, limit: int | None = None, model: str | None = None
) -> int:
    """Embed chunks that have no vector from `model` (the current one by default): new API writes, model changes.

    Each batch commits on its own, so a run cut short keeps what it stored and the next run continues with the
    chunks still lacking a vector. Returns how many were embedded; stops after `limit` if given."""
    model = model or current_model()
    vector_index_ensure(model)
    done = 0
    while limit is None or done < limit:
        pending = chunks_without_vector(model)
        if vault_id is not None:
            pending = pending.filter(vault_id=vault_id)
        rows = list(pending.select_related("note").order_by("id")[:batch])
        if not rows:
            return done
        vectors = embed_texts([embed_input(row.note.title, row.heading, row.text) for row in rows], model=model)
        ChunkVector.objects.bulk_create(
            [ChunkVector(chunk=row, model=model, embedding=vector) for row, vector in zip(rows, vectors, strict=True)],
            ignore_conflicts=True,
        )
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


def block_referrers_read_again(*, vault_id: int, block_ids: Collection[str], written: Collection[int] = ()) -> int:
    """Mark for the re-reading sweep the notes of the vault that refer to one of these blocks (but `written`, read
    just now): their passages show the blocks' text, which a write of the note declaring them may have changed."""
    if not block_ids:
        return 0
    referring = (
        NoteLink.objects.annotate(key=Lower("target_text"))
        .filter(vault_id=vault_id, kind=LinkKind.BLOCK, key__in=sorted(block_ids))
        .values("source_id")
    )
    return Note.objects.filter(pk__in=referring).exclude(pk__in=list(written)).update(read_with=0)


def names_of(note: Note) -> set[str]:
    """The names a link can give `note` by: its link keys (lowercased already) and its block ids."""
    return {*note.link_keys, *note.block_ids}
