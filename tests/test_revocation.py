"""Revocation reaches everything: what the Librarian filed, summarised or published from a vault follows that
vault's permissions when it is read, and a role held through a team does not outlive the owner's revocation of
the person who gave it. Beside the isolation suite: each test revokes and tries every read path again."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.contrib.auth.models import User
from django.test import Client

from apps.accounts.models import TeamRole
from apps.accounts.services import team_create, team_member_add, team_member_remove
from apps.audit.models import AuditEvent
from apps.chat.services.chat import chat_run, chat_start
from apps.librarian.filing import file_exchange
from apps.librarian.models import SummaryNode
from apps.librarian.summaries.selectors import WITHHELD_SUMMARY
from apps.librarian.tasks import summaries_daily
from apps.notes.models import Note
from apps.vaults.models import TeamGrant, Vault
from apps.vaults.permissions import role_of
from apps.vaults.services import vault_share, vault_unshare
from tests.factories import api, make_note, make_team, make_user, make_vault, share

pytestmark = pytest.mark.django_db
WORD = "quokkafjord"
QUESTION = f"What is the code word {WORD} for?"
# A question about past conversations: the one kind for which chat reads the Librarian's filed notes.
RECALL = f"What did we discuss about the code word {WORD}?"


def _secret_vault() -> Vault:
    vault = make_vault(make_user(), "Secret")
    make_note(vault, "Code.md", f"# Code\nThe code word {WORD} opens the north door of the archive.")
    make_note(vault, "Other.md", "# Other\nThe archive closes at six in the evening.")
    return vault


def _answered(user: User, vault: Vault, text: str = QUESTION) -> int:
    message = chat_start(user=user, vault_ids=[vault.pk], text=text)
    for _ in chat_run(message=message, user=user):
        pass
    return message.pk


def _personal(user: User) -> Vault:
    return Vault.objects.get(owner=user, is_personal=True)


def _filed(reader: User, vault: Vault) -> Note:
    note = file_exchange(_answered(reader, vault))
    assert note is not None and note.vault == _personal(reader) and WORD in note.body
    return note


def _reaches(user: User, note: Note) -> dict[str, bool]:
    """Every way `user` could read `note`: by id, in its vault's list, by search (keyword and hybrid), in chat."""
    client = api(user)
    listed = client.get(f"/api/vaults/{note.vault_id}/notes/", {"page_size": 200}).json()
    searched = client.get("/api/search/", {"q": WORD, "k": 50}).json()["results"]
    asked = client.post("/api/chat/", {"message": RECALL, "vaults": [note.vault_id]}, format="json").json()
    anywhere = client.post("/api/chat/", {"message": RECALL}, format="json").json()
    home = Client()
    home.force_login(user)
    shown = Note.objects.filter(vault_id=note.vault_id, tier="hot").count() - 1  # every other note of its vault
    counted = {
        page: f'{note.vault.name}</a> <span class="muted">{shown + 1} notes'
        if page == "/"
        else f'{note.vault.name} <span class="muted">{shown + 1} notes'
        for page in ("/", "/chat/")
    }
    return {
        "counted on the search and chat pages": all(
            text in home.get(page).content.decode() for page, text in counted.items()
        ),
        "by id": client.get(f"/api/notes/{note.pk}/").status_code == 200,
        "listed": note.pk in [row["id"] for row in listed.get("results", [])],
        "searched": note.pk in [hit["note"] for hit in searched],
        "chat in its vault": note.pk in [item["note"] for item in asked.get("candidates", [])],
        "chat anywhere": note.pk in [item["note"] for item in anywhere.get("candidates", [])],
    }


def _exported_text(user: User, vault: Vault) -> str:
    response = api(user).get(f"/api/vaults/{vault.pk}/export/")
    assert response.status_code == 200, response.content
    data = b"".join(response.streaming_content) if response.streaming else response.content
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return "\n".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())


def test_a_filed_note_follows_the_vault_it_drew_on_at_read_time():
    secret = _secret_vault()
    reader = make_user()
    share(secret, "reader", user=reader)
    note = _filed(reader, secret)
    assert note.drawn_from == [secret.pk]
    assert all(_reaches(reader, note).values())

    assert WORD in _exported_text(reader, note.vault)

    vault_unshare(actor=secret.owner, vault=secret, user=reader)
    assert not any(_reaches(reader, note).values()), _reaches(reader, note)
    anywhere = api(reader).post("/api/chat/", {"message": RECALL}, format="json").json()
    assert WORD not in anywhere["answer"] + " ".join(c["text"] for c in anywhere["candidates"])
    assert WORD not in _exported_text(reader, note.vault)  # exporting their own vault takes no copy out

    share(secret, "reader", user=reader)  # read time: given back, it is there again
    assert api(reader).get(f"/api/notes/{note.pk}/").status_code == 200


def test_a_filed_note_follows_a_vault_read_through_a_team_and_a_limited_token():
    from tests.factories import api_with_token

    secret = _secret_vault()
    reader = make_user()
    team = make_team(make_user(), reader)
    share(secret, "reader", team=team)
    note = _filed(reader, secret)
    mine = _personal(reader)
    # a token limited to the reader's other vaults never reaches the personal vault at all
    other = make_vault(reader, "Other")
    assert api_with_token(reader, vaults=[other]).get(f"/api/notes/{note.pk}/").status_code == 404
    assert api(reader).get(f"/api/notes/{note.pk}/").status_code == 200
    team_member_remove(actor=team.memberships.get(role=TeamRole.MANAGER).user, team=team, user=reader)
    assert not any(_reaches(reader, note).values())
    assert Note.objects.filter(pk=note.pk, vault=mine).exists()  # kept, not deleted: withheld


def test_a_summary_drawn_from_a_lost_vault_is_withheld_with_a_notice():
    secret = _secret_vault()
    reader = make_user()
    share(secret, "reader", user=reader)
    _answered(reader, secret)
    _answered(reader, secret, f"Which door does {WORD} open?")  # two conversations make a week
    assert summaries_daily()["summarised"] == 2
    node = SummaryNode.objects.select_related("note").filter(owner=reader, level=0).first()
    assert node.note.drawn_from == [secret.pk]
    client = api(reader)
    opened = client.get(f"/api/summaries/{node.pk}/").json()
    assert not opened["withheld"] and WORD in opened["text"]
    week = opened["parents"][0]
    assert client.get(f"/api/summaries/{week['id']}/").json()["withheld"] is False

    vault_unshare(actor=secret.owner, vault=secret, user=reader)
    for summary_id in (node.pk, week["id"]):
        shown = client.get(f"/api/summaries/{summary_id}/")
        assert shown.status_code == 200
        body = shown.json()
        assert body["withheld"] and body["text"] == WITHHELD_SUMMARY and body["note"] is None
        # the person's own questions stay, as in the conversation's history; nothing else carries the word
        answers = [m for m in body.pop("messages") if m["role"] == "assistant"]
        assert WORD not in str(body) + str(answers)
        assert client.get(f"/api/notes/{Note.objects.get(summary_node__pk=summary_id).pk}/").status_code == 404
    listed = client.get("/api/summaries/").json()
    assert listed and all(row["withheld"] for row in listed) and WORD not in str(listed)
    hits = client.get("/api/search/", {"q": WORD, "k": 50}).json()["results"]
    assert hits == []


def test_publishing_rechecks_the_source_and_the_copy_follows_it():
    secret = _secret_vault()
    reader, colleague = make_user(), make_user()
    share(secret, "reader", user=reader)
    own = make_vault(reader, "Reader's own")
    share(own, "reader", user=colleague)  # reads the reader's vault, never the secret one
    note = _filed(reader, secret)

    published = api(reader).post(f"/api/notes/{note.pk}/publish/", {"vault": own.pk}, format="json")
    assert published.status_code == 201
    copy = Note.objects.get(pk=published.json()["id"])
    assert copy.vault == own and copy.drawn_from == [secret.pk]
    event = AuditEvent.objects.get(action="note.publish", object_id=str(copy.pk))
    assert event.changes["drawn_from"] == [secret.pk]
    # the colleague reads the vault the copy is in, not the vault it came from
    assert not any(_reaches(colleague, copy).values())
    assert api(reader).get(f"/api/notes/{copy.pk}/").status_code == 200

    vault_unshare(actor=secret.owner, vault=secret, user=reader)
    again = api(reader).post(f"/api/notes/{note.pk}/publish/", {"vault": own.pk}, format="json")
    assert again.status_code == 404
    assert Note.objects.filter(vault=own).count() == 1
    assert not any(_reaches(reader, copy).values())


def test_publishing_refuses_inside_the_service_when_the_source_was_lost_meanwhile():
    from django.http import Http404

    from apps.librarian.publishing import note_publish

    secret = _secret_vault()
    reader = make_user()
    share(secret, "reader", user=reader)
    own = make_vault(reader, "Reader's own")
    note = _filed(reader, secret)  # fetched while readable
    vault_unshare(actor=secret.owner, vault=secret, user=reader)
    with pytest.raises(Http404):
        note_publish(actor=reader, note=note, vault=own)
    assert not Note.objects.filter(vault=own).exists()


def _loophole() -> tuple[Vault, User, User]:
    """A non-owner manager orders steps to hold a role through a team: an accomplice becomes the team's manager,
    the manager leaves, shares the vault with the team, and is added back."""
    owner, manager, accomplice = make_user(), make_user(), make_user()
    vault = make_vault(owner, "Shared")
    share(vault, "manager", user=manager)
    team = team_create(actor=manager, name="Backdoor")
    team_member_add(actor=manager, team=team, user=accomplice, role=TeamRole.MANAGER)
    team_member_remove(actor=manager, team=team, user=manager)
    vault_share(actor=manager, vault=vault, team=team, role="manager")
    team_member_add(actor=accomplice, team=team, user=manager, role=TeamRole.MEMBER)
    assert TeamGrant.objects.get(vault=vault, team=team).granted_by == manager
    return vault, manager, accomplice


def test_a_team_role_does_not_outlive_the_owner_s_revocation_of_whoever_gave_it():
    vault, manager, accomplice = _loophole()
    assert role_of(manager, vault) == "manager"

    vault_unshare(actor=vault.owner, vault=vault, user=manager)
    assert role_of(manager, vault) is None and role_of(accomplice, vault) is None
    assert api(manager).get(f"/api/vaults/{vault.pk}/").status_code == 404
    assert not TeamGrant.objects.filter(vault=vault).exists()
    cut = AuditEvent.objects.filter(action="vault.revoke", vault_id=vault.pk).order_by("id").last()
    assert cut.changes["given_by"] == manager.pk and cut.changes["principal"].startswith("team:")


def test_lowering_the_giver_below_manager_ends_the_team_roles_they_gave():
    vault, manager, _ = _loophole()
    vault_share(actor=vault.owner, vault=vault, user=manager, role="reader")
    assert role_of(manager, vault) == "reader"  # the owner's choice, not the team's old manager role


def test_a_team_role_given_by_the_owner_stays_and_what_rests_on_a_team_membership_ends_with_it():
    owner, manager, member = make_user(), make_user(), make_user()
    vault = make_vault(owner, "Shared")
    managers = make_team(owner, manager)  # the owner made this team a manager
    vault_share(actor=owner, vault=vault, team=managers, role="manager")
    readers = make_team(member)
    vault_share(actor=manager, vault=vault, team=readers, role="reader")  # given by a manager through a team
    assert role_of(member, vault) == "reader"

    assert role_of(manager, vault) == "manager"  # through the owner's team
    team_member_remove(actor=owner, team=managers, user=manager)
    assert role_of(manager, vault) is None
    assert role_of(member, vault) is None  # the role the manager gave rested on that membership


def test_what_was_filed_and_shared_before_records_its_sources_once_migrated():
    """The backfills: filed notes name what they drew on (`vault:path`), summaries what their answers drew on,
    published copies their original's; team roles get their giver from the audit log."""
    from importlib import import_module

    from django.apps import apps as registry

    notes_backfill = import_module("apps.librarian.migrations.0003_drawn_from_backfill").backfill
    grants_backfill = import_module("apps.vaults.migrations.0003_team_grants").grants_from_the_audit_log

    secret = _secret_vault()
    reader = make_user()
    share(secret, "reader", user=reader)
    own = make_vault(reader, "Reader's own")
    note = _filed(reader, secret)
    copy_id = api(reader).post(f"/api/notes/{note.pk}/publish/", {"vault": own.pk}, format="json").json()["id"]
    assert summaries_daily()["summarised"] == 1
    summary = SummaryNode.objects.get(owner=reader, level=0).note
    Note.objects.filter(pk__in=[note.pk, copy_id, summary.pk]).update(drawn_from=[])
    notes_backfill(registry, None)
    assert {n.pk: n.drawn_from for n in Note.objects.filter(pk__in=[note.pk, copy_id, summary.pk])} == {
        note.pk: [secret.pk],
        copy_id: [secret.pk],
        summary.pk: [secret.pk],
    }

    vault, manager, _ = _loophole()
    TeamGrant.objects.all().delete()
    grants_backfill(registry, None)
    assert TeamGrant.objects.get(vault=vault).granted_by == manager
