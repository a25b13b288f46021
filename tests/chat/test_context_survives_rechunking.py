"""A note in an answer's scope edited while the answer is being written: the answer's context keeps the passage
it was given, and neither the answer nor the edit fails."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from apps.chat.models import ContextItem, Conversation, Message, Role, Status
from apps.chat.services.chat import context_items_store
from apps.notes.models import Chunk, Note
from apps.notes.services.notes import note_update
from apps.retrieval.candidates import load_chunks
from apps.retrieval.gate import Rated
from tests.factories import api, make_note, scope_of

BODY = "# Boiler\n\nThe boiler is serviced every autumn by Jonas Weber.\n\n## Office\n\nIt heats the office too."
EDITED = "# Boiler\n\nThe boiler is serviced every spring by Maria Keller.\n\n## Office\n\nIt heats the office too."


def _answer_with_context_from(note: Note) -> tuple[Message, list[Rated]]:
    question = Message.objects.create(
        conversation=Conversation.objects.create(owner=note.vault.owner, title="boiler"),
        role=Role.USER,
        text="Who services the boiler?",
        vault_ids=[note.vault_id],
    )
    answer = Message.objects.create(
        conversation=question.conversation,
        role=Role.ASSISTANT,
        status=Status.RUNNING,
        reply_to=question,
        vault_ids=[note.vault_id],
    )
    chunks = list(Chunk.objects.filter(note=note).order_by("ordinal").values_list("id", flat=True))
    found = load_chunks(chunks=chunks, query_vector=None, scope=scope_of([note.vault_id]))
    return answer, [Rated(candidate, 5, None) for candidate in found]


@pytest.mark.django_db(transaction=True)
def test_context_of_a_note_rechunked_before_it_is_stored_keeps_the_passage(owner, vault):
    note = make_note(vault, "Boiler.md", BODY, embed=False)
    answer, rated = _answer_with_context_from(note)
    note_update(actor=owner, note=note, body=EDITED)  # committed while the answer was being gated

    items = context_items_store(answer, rated, rated)

    assert [item.text for item in items] == [r.candidate.text for r in rated]
    assert any("Jonas Weber" in item.text for item in items)
    assert set(ContextItem.objects.filter(message=answer).values_list("chunk_id", flat=True)) == {None}
    Message.objects.filter(pk=answer.pk).update(status=Status.COMPLETE, text="Jonas Weber services it [1].")
    turns = api(owner).get(f"/api/conversations/{answer.conversation_id}/").json()["turns"]
    assert any("Jonas Weber" in item["text"] for item in turns[0]["context"]), turns


@pytest.mark.django_db(transaction=True)
def test_an_edit_waiting_on_context_being_stored_still_goes_through(owner, vault):
    note = make_note(vault, "Boiler.md", BODY, embed=False)
    answer, rated = _answer_with_context_from(note)
    edit_error: list[BaseException] = []

    def edit() -> None:
        try:
            note_update(actor=owner, note=Note.objects.get(pk=note.pk), body=EDITED)
        except BaseException as exc:  # noqa: BLE001 - reported to the test below
            edit_error.append(exc)
        finally:
            connection.close()

    with transaction.atomic():
        context_items_store(answer, rated, rated)
        editor = threading.Thread(target=edit)
        editor.start()
        time.sleep(0.5)  # the edit deletes the old chunks while the context rows are not yet committed
    editor.join(timeout=20)

    assert not editor.is_alive() and edit_error == []
    assert Note.objects.get(pk=note.pk).body == EDITED
    items = ContextItem.objects.filter(message=answer)
    assert items.count() == len(rated) and set(items.values_list("chunk_id", flat=True)) == {None}
    assert any("Jonas Weber" in item.text for item in items)


@pytest.mark.django_db(transaction=True)
def test_context_stored_while_an_edit_holds_the_note_waits_for_the_edit_and_neither_deadlocks(owner, vault):
    note = make_note(vault, "Boiler.md", BODY, embed=False)
    answer, rated = _answer_with_context_from(note)
    stored: list[ContextItem] = []
    store_error: list[BaseException] = []

    def store() -> None:
        try:
            stored.extend(context_items_store(answer, rated, rated))
        except BaseException as exc:  # noqa: BLE001 - reported to the test below
            store_error.append(exc)
        finally:
            connection.close()

    with transaction.atomic():  # an edit's order: its note's row first, then its old chunks go
        Note.objects.select_for_update().get(pk=note.pk)
        storing = threading.Thread(target=store)
        storing.start()
        time.sleep(0.5)  # the answer is storing its context meanwhile
        Chunk.objects.filter(note=note).delete()
    storing.join(timeout=20)

    assert not storing.is_alive() and store_error == []
    assert len(stored) == len(rated) and {item.chunk_id for item in stored} == {None}
    assert any("Jonas Weber" in item.text for item in stored)
