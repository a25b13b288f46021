"""The note editor's pages: contributors write, preview, rewrite, move and delete notes in the browser, managers
restore them; a stale save is refused with both texts kept; bad input is explained with nothing lost; readers
get no editor."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.test import Client

from apps.notes.models import Note, NoteLink
from apps.notes.services.notes import note_update
from tests.corpora import CORPORA
from tests.factories import import_folder, make_note, make_user, make_vault, share

pytestmark = pytest.mark.django_db


def _browser(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _textarea(html: str) -> str:
    """The text the editor holds, as the browser reads it (the newline after the opening tag is not part of it)."""
    found = re.search(r'<textarea id="note-body"[^>]*>\n(.*?)</textarea>', html, re.DOTALL)
    assert found is not None
    return unescape(found.group(1))


def _version(html: str) -> str:
    found = re.search(r'name="version" value="([0-9a-f]+)"', html)
    assert found is not None
    return found.group(1)


def test_a_contributor_previews_and_saves_a_new_note_whose_wikilink_resolves(vault):
    target = make_note(vault, "Garden/Compost.md", "# Compost\nBrown and green.", embed=False)
    writer = make_user()
    share(vault, "contributor", user=writer)
    browser = _browser(writer)

    editor = browser.get(f"/vaults/{vault.pk}/notes/new/").content.decode()
    assert '"Compost"' in editor  # offered to wikilink completion
    body = "# Beds\nFeed them [[Compost]] and [[Mulch]].\n\n$e^{i\\pi}$\n"
    preview = browser.post(f"/vaults/{vault.pk}/notes/new/", {"path": "Garden/Beds", "body": body, "action": "preview"})
    html = preview.content.decode()
    assert f'href="/notes/{target.pk}/"' in html and 'class="unresolved"' in html  # Mulch does not exist yet
    assert 'class="math math-inline"' in html and "katex.min.js" in html  # math drawn as on the note page
    assert _textarea(html) == body and not Note.objects.filter(path="Garden/Beds.md").exists()

    saved = browser.post(f"/vaults/{vault.pk}/notes/new/", {"path": "Garden/Beds", "body": body, "action": "save"})
    note = Note.objects.get(vault=vault, path="Garden/Beds.md")
    assert saved.status_code == 302 and saved["Location"] == f"/notes/{note.pk}/"
    assert NoteLink.objects.get(source=note, target_text="Compost").target_id == target.pk
    assert note.created_by == writer and note.body == body

    # The link to a note not written yet offers to write it, its path filled in.
    offer = f'href="/vaults/{vault.pk}/notes/new/?path=Mulch"'
    assert offer in browser.get(f"/notes/{note.pk}/").content.decode()
    assert 'name="path" value="Mulch"' in browser.get(f"/vaults/{vault.pk}/notes/new/?path=Mulch").content.decode()
    reader = make_user()
    share(vault, "reader", user=reader)
    seen_by_reader = _browser(reader).get(f"/notes/{note.pk}/").content.decode()
    assert "[[Mulch]]" in seen_by_reader and offer not in seen_by_reader


def test_a_stale_save_is_refused_with_both_texts_kept_and_a_second_save_replaces_on_purpose(vault):
    note = make_note(vault, "Plan.md", "# Plan\nfirst draft\n", embed=False)
    writer = make_user()
    share(vault, "contributor", user=writer)
    browser = _browser(writer)
    loaded = _version(browser.get(f"/notes/{note.pk}/edit/").content.decode())
    note_update(actor=vault.owner, note=note, body="# Plan\nthe owner's rewrite\n")

    mine = "# Plan\nmy careful edit\n"
    refused = browser.post(f"/notes/{note.pk}/edit/", {"path": "Plan.md", "body": mine, "version": loaded})
    html = refused.content.decode()
    assert refused.status_code == 200 and "Not saved: someone changed this note" in html
    assert _textarea(html) == mine
    assert "the owner&#x27;s rewrite" in html.split('class="current-text"')[1]
    assert Note.objects.get(pk=note.pk).body == "# Plan\nthe owner's rewrite\n"

    # Having seen the current text, the writer saves again: now on purpose, against the version shown.
    again = browser.post(f"/notes/{note.pk}/edit/", {"path": "Plan.md", "body": mine, "version": _version(html)})
    assert again.status_code == 302 and Note.objects.get(pk=note.pk).body == mine


def test_bad_input_is_explained_and_nothing_typed_is_lost(vault, settings):
    note = make_note(vault, "Kept.md", "# Kept\nas it was\n", embed=False)
    make_note(vault, "Taken.md", "# Taken\n", embed=False)
    browser = _browser(vault.owner)
    version = _version(browser.get(f"/notes/{note.pk}/edit/").content.decode())
    settings.NOTE_MAX_BYTES = 2048
    cases = [
        ("", "# Kept\nnew words\n", "Give a relative path inside the vault, such as 'ideas/Note.md'."),
        ("Taken.md", "# Kept\nnew words\n", "A note with this path exists already."),
        ("Long.md", "# Kept\n" + "long words " * 400, "A note may hold at most 2 KiB."),
    ]
    for path, body, message in cases:
        edited = browser.post(f"/notes/{note.pk}/edit/", {"path": path, "body": body, "version": version})
        created = browser.post(f"/vaults/{vault.pk}/notes/new/", {"path": path, "body": body})
        for response in (edited, created):
            html = response.content.decode()
            assert response.status_code == 200 and message in unescape(html), (path, message)
            assert _textarea(html) == body
    assert Note.objects.get(pk=note.pk).body == "# Kept\nas it was\n"
    assert Note.objects.filter(vault=vault).count() == 2


def test_moving_a_note_through_its_path_keeps_the_links_to_it(vault):
    moved = make_note(vault, "Inbox/Sorrel.md", "# Sorrel\nlemony", embed=False)
    linking = make_note(vault, "Salads.md", "# Salads\nAdd [[Sorrel]].", embed=False)
    browser = _browser(vault.owner)
    version = _version(browser.get(f"/notes/{moved.pk}/edit/").content.decode())
    response = browser.post(
        f"/notes/{moved.pk}/edit/", {"path": "Herbs/Sorrel.md", "body": moved.body, "version": version}
    )
    assert response.status_code == 302 and Note.objects.get(pk=moved.pk).path == "Herbs/Sorrel.md"
    page = browser.get(f"/notes/{linking.pk}/").content.decode()
    assert f'href="/notes/{moved.pk}/"' in page


def test_readers_get_no_editor_contributors_delete_and_managers_restore(vault):
    note = make_note(vault, "Shared.md", "# Shared\nhands off", embed=False)
    reader, contributor, manager = make_user(), make_user(), make_user()
    share(vault, "reader", user=reader)
    share(vault, "contributor", user=contributor)
    share(vault, "manager", user=manager)

    reading = _browser(reader)
    assert "Edit</a>" not in reading.get(f"/notes/{note.pk}/").content.decode()
    assert "New note" not in reading.get(f"/vaults/{vault.pk}/").content.decode()
    assert reading.get(f"/notes/{note.pk}/edit/").status_code == 403
    assert reading.get(f"/vaults/{vault.pk}/notes/new/").status_code == 403
    posts = [
        (f"/notes/{note.pk}/edit/", {"path": "Shared.md", "body": "taken over", "version": "x"}),
        (f"/vaults/{vault.pk}/notes/new/", {"path": "Mine.md", "body": "mine"}),
        (f"/notes/{note.pk}/delete/", {}),
    ]
    assert [reading.post(url, form).status_code for url, form in posts] == [403, 403, 403]
    assert Note.objects.get(pk=note.pk).body == "# Shared\nhands off" and Note.objects.filter(vault=vault).count() == 1

    contributing = _browser(contributor)
    assert f'href="/notes/{note.pk}/edit/"' in contributing.get(f"/notes/{note.pk}/").content.decode()
    assert "New note" in contributing.get(f"/vaults/{vault.pk}/").content.decode()
    assert contributing.post(f"/notes/{note.pk}/delete/").status_code == 302
    assert Note.objects.get(pk=note.pk).tier == "cold"
    cold_page = contributing.get(f"/notes/{note.pk}/").content.decode()
    assert "cold tier" in cold_page and "Restore" not in cold_page and "Edit</a>" not in cold_page
    assert contributing.post(f"/notes/{note.pk}/restore/").status_code == 403
    assert Note.objects.get(pk=note.pk).tier == "cold"

    managing = _browser(manager)
    assert "Restore" in managing.get(f"/notes/{note.pk}/").content.decode()
    assert managing.post(f"/notes/{note.pk}/restore/").status_code == 302
    assert Note.objects.get(pk=note.pk).tier == "hot"


def test_an_imported_kepano_note_round_trips_through_the_editor_and_keeps_its_markdown(tmp_path):
    corpus = CORPORA / "kepano-obsidian"
    assert corpus.is_dir(), f"the real vaults are not at {CORPORA} (set DESIREPATH_CORPORA)"
    owner = make_user()
    vault = make_vault(owner, "kepano")
    import_folder(vault, corpus, source="kepano", follow_up=False)
    path = "Notes/Evergreen notes turn ideas into objects that you can manipulate.md"
    note = Note.objects.get(vault=vault, path=path)
    kyoto = Note.objects.get(vault=vault, path="References/Kyoto.md")
    browser = _browser(owner)

    editor = browser.get(f"/notes/{note.pk}/edit/").content.decode()
    text = _textarea(editor)
    assert text == (corpus / path).read_text(encoding="utf-8")  # frontmatter and all, byte for byte
    added = "\n\n> Evergreen notes travel well: see [[Kyoto]].\n"
    # A browser sends the textarea's line breaks as CRLF; the note keeps its own.
    sent = (text + added).replace("\n", "\r\n")
    saved = browser.post(f"/notes/{note.pk}/edit/", {"path": path, "body": sent, "version": _version(editor)})
    assert saved.status_code == 302
    note.refresh_from_db()
    assert note.body == text + added and note.source == ""  # an edited note leaves its import source

    page = browser.get(f"/notes/{note.pk}/").content.decode()
    body = page.split('<div class="body">')[1].split("</article>")[0]
    assert f'href="/notes/{kyoto.pk}/"' in body  # the new link resolves
    assert body.count("<li>") >= 8 and body.count("<blockquote>") == 2  # the list and both quotes stay Markdown
    assert "Everything is a remix" in body and "---" not in body  # frontmatter is shown as properties, not text
    assert "Steph Ango" in page.split("<aside>")[1]
