"""Search snippets over real notes: they start at a sentence or line of the note, end at a word, say "…" where the
note's text goes on, and keep the matches marked."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from apps.notes.models import Chunk
from tests.corpora import CORPORA
from tests.factories import api, make_note, make_user, make_vault

pytestmark = pytest.mark.django_db

NOTES = (
    "foam-docs/user/features/daily-notes.md",
    "foam-docs/user/features/wikilinks.md",
    "foam-docs/user/features/tags.md",
    "foam-docs/principles.md",
    "logseq-docs/db-version.md",
    "kepano-obsidian/Readme.md",
)
QUERIES = ("customize daily note location template", "tags", "graph view", "organise information", "database version")
CUT = "…"
MARKED = re.compile(r"«[^«»]*»")
WIKILINK = re.compile(r"\[\[[^\]]+\]\]")
LINK_DESTINATION = re.compile(r"\]\([^()\s]*\)")
PAGE_HIT = re.compile(r'<span class="muted small">([^<]*)</span>\s*<p class="snippet">(.*?)</p>')


@pytest.fixture
def reader():
    owner = make_user()
    vault = make_vault(owner, "Real notes")
    for name in NOTES:
        make_note(vault, name.split("/", 1)[1], (CORPORA / name).read_text())
    return owner


def test_api_snippets_are_whole_sentences_of_the_passage_with_a_cut_marked_by_an_ellipsis(reader):
    client = api(reader)
    for query in QUERIES:
        hits = client.get("/api/search/", {"q": query, "k": 5}).json()["results"]
        assert hits, query
        for hit in hits:
            snippet = hit["snippet"]
            passage = snippet.removeprefix(f"{CUT} ").removesuffix(f" {CUT}").replace("«", "").replace("»", "")
            text = Chunk.objects.get(pk=hit["chunk"]).text.strip()
            start = text.find(passage)
            assert start >= 0, (query, snippet)
            end = start + len(passage)
            shown = f"{query!r} in {hit['path']}: {snippet!r}"
            assert snippet.startswith(CUT) == (start > 0), shown
            assert re.search(r"(?:\A|[.!?]\s+|\n\s*)\Z", text[:start]), f"starts inside a sentence: {shown}"
            assert snippet.endswith(CUT) == (end < len(text)), shown
            assert end == len(text) or text[end].isspace(), f"ends inside a word: {shown}"
            if "keyword" in hit["sources"] and set(query.split()) & set(passage.lower().split()):
                assert "«" in snippet, shown


def test_api_snippets_also_come_as_a_reader_meets_them_as_the_answer_picker_shows_them(reader):
    client = api(reader)
    seen_marks = 0
    for query in QUERIES:
        for hit in client.get("/api/search/", {"q": query, "k": 5}).json()["results"]:
            snippet, text = hit["snippet"], hit["snippet_text"]
            seen_marks += bool(re.search(r"\[\[[^\]]+\]\]|\*\*|`|\n- ", snippet))
            assert not re.search(r"\*\*|`|\n", text), (query, snippet, text)
            # a wikilink shows as its label, unless the note writes it in code, which shows it as written
            written_in_code = {link for code in re.findall(r"`([^`]+)`", snippet) for link in WIKILINK.findall(code)}
            assert set(WIKILINK.findall(text)) <= written_in_code, (query, snippet, text)
            # the same matches, but for one in a link's destination, which is read as its label
            shown = LINK_DESTINATION.sub("]", snippet)
            assert MARKED.findall(text) == MARKED.findall(shown), (query, snippet, text)
    assert seen_marks  # the real notes' snippets hold Markdown for the readable form to leave out


def test_the_search_page_shows_the_sentence_holding_the_match_marked(reader):
    client = Client()
    client.force_login(reader)
    page = client.get("/", {"q": "customize daily note location"}).content.decode()
    snippet = next(s for where, s in PAGE_HIT.findall(page) if html.unescape(where).endswith("/daily-notes.md"))
    assert (
        "To <mark>customize</mark> your <mark>daily</mark> <mark>note</mark> <mark>location</mark> and format you "
        "can create a .foam/templates/daily-note.md template." in snippet
    ), snippet
    words = html.unescape(re.sub(r"<[^>]+>", "", snippet))
    assert words.startswith((f"{CUT} ", "By default,")), words


def test_a_snippet_reads_tables_tasks_and_callouts_as_their_words_with_the_matches_still_marked():
    owner = make_user()
    vault = make_vault(owner, "Real notes")
    for name in ("foam-docs/user/getting-started/keyboard-shortcuts.md", "kepano-obsidian/Notes/Minimal Theme.md"):
        make_note(vault, name.split("/", 1)[1], (CORPORA / name).read_text())
    # None of the three vaults writes a callout, so this one is written in Obsidian's documented form.
    make_note(vault, "Baking.md", "# Baking\n\n> [!warning] Mind the oven\n> It runs hot, so turn the tray halfway.\n")

    def snippet_text(query: str, path: str) -> str:
        hits = api(owner).get("/api/search/", {"q": query, "k": 5}).json()["results"]
        return next(hit["snippet_text"] for hit in hits if hit["path"].endswith(path))

    # a row cut from the middle of the shortcuts table reads as its cells, as the table's header and rows do
    row = snippet_text("format document", "keyboard-shortcuts.md")
    assert "ctrl+shift+f · «Format» «Document» · editor.action.formatDocument · Base · «Format» tables" in row, row
    assert "|" not in row, row
    task = snippet_text("color schemes e-ink", "Minimal Theme.md")
    assert "«Color» «schemes» «E»-«ink» mode Mobile support" in task and "[x]" not in task, task
    callout = snippet_text("warning oven tray", "Baking.md")
    assert "Mind the «oven» It runs hot, so turn the «tray» halfway." in callout and "[!" not in callout, callout


def test_a_snippet_reads_logseq_pages_as_they_show_not_their_syntax():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    pages = ("Flashcards.md", "Advanced Queries.md", "Embed Media - Audio, Photos, Videos.md", "templates.md")
    for name in pages:
        make_note(vault, f"pages/{name}", (CORPORA / "logseq-docs/pages" / name).read_text())
    make_note(vault, "Categories/Books.md", (CORPORA / "kepano-obsidian/Categories/Books.md").read_text())

    def snippets(query: str, path: str) -> list[str]:
        hits = api(owner).get("/api/search/", {"q": query, "k": 10}).json()["results"]
        return [hit["snippet_text"] for hit in hits if hit["path"].endswith(path)]

    def shown(query: str, path: str) -> str:
        found = snippets(query, path)
        assert found, (query, path)
        return found[0]

    # a property reads `key: value`; Logseq's own bookkeeping (`card-…::`, `id::`) is left out
    video = shown("embed video url command", "Embed Media - Audio, Photos, Videos.md")
    assert "::" not in video and "name: «Embed» «Video» «URL»" in video, video
    cards = " ".join(snippets("what's a card", "Flashcards.md") + snippets("flashcards cards block", "Flashcards.md"))
    assert "card-last-interval" not in cards and "card-repeats" not in cards and "::" not in cards, cards
    # a macro reads as what the page shows, an org block without its markers
    template = shown("youtube template", "templates.md")
    assert "YouTube video" in template and "{{" not in template and "https://www.youtube.com" not in template
    note = " ".join(snippets("advanced queries", "Advanced Queries.md"))
    assert "BEGIN_" not in note and "END_" not in note and "::" not in note, note
    # an Obsidian base embedded alone says what it is
    assert shown("books", "Categories/Books.md") == "Books (a base view)"


def test_a_snippet_of_a_heading_alone_shows_the_text_under_it():
    owner = make_user()
    vault = make_vault(owner, "Logseq docs")
    make_note(vault, "pages/Flashcards.md", (CORPORA / "logseq-docs/pages/Flashcards.md").read_text())
    alone = Chunk.objects.filter(note__path="pages/Flashcards.md", text="- ## Functionality")
    assert alone.exists()  # the section's heading is a passage of its own: its text is too long to join it
    client = Client()
    client.force_login(owner)
    page = client.get("/", {"q": "functionality"}).content.decode()
    snippet = html.unescape(re.sub(r"<[^>]+>", "", next(s for _, s in PAGE_HIT.findall(page))))
    assert snippet.startswith("Functionality What's a \"card\"? It's just a block with either #card"), snippet
