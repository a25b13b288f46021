"""Reading stored notes again when how notes are read has changed (`READING_VERSION`): their titles, link names,
properties, links and passages become what the current reading makes of the same text, with no re-import (which
leaves files it finds unchanged alone) and no edit.

A note is read again from its stored text under a lock taken without waiting (a note being written is left for the
next sweep, which its writer's own reading makes unnecessary); only what differs is written: passages are replaced
(and wait for their vectors) only when their text changed, links only when they did, so a sweep over notes the
change did not touch costs a parse each and writes one number."""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import QuerySet

from apps.notes.markdown import READING_VERSION, ChunkDraft, NoteFormatError, ParsedNote, parse_note
from apps.notes.models import Chunk, Note, NoteLink
from apps.notes.services.chunks import chunks_replace, drafts_for, links_resolve, names_of
from apps.notes.services.notes import apply_parsed, embed_later, links_replace

logger = logging.getLogger(__name__)

REREAD_BATCH = 200
# What a reading derives from a note's text (its path, text and hash are what was read).
READ_FIELDS = ["title", "frontmatter", "tags", "aliases", "link_keys", "block_ids", "read_with"]


def notes_reread(*, limit: int = REREAD_BATCH) -> int:
    """Read again up to `limit` notes stored under an older reading (or marked to be read again); returns how many
    were read. Their changed passages wait for the embedding sweep."""
    with transaction.atomic():
        read, changed = _reread_each(Note.objects.filter(read_with__lt=READING_VERSION), limit=limit)
        for vault_id in sorted({vault_id for _, vault_id in changed}):
            embed_later(vault_id)
    return read


def vault_notes_reread(*, vault_id: int) -> list[int]:
    """Read again every note of a vault stored under an older reading; the notes whose passages changed (they
    wait for vectors, which the caller sees to)."""
    with transaction.atomic():
        _, changed = _reread_each(Note.objects.filter(vault_id=vault_id, read_with__lt=READING_VERSION))
    return [note_id for note_id, _ in changed]


def _reread_each(stale: QuerySet[Note], *, limit: int | None = None) -> tuple[int, list[tuple[int, int]]]:
    """Read each stale note again under a lock taken without waiting; how many were read, and the (note, vault)
    whose passages changed."""
    rows = stale.select_for_update(skip_locked=True).order_by("pk")
    read, changed = 0, []
    for note in rows[:limit] if limit is not None else rows:
        try:
            with transaction.atomic():
                if _reread(note):
                    changed.append((note.pk, note.vault_id))
        except Exception:  # one note's failure never stops the others; it keeps what it was read as before
            logger.exception("note %s could not be read again", note.pk)
            Note.objects.filter(pk=note.pk).update(read_with=READING_VERSION)
        read += 1
    return read, changed


def _reread(note: Note) -> bool:
    """Read `note` again; True when its passages changed (they wait for vectors)."""
    try:
        parsed = parse_note(note.path, note.body)
    except NoteFormatError:  # stored before a rule that now refuses it: kept as it was read then
        Note.objects.filter(pk=note.pk).update(read_with=READING_VERSION)
        return False
    names_before, chunks_before, links_before = names_of(note), _passages(note), _links(note)
    apply_parsed(note, parsed)
    note.save(update_fields=READ_FIELDS)  # the text is as it was: not an edit, so `updated_at` stays
    drafts = drafts_for(note)
    passages_changed = [_draft_key(d) for d in drafts] != chunks_before
    if passages_changed:
        chunks_replace(vault_id=note.vault_id, notes=[(note, drafts)], embed=False)
    links_changed = _parsed_links(parsed) != links_before
    if links_changed:
        links_replace(note, parsed)
    moved = names_before ^ names_of(note)  # links elsewhere that named it by a name it gained or lost
    if links_changed or moved:
        links_resolve(vault_id=note.vault_id, names=moved, source_ids=[note.pk])
    return passages_changed


def _draft_key(draft: ChunkDraft) -> tuple:
    return (draft.ordinal, draft.heading, draft.text, draft.properties, draft.content_hash)


def _passages(note: Note) -> list[tuple]:
    rows = Chunk.objects.filter(note=note).order_by("ordinal")
    return list(rows.values_list("ordinal", "heading", "text", "properties", "content_hash"))


def _links(note: Note) -> list[tuple]:
    rows = NoteLink.objects.filter(source=note).order_by("ordinal")
    return list(rows.values_list("target_text", "heading", "alias", "kind", "block_id"))


def _parsed_links(parsed: ParsedNote) -> list[tuple]:
    return [
        (link.target[:500], link.heading[:500], link.alias[:500], link.kind, link.block_id[:200])
        for link in parsed.links
    ]
