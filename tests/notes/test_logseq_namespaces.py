"""A namespaced Logseq page (`pages/Whiteboard___Object___Youtube.md`) is known by its page name,
"Whiteboard/Object/Youtube", on its page, in the vault's list, in search, and once stored notes are read again."""

from __future__ import annotations

import pytest
from django.test import Client

from apps.notes.markdown import parse_note
from apps.notes.models import Note
from apps.notes.services.rereading import notes_reread
from apps.retrieval.search import hybrid_search
from apps.vaults.scope import scope_for
from tests.corpora import CORPORA
from tests.factories import make_note, make_user, make_vault

PAGES = CORPORA / "logseq-docs" / "pages"
YOUTUBE = "Whiteboard___Object___Youtube.md"


def test_every_namespaced_page_without_a_title_property_is_titled_by_its_page_name():
    titles = {
        path.name: parse_note(f"pages/{path.name}", path.read_text(encoding="utf-8")).title
        for path in PAGES.glob("*___*.md")
    }
    untitled = [name for name in titles if "\ntitle::" not in "\n" + (PAGES / name).read_text(encoding="utf-8")]
    assert len(untitled) == 65
    assert not [title for title in titles.values() if "___" in title]
    assert titles[YOUTUBE] == "Whiteboard/Object/Youtube"
    assert titles["setting___enable timetracking.md"] == "setting/enable timetracking"
    # a `title::` property still names the page; `%3F` is the `?` no file name holds
    assert parse_note("pages/page_embed.md", (PAGES / "page_embed.md").read_text(encoding="utf-8")).title == (
        "Page embed"
    )
    question = (PAGES / "New to Logseq%3F.md").read_text(encoding="utf-8")
    assert parse_note("pages/New to Logseq%3F.md", question).title == "New to Logseq?"


@pytest.mark.django_db
def test_a_namespaced_page_shows_and_is_found_by_its_page_name():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    names = [YOUTUBE, "Whiteboard___Object.md", "Whiteboard___Embed.md", "Embed Media - Audio, Photos, Videos.md"]
    notes = {name: make_note(vault, f"pages/{name}", (PAGES / name).read_text(encoding="utf-8")) for name in names}
    youtube = notes[YOUTUBE]
    assert youtube.title == "Whiteboard/Object/Youtube"

    # its title's words still find it: the keyword half reads the namespace's words, not one path
    hits = hybrid_search(scope=scope_for(owner), query="whiteboard youtube object", k=5, mode="keyword").hits
    assert hits and hits[0].path == f"pages/{YOUTUBE}" and hits[0].title == "Whiteboard/Object/Youtube"

    browser = Client()
    browser.force_login(owner)
    search = browser.get("/", {"q": "whiteboard youtube"}).content.decode()
    titles = [part.split(">", 1)[1].split("</a>", 1)[0] for part in search.split('<a class="title"')[1:]]
    assert "Whiteboard/Object/Youtube" in titles and not [title for title in titles if "___" in title]
    page = browser.get(f"/notes/{youtube.pk}/").content.decode()
    assert "<title>Whiteboard/Object/Youtube · DesirePath</title>" in page
    assert page.count("Whiteboard___") == page.count("pages/Whiteboard___")  # only its file's path says it
    listed = browser.get(f"/vaults/{vault.pk}/").content.decode()
    assert "Whiteboard/Object/Youtube" in listed
    assert listed.count("Whiteboard___") == listed.count("pages/Whiteboard___")


@pytest.mark.django_db
def test_a_namespaced_page_stored_by_an_older_reading_is_retitled_without_a_reimport():
    vault = make_vault(make_user(), "Logseq docs")
    youtube = make_note(vault, f"pages/{YOUTUBE}", (PAGES / YOUTUBE).read_text(encoding="utf-8"), embed=False)
    Note.objects.filter(pk=youtube.pk).update(title="Whiteboard___Object___Youtube", read_with=4)

    assert notes_reread() == 1

    assert Note.objects.get(pk=youtube.pk).title == "Whiteboard/Object/Youtube"
