"""A note page reads as Obsidian shows the note: a line written under another stays on its own line, the note's
name heads the page, an inline `#tag` is a tag that opens the vault's search for it, and a link to a file that is
not there (`![[Trips.base]]`) is a missing file, never a note to write nor the note's core claim. Notes come from
the sample vault and from the real vaults in /work/shared/corpora (copied as they are, each cited)."""

from __future__ import annotations

import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from apps.librarian.enrich import enrich_note
from apps.notes.models import Note
from apps.vaults.models import Vault
from tests.corpora import CORPORA
from tests.factories import import_folder, make_note, make_user, make_vault

pytestmark = pytest.mark.django_db


def page_of(user: User, note: Note) -> str:
    browser = Client()
    browser.force_login(user)
    response = browser.get(f"/notes/{note.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def body_of(page: str) -> str:
    found = re.search(r'<div class="body">(.*?)</div>\s*<p class="muted small">Content last changed', page, re.S)
    assert found is not None, "the page shows the note's body"
    return found[1]


def text_of(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html)).strip()


def imported(paths: list[str], tmp_path: Path) -> Vault:
    """A vault of these files of the real vaults, copied as they are (paths relative to the corpora folder, each
    kept under its vault's own folders)."""
    for relative in paths:
        inside = Path(*Path(relative).parts[1:])
        (tmp_path / inside).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CORPORA / relative, tmp_path / inside)
    vault = make_vault(make_user(), "real notes")
    assert import_folder(vault, tmp_path).status == "succeeded"
    return vault


def test_lines_written_one_under_another_stay_on_their_own_lines(sample):
    inbox = body_of(page_of(sample.owner, Note.objects.get(vault=sample, path="Inbox.md")))
    tasks = next(paragraph for paragraph in re.findall(r"<p>(.*?)</p>", inbox, re.S) if "task-todo" in paragraph)
    assert [text_of(line) for line in tasks.split("<br />")] == [
        "task-todo: buy a new chain checker before the next Bike Repair Log entry",
        "task-todo: ask Tobias whether the restore test moved to July",
        "task-todo: repot the rosemary, it is root-bound (see Balcony Herbs)",
        "task-done: book the train seats for Freiburg",
    ]
    convention = page_of(sample.owner, Note.objects.get(vault=sample, path="engineering/Task Tracking Convention.md"))
    assert "task-todo: rotate the keys for the offsite backup bucket<br />\ntask-todo: document" in convention


def test_a_real_notes_line_breaks_show_and_its_code_keeps_its_own(tmp_path: Path):
    vault = imported(["foam-docs/user/index.md", "foam-docs/user/features/tags.md"], tmp_path)
    index = body_of(page_of(vault.owner, Note.objects.get(vault=vault, path="user/index.md")))
    assert "You can publish your Foam notes for consumption in different formats.<br />\nExamples: " in index
    tags = body_of(page_of(vault.owner, Note.objects.get(vault=vault, path="user/features/tags.md")))
    code = "#programming/languages/python\n#programming/frameworks/react\n#work/projects/website-redesign\n"
    assert f'<pre><code class="language-markdown">{code}' in tags


def test_a_note_without_a_heading_is_headed_by_its_name(tmp_path: Path):
    vault = imported(["kepano-obsidian/References/Brown butter nectarine tart.md"], tmp_path)
    tart = page_of(vault.owner, Note.objects.get(vault=vault, path="References/Brown butter nectarine tart.md"))
    assert re.findall(r"<h1[^>]*>(.*?)</h1>", tart) == ["Brown butter nectarine tart"]
    assert tart.index("Brown butter nectarine tart</h1>") < tart.index("It seems like every summer")

    titled = make_note(vault, "drafts/untitled 3.md", "---\ntitle: Oven temperatures\n---\nThe tart bakes at 190 °C.\n")
    assert re.findall(r"<h1[^>]*>(.*?)</h1>", page_of(vault.owner, titled)) == ["Oven temperatures"]


def test_a_note_opening_with_its_name_as_heading_shows_it_once(sample):
    inbox = page_of(sample.owner, Note.objects.get(vault=sample, path="Inbox.md"))
    assert re.findall(r"<h1[^>]*>(.*?)</h1>", inbox) == ["Inbox"]


def test_an_inline_tag_opens_the_search_of_its_vault_for_it(sample):
    owner_browser = Client()
    owner_browser.force_login(sample.owner)
    inbox = body_of(page_of(sample.owner, Note.objects.get(vault=sample, path="Inbox.md")))
    tag = re.search(r'<a class="tag" href="([^"]+)">#inbox</a>', inbox)
    assert tag is not None and unescape(tag[1]) == f"/?q=%23inbox&vault={sample.pk}"
    found = owner_browser.get(unescape(tag[1])).content.decode()
    assert 'value="#inbox"' in found and ">Inbox</a>" in found


def test_a_real_notes_tags_are_tags_and_its_code_stays_as_written(tmp_path: Path):
    vault = imported(["foam-docs/user/features/tags.md"], tmp_path)
    tags = body_of(page_of(vault.owner, Note.objects.get(vault=vault, path="user/features/tags.md")))
    # "… (e.g. linking to a `book` note) instead of #book tags for categorization."
    assert f'instead of <a class="tag" href="/?q=%23book&amp;vault={vault.pk}">#book</a> tags' in tags
    assert "#machine-learning #data-science #algorithms #beginner\n</code></pre>" in tags  # in its fence
    assert "color: #ffffff;" in tags  # CSS in a fence: a colour, not a tag
    assert 'class="tag"' not in "".join(re.findall(r"<pre>.*?</pre>", tags, re.S))


def test_a_missing_base_is_a_missing_file_not_a_note_to_write(tmp_path: Path):
    # Kyoto embeds Trips.base, Map.base and Places.base; only Places.base is in this vault.
    vault = imported(["kepano-obsidian/References/Kyoto.md", "kepano-obsidian/Templates/Bases/Places.base"], tmp_path)
    kyoto = Note.objects.get(vault=vault, path="References/Kyoto.md")
    page = page_of(vault.owner, kyoto)
    sidebar = page[page.index("<aside>") :]
    # its properties name notes not in this vault (Places, Cities, Japan): those are notes to write
    unresolved = re.search(r"<h2>Unresolved links</h2>\s*<ul>(.*?)</ul>", sidebar, re.S)
    assert unresolved is not None and ".base" not in unresolved[1]
    assert re.findall(r'\?path=([^"]+)">write it</a>', sidebar) == ["Places", "Cities", "Japan"]
    missing = re.search(r"<h2>Missing files</h2>\s*<ul>(.*?)</ul>", sidebar, re.S)
    assert missing is not None
    assert re.findall(r"<li[^>]*>(.*?)</li>", missing[1]) == ["Trips.base", "Map.base"]


def test_a_note_that_only_embeds_bases_has_no_embed_for_its_core_claim(tmp_path: Path):
    vault = imported(["kepano-obsidian/References/Kyoto.md"], tmp_path)
    kyoto = Note.objects.get(vault=vault, path="References/Kyoto.md")
    row = enrich_note(kyoto)
    assert row is not None and ".base" not in row.core_claim and "!" not in row.core_claim
    assert '<dd class="core-claim">Kyoto</dd>' in page_of(vault.owner, kyoto)


def test_a_tag_inside_a_links_label_stays_its_words():
    owner = make_user()
    vault = make_vault(owner, "links")
    note = make_note(vault, "Links.md", "See [the #inbox notes](https://example.org/inbox) and #later.\n")
    body = body_of(page_of(owner, note))
    assert '<a href="https://example.org/inbox">the #inbox notes</a>' in body  # no link inside the link
    assert '<a class="tag"' in body and ">#later</a>" in body
