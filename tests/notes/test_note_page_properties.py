"""A note page shows its properties as Obsidian's Properties view does: a list as separate items, a wikilink in a
value as a link to its note, a date as a date, an empty value as an empty field; and a note made only of properties
shows no empty body. Notes come from the kepano vault in /work/shared/corpora, imported whole."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.notes.models import Note
from tests.corpora import CORPORA
from tests.factories import import_folder, make_user, make_vault

pytestmark = pytest.mark.django_db


def shown_properties(html: str) -> dict[str, str]:
    """Each property's name and the HTML of its value, as the page's Properties list shows them."""
    listed = re.search(r'<h2>Properties</h2>\s*<dl class="props[^"]*">(.*?)</dl>', html, re.S)
    assert listed is not None, "the page lists the note's properties"
    return {key: value.strip() for key, value in re.findall(r"<dt>(.*?)</dt>\s*<dd[^>]*>(.*?)</dd>", listed[1], re.S)}


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).strip()


def test_kepano_properties_read_as_obsidian_shows_them():
    vault = make_vault(make_user(), "kepano")
    assert import_folder(vault, CORPORA / "kepano-obsidian").status == "succeeded"
    browser = Client()
    browser.force_login(vault.owner)

    def page(path: str) -> str:
        note = Note.objects.get(vault=vault, path=path)
        response = browser.get(f"/notes/{note.pk}/")
        assert response.status_code == 200
        return response.content.decode()

    def href(path: str) -> str:
        return f"/notes/{Note.objects.get(vault=vault, path=path).pk}/"

    trip = page("Notes/2023 Japan Trip.md")
    properties = shown_properties(trip)
    # `loc: ["[[Kyoto]]", "[[Japan]]"]`: two items, Kyoto a link to its note, Japan (no such note) unresolved
    assert re.findall(r'<span class="chip">(.*?)</span>', properties["loc"]) == [
        f'<a class="internal" href="{href("References/Kyoto.md")}">Kyoto</a>',
        '<a class="unresolved" title="no note with this name yet">Japan</a>',
    ]
    assert f'<a class="internal" href="{href("Categories/Trips.md")}">Trips</a>' in properties["categories"]
    assert properties["start"] == '<time datetime="2023-09-12">Sep 12, 2023</time>'
    assert not any(mark in text_of(value) for value in properties.values() for mark in ("[", "'"))
    # the trip is only properties: no empty box where a body would be
    assert '<div class="body">' not in trip and "This note has only properties." in trip

    book = shown_properties(page("Templates/Book Template.md"))
    assert text_of(book["author"]) == text_of(book["cover"]) == text_of(book["via"]) == ""
    assert re.findall(r'<span class="chip">(.*?)</span>', book["tags"]) == ["to-read"]
    assert not any(word in text_of(value) for value in book.values() for word in ("None", "[]", "''"))

    person = page("Templates/People Template.md")  # properties and a body: the body is shown
    assert '<div class="body">' in person and "only properties" not in person
