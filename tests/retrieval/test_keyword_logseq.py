"""What the keyword index reads of real Logseq pages (logseq-docs, from /work/shared/corpora): a page's
`key:: value` properties count once, hidden `id::` / `collapsed::` block properties and `((uuid))` references add
no terms, the `m` of "I'm" matches nothing, and a namespaced page `pages/a___b.md` is the page `a/b` its links name."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.db import connection

from apps.notes.models import Note, NoteLink
from apps.retrieval.search import hybrid_search
from tests.corpora import CORPORA
from tests.factories import import_folder, make_user, make_vault

pytestmark = pytest.mark.django_db

LOGSEQ = CORPORA / "logseq-docs"


def _import(tmp_path: Path, *paths: str):
    for path in paths:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(LOGSEQ / path, tmp_path / path)
    vault = make_vault(make_user(), "logseq")
    assert import_folder(vault, tmp_path).status == "succeeded"
    return vault


def _terms(note: Note) -> dict[str, int]:
    """The note's first chunk's postings: term → frequency."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.term, p.tf FROM notes_chunkterm p JOIN notes_chunk c ON c.id = p.chunk_id"
            " WHERE c.note_id = %s AND c.ordinal = 0",
            [note.pk],
        )
        return dict(cursor.fetchall())


def test_the_page_a_question_in_the_first_person_asks_for_ranks_first(tmp_path):
    # `term/block title` says "i'm" eight times in its examples: each was a match for the `m` of "I'm"
    vault = _import(
        tmp_path,
        "pages/Page graph.md",
        "pages/term___block title.md",
        "pages/Commands.md",
        "pages/Graph Overview.md",
        "pages/Publishing (Desktop App Only).md",
    )
    hits = hybrid_search(
        user=vault.owner, query="how can I see the graph of only the page I'm on?", vault_ids=[vault.pk], mode="keyword"
    ).hits
    assert hits[0].path == "pages/Page graph.md"


def test_a_logseq_page_property_counts_once_and_hidden_block_properties_not_at_all(tmp_path):
    vault = _import(tmp_path, "pages/docs.md", "pages/term___block title.md")
    docs = Note.objects.get(vault=vault, path="pages/docs.md")
    assert "keep track of documentation" in docs.frontmatter["description"]
    assert _terms(docs)["track"] == 1  # written once, in `description::`
    block_title = _terms(Note.objects.get(vault=vault, path="pages/term___block title.md"))
    # `id:: 60a77d63-7340-4c1d-8bbc-68bd4e49fc6c` is hidden on the page: none of its six terms is searchable
    assert not {"id", "60a77d63", "7340", "4c1d", "8bbc", "68bd4e49fc6c"} & set(block_title)
    assert "m" not in block_title  # "i'm"


def test_a_namespaced_page_is_named_and_linked_as_logseq_shows_it(tmp_path):
    vault = _import(
        tmp_path,
        "pages/Tasks.md",
        "pages/setting___enable timetracking.md",
        "pages/Whiteboard___Action Bar___Reload.md",
    )
    setting = Note.objects.get(vault=vault, path="pages/setting___enable timetracking.md")
    assert setting.title == "setting/enable timetracking"
    assert Note.objects.get(vault=vault, path="pages/Whiteboard___Action Bar___Reload.md").title == (
        "Whiteboard/Action Bar/Reload"
    )
    link = NoteLink.objects.get(source__path="pages/Tasks.md", target_text="setting/enable timetracking")
    assert link.target == setting
    # the reference `((60af74c1-…))` (Tasks' "Time tracker" block) adds no UUID terms to the setting's text
    assert not {"60af74c1", "abc6d2a71734"} & set(_terms(setting))
