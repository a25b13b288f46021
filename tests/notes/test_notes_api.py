"""Notes through the API: write, read with links, delete to the cold tier, restore, purge; the audit trail."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError

from apps.audit.models import AuditEvent
from apps.notes.models import Chunk, Note
from tests.factories import api, make_user, share
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db


def test_write_read_update_and_links(vault):
    client = api(vault.owner)
    other = client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Other.md", "body": "# Other\nhello"}, format="json")
    assert other.status_code == 201
    made = client.post(
        f"/api/vaults/{vault.pk}/notes/",
        {"path": "ideas/First", "body": "---\ntags: [x]\n---\n# First\nSee [[Other]] and [[Nowhere]].\n"},
        format="json",
    )
    assert made.status_code == 201, made.content
    assert_matches_schema(made)
    note = made.json()
    assert note["path"] == "ideas/First.md" and note["title"] == "First" and note["provenance"] == "authored"
    assert {(link["target_text"], link["resolved"]) for link in note["links"]} == {("Other", True), ("Nowhere", False)}

    backlinks = client.get(f"/api/notes/{other.json()['id']}/").json()["backlinks"]
    assert [b["path"] for b in backlinks] == ["ideas/First.md"]

    response = client.get(f"/api/vaults/{vault.pk}/notes/")
    assert_matches_schema(response)
    listed = response.json()
    assert {n["path"] for n in listed["results"]} == {"Other.md", "ideas/First.md"}

    updated = client.put(f"/api/notes/{note['id']}/", {"body": "# First\nnow about [[Nowhere]] only"}, format="json")
    assert updated.status_code == 200 and len(updated.json()["links"]) == 1


def test_content_modified_at_changes_only_with_the_body(vault):
    client = api(vault.owner)
    note_id = client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "A.md", "body": "one"}, format="json").json()["id"]
    first = Note.objects.get(pk=note_id).content_modified_at

    # Any code path that writes other columns (even raw SQL setting the timestamp) leaves it alone.
    with connection.cursor() as cursor:
        cursor.execute("UPDATE notes_note SET title = 'Renamed', tags = '{t}' WHERE id = %s", [note_id])
        cursor.execute("UPDATE notes_note SET content_modified_at = '2001-01-01' WHERE id = %s", [note_id])
    assert Note.objects.get(pk=note_id).content_modified_at == first

    with connection.cursor() as cursor:
        cursor.execute("UPDATE notes_note SET body = 'two' WHERE id = %s", [note_id])
    assert Note.objects.get(pk=note_id).content_modified_at != first


def test_delete_moves_to_cold_restore_and_purge_by_managers(vault):
    contributor = make_user()
    share(vault, "contributor", user=contributor)
    client, boss = api(contributor), api(vault.owner)
    note_id = client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Gone.md", "body": "zebra"}, format="json").json()[
        "id"
    ]

    assert client.delete(f"/api/notes/{note_id}/").status_code == 200
    note = Note.objects.get(pk=note_id)
    assert note.tier == "cold" and note.body == "zebra"
    assert set(Chunk.objects.filter(note=note).values_list("tier", flat=True)) == {"cold"}
    assert boss.get(f"/api/vaults/{vault.pk}/notes/?tier=cold").json()["results"][0]["id"] == note_id
    assert boss.get("/api/search/", {"q": "zebra"}).json()["results"] == []

    assert client.post(f"/api/notes/{note_id}/restore/").status_code == 403  # contributors cannot restore
    assert boss.post(f"/api/notes/{note_id}/restore/").status_code == 200
    assert Note.objects.get(pk=note_id).tier == "hot"

    assert boss.post(f"/api/notes/{note_id}/purge/").status_code == 400  # live notes must be deleted first
    client.delete(f"/api/notes/{note_id}/")
    assert client.post(f"/api/notes/{note_id}/purge/").status_code == 403
    assert boss.post(f"/api/notes/{note_id}/purge/").status_code == 204
    assert not Note.objects.filter(pk=note_id).exists()

    actions = list(AuditEvent.objects.filter(vault_id=vault.pk).values_list("action", flat=True))
    for action in ("note.create", "note.delete", "note.restore", "note.purge"):
        assert action in actions


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("---\ntitle: [broken\n---\ntext", "frontmatter"),
        ("x" * 2_000_000, "KiB"),
        ("nul \x00 char", "Null characters"),
    ],
)
def test_bad_note_bodies_are_refused_with_a_reason(vault, body, message):
    response = api(vault.owner).post(f"/api/vaults/{vault.pk}/notes/", {"path": "Bad.md", "body": body}, format="json")
    assert response.status_code == 400
    assert message in str(response.json())
    assert not Note.objects.filter(vault=vault).exists()


@pytest.mark.parametrize("path", ["../escape.md", "/etc/passwd", "", "a/../../b.md"])
def test_paths_outside_the_vault_are_refused(vault, path):
    response = api(vault.owner).post(f"/api/vaults/{vault.pk}/notes/", {"path": path, "body": "x"}, format="json")
    assert response.status_code == 400


@pytest.mark.parametrize(
    "path", ["What is it?.md", "notes/10:30 standup.md", "a*b.md", "x<y>.md", 'say "hi".md', "a|b"]
)
def test_names_no_file_may_have_are_refused_with_the_reason(vault, path):
    response = api(vault.owner).post(f"/api/vaults/{vault.pk}/notes/", {"path": path, "body": "x"}, format="json")
    assert response.status_code == 400
    assert "a file name may not hold" in str(response.json()["path"])
    assert not Note.objects.filter(vault=vault).exists()


def test_duplicate_path_is_refused_and_the_original_kept(vault):
    client = api(vault.owner)
    client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Same.md", "body": "original"}, format="json")
    again = client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Same.md", "body": "copy"}, format="json")
    assert again.status_code == 400
    assert Note.objects.get(vault=vault, path="Same.md").body == "original"


def test_the_audit_log_refuses_update_delete_and_truncate(vault):
    event = AuditEvent.objects.filter(vault_id=vault.pk).first()
    assert event is not None
    for statement in (
        f"UPDATE audit_auditevent SET action = 'forged' WHERE id = {event.pk}",
        f"DELETE FROM audit_auditevent WHERE id = {event.pk}",
        "TRUNCATE audit_auditevent",
    ):
        with pytest.raises(DatabaseError, match="audit"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(statement)
    assert AuditEvent.objects.get(pk=event.pk).action == event.action
