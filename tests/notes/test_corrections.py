"""`correct` on a passage someone was shown: from a contributor an authored note supersedes it at once and the
passage goes cold (no longer served, kept, pointing to its successor); from a reader it waits as a proposal that
contributors see and apply or decline."""

from __future__ import annotations

import pytest

from apps.chat.models import ContextItem
from apps.feedback.models import Feedback
from apps.notes.models import Chunk, Correction, Note, NoteLink
from apps.notes.services.chunks import chunks_embed_pending
from apps.notes.services.corrections import correction_submit
from apps.notes.services.notes import note_update
from tests.factories import api, import_folder, make_note, make_user, share

pytestmark = pytest.mark.django_db

LAB = " ".join(["The lab keeps its own safety rules for soldering, lasers and high voltage work."] * 5)
BODY = (
    "# Permit to work\n\n## Who issues it\n\nThe IT helpdesk issues every permit to work (PTW) for the lab. "
    f"{LAB}\n\n## When\n\nRequest the permit to work one working day ahead of the job. {LAB}\n"
)  # two sections, each large enough to be a chunk of its own
QUESTION = "Who issues the permit to work for the lab?"


def _shown(user, vault, question=QUESTION):
    reply = api(user).post("/api/chat/", {"vaults": [vault.pk], "message": question}, format="json").json()
    items = ContextItem.objects.filter(pk__in=[c["id"] for c in reply["context"]])
    return next(i for i in items if "IT helpdesk" in i.text)


def _correct(user, item, text):
    body = {"context_item": item.pk, "signal": "correct", "text": text}
    response = api(user).post("/api/feedback/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["correction"]


def _served(user, vault, question=QUESTION):
    reply = api(user).post("/api/chat/", {"vaults": [vault.pk], "message": question}, format="json").json()
    return " ".join(c["text"] for c in reply["context"])


def test_a_contributor_s_correction_supersedes_the_passage_with_an_authored_note(owner, vault):
    note = make_note(vault, "PTW.md", BODY)
    item = _shown(owner, vault)
    assert "IT helpdesk" in _served(owner, vault)

    correction = _correct(owner, item, "Facilities issue every permit to work for the lab.")

    assert correction["status"] == "applied"
    successor = Note.objects.get(pk=correction["successor"])
    assert successor.provenance == "authored" and successor.created_by == owner
    assert successor.frontmatter["supersedes"] == "[[PTW]]" and "Facilities issue" in successor.body
    assert NoteLink.objects.get(source=successor).target_id == note.pk  # the property links to what it replaces
    # its passages are the correction alone: no bookkeeping sentence to be searched or quoted
    assert [c.text for c in Chunk.objects.filter(note=successor)] == [
        "Facilities issue every permit to work for the lab."
    ]
    assert "IT helpdesk" not in successor.body  # the wrong fact is not copied into its successor
    old = Chunk.objects.get(pk=item.chunk_id)
    assert old.tier == "cold" and Note.objects.get(pk=note.pk).tier == "hot"  # only the passage goes cold
    chunks_embed_pending(vault_id=vault.pk)
    served = _served(owner, vault)
    assert "IT helpdesk" not in served and "Facilities issue" in served
    detail = api(owner).get(f"/api/notes/{note.pk}/").json()
    assert detail["superseded"] == [
        {
            "correction": Correction.objects.get().pk,
            "passage": old.text,
            "successor": {"id": successor.pk, "path": successor.path},
        }
    ]


def test_a_superseded_passage_stays_cold_when_its_note_is_rewritten_or_restored(owner, vault):
    note = make_note(vault, "PTW.md", BODY)
    chunk = Chunk.objects.get(note=note, text__contains="IT helpdesk")
    correction_submit(user=owner, chunk=chunk, text="Facilities issue permits to work.")

    note_update(actor=owner, note=note, body=BODY + "\n## Where\n\nPermits hang by the lab door.\n")
    rows = dict(Chunk.objects.filter(note=note).values_list("text", "tier"))
    assert [tier for text, tier in rows.items() if "IT helpdesk" in text] == ["cold"]
    assert sorted(tier for text, tier in rows.items() if "IT helpdesk" not in text) == ["hot", "hot"]

    Note.objects.filter(pk=note.pk).update(tier="cold")
    Note.objects.filter(pk=note.pk).update(tier="hot")  # a manager's restore
    assert Chunk.objects.get(note=note, text__contains="IT helpdesk").tier == "cold"
    assert Chunk.objects.filter(note=note, tier="hot").count() == 2


def test_a_reader_s_correction_waits_for_a_contributor(owner, vault):
    make_note(vault, "PTW.md", BODY)
    reader, contributor, outsider = make_user(), make_user(), make_user()
    share(vault, "reader", user=reader)
    share(vault, "contributor", user=contributor)

    proposed = _correct(reader, _shown(reader, vault), "Facilities issue them.")
    assert proposed == {"id": proposed["id"], "status": "proposed", "successor": None}
    assert "IT helpdesk" in _served(reader, vault)  # still served until a contributor applies it

    listed = api(contributor).get(f"/api/vaults/{vault.pk}/corrections/?status=proposed")
    assert listed.status_code == 200
    [row] = listed.json()
    assert row["proposed_by"] == reader.username and "IT helpdesk" in row["passage"] and row["text"]
    assert api(reader).get(f"/api/vaults/{vault.pk}/corrections/").status_code == 403
    assert api(outsider).get(f"/api/vaults/{vault.pk}/corrections/").status_code == 404
    assert api(reader).post(f"/api/corrections/{row['id']}/", {"action": "apply"}, format="json").status_code == 403
    assert api(outsider).post(f"/api/corrections/{row['id']}/", {"action": "apply"}, format="json").status_code == 404

    applied = api(contributor).post(f"/api/corrections/{row['id']}/", {"action": "apply"}, format="json")
    assert applied.status_code == 200 and applied.json()["status"] == "applied"
    successor = Note.objects.get(pk=applied.json()["successor"])
    assert successor.created_by == contributor and successor.frontmatter["proposed_by"] == reader.username
    again = api(contributor).post(f"/api/corrections/{row['id']}/", {"action": "decline"}, format="json")
    assert again.status_code == 400  # decided once
    chunks_embed_pending(vault_id=vault.pk)
    assert "IT helpdesk" not in _served(reader, vault)


def test_a_correction_of_a_passage_that_changed_since_is_refused_and_nothing_is_stored(owner, vault):
    note = make_note(vault, "PTW.md", BODY)
    reader = make_user()
    share(vault, "reader", user=reader)
    item = _shown(reader, vault)
    proposal = correction_submit(user=reader, chunk=Chunk.objects.get(pk=item.chunk_id), text="Facilities do.")
    note_update(actor=owner, note=note, body=BODY.replace("The IT helpdesk", "The front desk"))

    late = api(reader).post(
        "/api/feedback/", {"context_item": item.pk, "signal": "correct", "text": "No."}, format="json"
    )
    assert late.status_code == 400 and "changed since it was shown" in late.content.decode()
    assert Feedback.objects.filter(signal="correct").count() == 0
    applied = api(owner).post(f"/api/corrections/{proposal.pk}/", {"action": "apply"}, format="json")
    assert applied.status_code == 400 and "changed" in applied.content.decode()
    assert Note.objects.filter(vault=vault).count() == 1 and not Chunk.objects.filter(tier="cold").exists()


def test_a_declined_proposal_changes_nothing(owner, vault):
    make_note(vault, "PTW.md", BODY)
    reader = make_user()
    share(vault, "reader", user=reader)
    proposed = _correct(reader, _shown(reader, vault), "Nobody issues them.")
    bad = api(owner).post(f"/api/corrections/{proposed['id']}/", {"action": "burn"}, format="json")
    assert bad.status_code == 400
    declined = api(owner).post(f"/api/corrections/{proposed['id']}/", {"action": "decline"}, format="json")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    assert Note.objects.filter(vault=vault).count() == 1
    assert Chunk.objects.filter(vault=vault, tier="cold").count() == 0


def test_a_note_imported_under_a_name_no_writer_may_give_it_can_still_be_corrected(owner, vault, tmp_path):
    (tmp_path / "Who issues the PTW?.md").write_text(BODY, encoding="utf-8")
    import_folder(vault, tmp_path, follow_up=False)
    chunks_embed_pending(vault_id=vault.pk)

    correction = _correct(owner, _shown(owner, vault), "Facilities issue every permit to work for the lab.")

    assert correction["status"] == "applied"
    successor = Note.objects.get(pk=correction["successor"])
    assert successor.path == f"corrections/Who issues the PTW (correction {correction['id']}).md"
    assert "Facilities issue" in _served(owner, vault)
