"""Notes stored under an older reading of Markdown are read again by a sweep, without a re-import or an edit: what
the reading derives becomes what the current one makes of the same text, and only what differs is rewritten."""

from __future__ import annotations

import pytest
from django.conf import settings

from apps.notes.markdown import READING_VERSION, chunk_note, link_keys
from apps.notes.models import Chunk, ChunkVector, Note, NoteLink
from apps.notes.services.chunks import chunks_embed_pending, chunks_replace, drafts_for, links_resolve
from apps.notes.services.rereading import notes_reread
from tests.corpora import CORPORA
from tests.factories import import_folder, make_user, make_vault, unembedded

pytestmark = pytest.mark.django_db
KEVIN = "References/Kevin Kelly.md"


def _as_an_older_reading_stored_it(note: Note, title: str) -> None:
    """What the reading before the current title rule stored: the first heading anywhere named the note."""
    note.title, note.link_keys = title, link_keys(note.path, title, note.aliases)
    note.save(update_fields=["title", "link_keys"])
    chunks_replace(
        vault_id=note.vault_id,
        notes=[(note, chunk_note(title, note.body, max_chars=settings.CHUNK_MAX_CHARS))],
        embed=True,
    )
    links_resolve(vault_id=note.vault_id)


def test_notes_stored_under_an_older_reading_are_read_again_and_only_what_changed_is_rewritten():
    corpus = CORPORA / "kepano-obsidian"
    assert corpus.is_dir(), f"the real vaults are not at {CORPORA} (set DESIREPATH_CORPORA)"
    vault = make_vault(make_user("upgrader"), "kepano")
    import_folder(vault, corpus, source="kepano", follow_up=False)
    kevin = Note.objects.get(vault=vault, path=KEVIN)
    assert kevin.title == "Kevin Kelly" and kevin.read_with == READING_VERSION
    _as_an_older_reading_stored_it(kevin, "Clippings")
    Note.objects.filter(vault=vault).update(read_with=1)
    assert Note.objects.get(pk=kevin.pk).title == "Clippings"
    others = Chunk.objects.filter(vault=vault).exclude(note=kevin)
    chunks_before = set(others.values_list("pk", "content_hash"))
    vectors_before = ChunkVector.objects.filter(chunk__in=others).count()
    edited_before = dict(Note.objects.filter(vault=vault).values_list("pk", "updated_at"))
    stale_passages = set(Chunk.objects.filter(note=kevin).values_list("pk", flat=True))

    assert notes_reread(limit=10_000) == len(edited_before)

    kevin = Note.objects.get(pk=kevin.pk)
    assert (kevin.title, kevin.read_with) == ("Kevin Kelly", READING_VERSION)
    assert "clippings" not in kevin.link_keys and "kevin kelly" in kevin.link_keys
    # its passages were written again with its name, and wait for their vectors; every other note's are untouched
    passages = Chunk.objects.filter(note=kevin)
    assert stale_passages.isdisjoint(passages.values_list("pk", flat=True))
    read_now = [(d.ordinal, d.content_hash) for d in drafts_for(kevin)]  # the hashes carry the name it is read by
    assert list(passages.order_by("ordinal").values_list("ordinal", "content_hash")) == read_now
    assert set(unembedded(vault=vault).values_list("note_id", flat=True)) == {kevin.pk}
    assert set(others.values_list("pk", "content_hash")) == chunks_before
    assert ChunkVector.objects.filter(chunk__in=others).count() == vectors_before
    # being read again is not an edit
    assert dict(Note.objects.filter(vault=vault).values_list("pk", "updated_at")) == edited_before
    # the notes that link to it by its name reach it
    linking = NoteLink.objects.filter(vault=vault, target_text__iexact="Kevin Kelly")
    assert linking.count() >= 3 and set(linking.values_list("target_id", flat=True)) == {kevin.pk}

    chunks_embed_pending(vault_id=vault.pk)
    assert not unembedded(vault=vault).exists()
    assert notes_reread() == 0  # every note is read as the current reading reads it


@pytest.mark.parametrize("corpus", ["logseq-docs", "foam-docs"])
def test_reading_again_what_the_current_reading_stored_rewrites_nothing(corpus):
    vault = make_vault(make_user(f"reader-of-{corpus}"), corpus)
    import_folder(vault, CORPORA / corpus, source=corpus, follow_up=False)
    stored = {
        "notes": _notes(vault),
        "chunks": set(Chunk.objects.filter(vault=vault).values_list("pk", "content_hash")),
        "links": set(NoteLink.objects.filter(vault=vault).values_list("pk", "target_id")),
    }
    Note.objects.filter(vault=vault).update(read_with=1)

    assert notes_reread(limit=10_000) == len(stored["notes"])

    assert _notes(vault) == stored["notes"]
    assert set(Chunk.objects.filter(vault=vault).values_list("pk", "content_hash")) == stored["chunks"]
    assert set(NoteLink.objects.filter(vault=vault).values_list("pk", "target_id")) == stored["links"]
    assert not unembedded(vault=vault).exists()


def _notes(vault) -> dict[int, tuple]:  # type: ignore[no-untyped-def]
    rows = Note.objects.filter(vault=vault).values_list("pk", "title", "link_keys", "tags", "updated_at")
    return {pk: (title, tuple(keys), tuple(tags), updated) for pk, title, keys, tags, updated in rows}
