"""Links a reader of a real vault follows, stored and resolved: a book's `categories: "[[Books]]"` makes it a
backlink of the Books category, a Markdown link to `../features/graph-view.md` opens that note, and
`[[note#^block]]` opens the note that declares the block, keeping which block. Notes come from /work/shared/corpora
(the kepano vault imported whole; foam notes copied, with examples taken out of their code fences as cited)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from apps.graph.models import Dependency, DependencyKind
from apps.notes.markdown import parse_note
from apps.notes.models import Note, NoteLink
from tests.corpora import CORPORA
from tests.factories import api, import_folder, make_note, make_user, make_vault
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db


def test_a_kepano_book_is_filed_under_its_category_by_its_properties():
    vault = make_vault(make_user(), "kepano")
    assert import_folder(vault, CORPORA / "kepano-obsidian").status == "succeeded"
    book = Note.objects.get(vault=vault, path="References/Out of Control.md")
    links = {(link.target_text, link.kind): link.target for link in NoteLink.objects.filter(source=book)}
    assert links[("Books", "property")] == Note.objects.get(vault=vault, path="Categories/Books.md")
    assert links[("Kevin Kelly", "property")] == Note.objects.get(vault=vault, path="References/Kevin Kelly.md")
    assert links[("Nonfiction", "property")] is None  # no such note: kept, shown as unresolved

    books = Note.objects.get(vault=vault, path="Categories/Books.md")
    page = api(vault.owner).get(f"/api/notes/{books.pk}/")
    assert page.status_code == 200
    assert_matches_schema(page)
    assert {"References/Out of Control.md", "References/The Machine Stops.md"} <= {
        backlink["path"] for backlink in page.json()["backlinks"]
    }
    shown = api(vault.owner).get(f"/api/notes/{book.pk}/").json()["links"]
    assert {"target_text": "Books", "kind": "property", "resolved": True} in [
        {key: link[key] for key in ("target_text", "kind", "resolved")} for link in shown
    ]
    # the graph reads a property link like any other: the book links to its genre, named nowhere else
    assert Dependency.objects.filter(
        vault=vault, source__key="out of control", target__key="nonfiction", kind=DependencyKind.LINKS_TO
    ).exists()


def test_markdown_links_and_block_links_resolve_to_their_notes(tmp_path: Path):
    foam = CORPORA / "foam-docs/user"
    for relative in ("getting-started/navigation.md", "features/graph-view.md", "features/tags.md"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text((foam / relative).read_text(encoding="utf-8"), encoding="utf-8")
    # foam-docs/user/features/block-anchors.md: a paragraph with its anchor, and a link to it, out of their fences
    (tmp_path / "research-notes.md").write_text(
        "# Research notes\n\nThis is an important finding from the experiment. ^key-finding\n", encoding="utf-8"
    )
    (tmp_path / "features/block-anchors.md").write_text(
        "Use `[[note-name#^blockid]]` to link directly to a block:\n\n"
        "[[research-notes#^key-finding|See the key finding]]\n",
        encoding="utf-8",
    )
    vault = make_vault(make_user(), "foam")
    assert import_folder(vault, tmp_path).status == "succeeded"

    navigation = Note.objects.get(vault=vault, path="getting-started/navigation.md")
    resolved = {
        link.target_text: link.target.path
        for link in NoteLink.objects.filter(source=navigation).exclude(target=None).select_related("target")
    }
    assert resolved["features/graph-view"] == "features/graph-view.md"
    assert resolved["features/tags"] == "features/tags.md"

    block_link = NoteLink.objects.get(source__path="features/block-anchors.md", vault=vault)
    assert (block_link.target_text, block_link.block_id, block_link.heading) == ("research-notes", "key-finding", "")
    assert block_link.target == Note.objects.get(vault=vault, path="research-notes.md")
    assert block_link.target.block_ids == ["key-finding"]


def test_a_wikilink_whose_alias_pipe_is_escaped_in_a_table_links_to_its_note_reading_the_alias():
    owner = make_user()
    vault = make_vault(owner, "kepano")
    jazz_page = CORPORA / "kepano-obsidian/References/Jazz.md"
    jazz = make_note(vault, "References/Jazz.md", jazz_page.read_text(encoding="utf-8"), embed=False)
    # as Obsidian writes an aliased link in a table, and in prose where it reads the same
    listening = make_note(
        vault,
        "Notes/Listening.md",
        "| Genre | Why |\n| --- | --- |\n| [[Jazz\\|jazz alias]] | swing |\n| [[Jazz#Genre\\|its albums]] | more |\n\n"
        "Also [[Jazz\\|in prose]].\n",
        embed=False,
    )
    links = NoteLink.objects.filter(source=listening).order_by("pk")
    assert [(link.target_text, link.heading, link.target_id) for link in links] == [
        ("Jazz", "", jazz.pk),
        ("Jazz", "Genre", jazz.pk),
        ("Jazz", "", jazz.pk),
    ]
    browser = Client()
    browser.force_login(owner)
    page = browser.get(f"/notes/{listening.pk}/").content.decode()
    assert f'<td><a class="internal" href="/notes/{jazz.pk}/">jazz alias</a></td>' in page
    assert f'<td><a class="internal" href="/notes/{jazz.pk}/#genre">its albums</a></td>' in page
    assert f'Also <a class="internal" href="/notes/{jazz.pk}/">in prose</a>.' in page
    assert "Unresolved links" not in page and "\\" not in page.split('<div class="body">', 1)[1].split("</div>")[0]
    assert f'<a href="/notes/{listening.pk}/">' in browser.get(f"/notes/{jazz.pk}/").content.decode()  # a backlink
    # an embedded picture's size, so escaped, is no part of the file's name
    [picture] = parse_note("Notes/Trip.md", "| ![[photo.png\\|300]] |\n| --- |\n").links
    assert (picture.target, picture.alias, picture.kind) == ("photo.png", "300", "embed")
