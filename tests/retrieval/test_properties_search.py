"""A note's properties are found by search whether or not the note has a body, each counted once. Notes come from
the kepano vault in /work/shared/corpora, imported whole."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client

from apps.notes.models import Chunk, ChunkTerm, Note
from tests.corpora import CORPORA
from tests.factories import import_folder, make_user, make_vault

pytestmark = pytest.mark.django_db


def birthday_paths(browser: Client, vault_id: int) -> list[str]:
    return [hit["path"] for hit in browser.get("/", {"q": "birthday", "vault": vault_id}).context["hits"]]


def test_a_property_of_a_note_with_a_body_is_found_and_a_property_counts_once():
    vault = make_vault(make_user(), "kepano")
    assert import_folder(vault, CORPORA / "kepano-obsidian").status == "succeeded"
    browser = Client()
    browser.force_login(vault.owner)

    # the People template's only text is `![[Meetings.base#Person]]`; `birthday:` is one of its properties
    assert "Templates/People Template.md" in birthday_paths(browser, vault.pk)[:3]

    # a note made only of properties says them in its text: `isbn:` is posted once, not again from its frontmatter
    book = Note.objects.get(vault=vault, path="Templates/Book Template.md")
    assert ChunkTerm.objects.get(note=book, term="isbn").tf == 1

    # a vault imported before the upgrade finds them too once its notes are migrated
    Chunk.objects.filter(vault=vault).update(properties="")
    assert "Templates/People Template.md" not in birthday_paths(browser, vault.pk)[:3]
    upgrade = importlib.import_module("apps.notes.migrations.0020_first_chunk_searches_properties")
    with connection.schema_editor() as editor:
        upgrade.first_chunks_search_properties(apps, editor)
    assert "Templates/People Template.md" in birthday_paths(browser, vault.pk)[:3]
    assert ChunkTerm.objects.get(note=book, term="isbn").tf == 1
