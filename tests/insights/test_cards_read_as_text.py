"""What the insights cards and the Librarian's metadata quote from a note reads as text: links by their labels,
no emphasis, code or list marks."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from apps.insights.tasks import insights_daily
from apps.librarian.services import reenrich
from tests.corpora import CORPORA
from tests.factories import make_note

pytestmark = pytest.mark.django_db
FOAM = CORPORA / "foam-docs" / "user"
PASSAGES = [  # claims and tensions written with bold, backticks, wikilinks, links and tables
    "getting-started/installation.md",
    "getting-started/recommended-extensions.md",
    "getting-started/keyboard-shortcuts.md",
    "features/wikilinks.md",
    "features/spell-checking.md",
]
TASK = CORPORA / "logseq-docs" / "pages" / "PDF highlights.md"  # an open task that links a page: `TODO [[Ramses]] …`
MARKDOWN = re.compile(r"\*\*|\[\[|`|\]\(|“[-*+] ")


def test_cards_and_metadata_quote_the_notes_as_readable_text(owner, vault):
    notes = [make_note(vault, path, (FOAM / path).read_text(encoding="utf-8-sig")) for path in PASSAGES]
    notes.append(make_note(vault, f"pages/{TASK.name}", TASK.read_text(encoding="utf-8")))
    reenrich(vaults=[vault], everything=True)
    insights_daily(vault.pk)
    browser = Client()
    browser.force_login(owner)

    page = browser.get(f"/vaults/{vault.pk}/insights/").content.decode()
    cards = [html.unescape(card) for card in re.findall(r'<li class="insight-card.*?</li>', page, re.S)]
    open_work = next(card for card in cards if "Open work in “PDF highlights”" in card)
    assert "such as “Ramses would like to rename to PDF Reader #docs”" in open_work
    assert [card for card in cards if MARKDOWN.search(card)] == []
    for note in notes:
        shown = browser.get(f"/notes/{note.pk}/").content.decode()
        metadata = html.unescape(re.search(r'<dl class="props metadata">(.*?)</dl>', shown, re.S).group(1))
        assert "Core claim" in metadata and not MARKDOWN.search(metadata), (note.path, metadata)
