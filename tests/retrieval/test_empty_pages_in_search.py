"""Search on two real vaults: a page with no text but its title (an empty Logseq journal page) sits near every query in
meaning, so it is found by its words only, never offered as a meaning match to a query it has nothing to do with."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from apps.retrieval.search import hybrid_search
from apps.vaults.scope import scope_for
from tests.corpora import CORPORA
from tests.factories import import_folder, make_user, make_vault

pytestmark = pytest.mark.django_db

ZELDA = "References/The Legend of Zelda Breath of the Wild.md"


def _hits_on_the_search_page(client: Client, query: str) -> list[tuple[str, str]]:
    """(path, snippet) of every hit the search page lists for `query`."""
    page = client.get("/", {"q": query}).content.decode()
    paths = re.findall(r'<span class="muted small">[^<·]*· ([^<]*?)(?: · filed[^<]*)?</span>', page)
    snippets = re.findall(r'<p class="snippet">(.*?)</p>', page, re.S)
    assert len(paths) == len(snippets), page
    return list(zip(paths, (s.strip() for s in snippets), strict=True))


def test_empty_journal_pages_do_not_pad_a_search_yet_are_found_by_their_title():
    owner = make_user()
    for corpus in ("kepano-obsidian", "logseq-docs"):
        assert (CORPORA / corpus).is_dir(), f"the real vaults are not at {CORPORA} (set DESIREPATH_CORPORA)"
        vault = make_vault(owner, corpus)
        assert import_folder(vault, CORPORA / corpus, source=corpus, follow_up=False).status == "succeeded"
    client = Client()
    client.force_login(owner)

    hits = _hits_on_the_search_page(client, "BOTW")
    assert hits and hits[0][0] == ZELDA, hits
    assert not [path for path, _ in hits if path.startswith("journals/")], hits
    assert all(snippet for _, snippet in hits), hits  # every hit shows what it says

    # an empty page is still a hit for its own name; a meaning-only search leaves such pages out too
    assert "journals/2020_10_24.md" in [path for path, _ in _hits_on_the_search_page(client, "Oct 24th, 2020")]
    meaning = hybrid_search(scope=scope_for(owner), query="BOTW", k=20, mode="vector").hits
    assert not [hit.path for hit in meaning if hit.path.startswith("journals/")], [hit.path for hit in meaning]
