"""Writes to one note from several requests at once: each lands whole, a delete is never undone, and a client
that edited an older version is told instead of overwriting what it never saw."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection
from rest_framework.response import Response

from apps.notes.models import Chunk, Note
from apps.notes.services.chunks import drafts_for
from tests.factories import api, make_user, share

BODY_A = "# Toggle\n\nThe boiler is serviced in autumn.\n\n## Who\n\nJonas Weber services it."
BODY_B = "# Toggle\n\nThe boiler is serviced in spring.\n\n## Who\n\nMaria Keller services it."


def _at_once(*requests: Callable[[], Response]) -> list[Response]:
    """Send the requests from separate threads (each with its own database connection), released together."""
    start = threading.Barrier(len(requests))
    responses: list[Response | None] = [None] * len(requests)

    def send(i: int) -> None:
        try:
            start.wait()
            responses[i] = requests[i]()
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(requests))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert all(r is not None for r in responses), "a request did not finish"
    return responses  # type: ignore[return-value]


def _chunks_follow_the_body(note: Note) -> bool:
    stored = list(Chunk.objects.filter(note=note).order_by("ordinal").values_list("text", flat=True))
    return stored == [draft.text for draft in drafts_for(note)]


@pytest.mark.django_db(transaction=True)
def test_concurrent_puts_leave_body_and_chunks_agreeing(owner, vault):
    client = api(owner)
    note_id = client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Toggle.md", "body": BODY_A}, format="json")
    note_id = note_id.json()["id"]
    clients = [api(owner) for _ in range(4)]
    url = f"/api/notes/{note_id}/"
    for _ in range(8):
        responses = _at_once(
            *(
                lambda c=c, b=b: c.put(url, {"body": b}, format="json")
                for c, b in zip(clients, [BODY_A, BODY_B, BODY_A, BODY_B], strict=True)
            )
        )
        assert [r.status_code for r in responses] == [200] * 4
        note = Note.objects.get(pk=note_id)
        assert note.body in (BODY_A, BODY_B)
        assert _chunks_follow_the_body(note), "the chunks say something other than the note"


@pytest.mark.django_db(transaction=True)
def test_a_delete_racing_a_put_is_never_undone(owner, vault):
    contributor = make_user("contributor")
    share(vault, "contributor", user=contributor)
    writer, deleter, manager = api(contributor), api(contributor), api(owner)
    note_id = writer.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Gone.md", "body": BODY_A}, format="json")
    url = f"/api/notes/{note_id.json()['id']}/"
    for i in range(8):
        body = BODY_B if i % 2 else BODY_A
        put, delete = _at_once(lambda b=body: writer.put(url, {"body": b}, format="json"), lambda: deleter.delete(url))
        assert delete.status_code == 200
        assert put.status_code in (200, 404, 409), put.content
        note = Note.objects.get(pk=note_id.json()["id"])
        assert note.tier == "cold", "a contributor's edit brought a deleted note back"
        assert set(Chunk.objects.filter(note=note).values_list("tier", flat=True)) == {"cold"}
        assert _chunks_follow_the_body(note)
        assert manager.post(f"{url}restore/").status_code == 200


@pytest.mark.django_db
def test_a_put_based_on_an_older_version_gets_409_with_both_texts(owner, vault):
    alice, bob = api(owner), api(owner)
    made = alice.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Plan.md", "body": BODY_A}, format="json").json()
    url = f"/api/notes/{made['id']}/"
    loaded = alice.get(url)
    etag = loaded["ETag"]
    assert etag and bob.get(url)["ETag"] == etag

    assert bob.put(url, {"body": BODY_B}, format="json", HTTP_IF_MATCH=etag).status_code == 200
    mine = BODY_A + "\n\nAlice's addition."
    refused = alice.put(url, {"body": mine}, format="json", HTTP_IF_MATCH=etag)
    assert refused.status_code == 409
    conflict = refused.json()
    assert conflict["current"]["body"] == BODY_B and conflict["yours"]["body"] == mine
    assert refused["ETag"] == bob.get(url)["ETag"] != etag
    assert Note.objects.get(pk=made["id"]).body == BODY_B

    # Alice merges onto the version she was shown, and it goes through.
    merged = alice.put(url, {"body": BODY_B + "\n\nAlice's addition."}, format="json", HTTP_IF_MATCH=refused["ETag"])
    assert merged.status_code == 200 and merged["ETag"] != refused["ETag"]
    # A PATCH of the path alone is held to the same version check, and keeps the body.
    stale = alice.patch(url, {"path": "Renamed.md"}, format="json", HTTP_IF_MATCH=etag)
    assert stale.status_code == 409
    renamed = alice.patch(url, {"path": "Renamed.md"}, format="json", HTTP_IF_MATCH=merged["ETag"])
    assert renamed.status_code == 200 and renamed.json()["body"] == BODY_B + "\n\nAlice's addition."
    # Without If-Match the last write wins, as before.
    assert bob.put(url, {"body": BODY_A}, format="json").status_code == 200


@pytest.mark.django_db
def test_a_put_to_a_deleted_note_is_refused_and_keeps_it_deleted(owner, vault):
    client = api(owner)
    made = client.post(f"/api/vaults/{vault.pk}/notes/", {"path": "Old.md", "body": BODY_A}, format="json").json()
    url = f"/api/notes/{made['id']}/"
    etag = client.get(url)["ETag"]
    client.delete(url)
    for headers in ({}, {"HTTP_IF_MATCH": etag}):
        refused = client.put(url, {"body": BODY_B}, format="json", **headers)
        assert refused.status_code == 409 and refused.json()["current"]["tier"] == "cold"
    note = Note.objects.get(pk=made["id"])
    assert note.tier == "cold" and note.body == BODY_A
