"""Nobody ends up with two vaults of the same name by their own hand: making or renaming a vault to a name already
among the vaults they manage (their personal vault included; letter case and outer spaces aside) is refused with the
clash named, on the API and on the pages. Only those vaults count: another person's vault, one the person only
reads, or one they cannot see never blocks a name, so a refusal tells nothing about vaults they cannot manage."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from apps.vaults.models import Vault
from tests.factories import api, make_user, make_vault, share

pytestmark = pytest.mark.django_db

CLASH = "You already have a vault named “Field notes”"


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _named(user: User, name: str) -> int:
    return Vault.objects.filter(owner=user, name__iexact=name).count()


def test_the_api_refuses_a_second_vault_of_a_name_and_a_rename_into_one():
    person = make_user()
    client = api(person)
    assert client.post("/api/vaults/", {"name": "Field notes"}, format="json").status_code == 201

    again = client.post("/api/vaults/", {"name": "  field NOTES "}, format="json")
    assert again.status_code == 400 and CLASH in again.json()["name"][0], again.json()
    assert _named(person, "field notes") == 1

    personal = client.post("/api/vaults/", {"name": f"{person.username.upper()} (Personal)"}, format="json")
    assert personal.status_code == 400 and "You already have a vault named" in personal.json()["name"][0]

    recipes = client.post("/api/vaults/", {"name": "Recipes"}, format="json").json()["id"]
    renamed = client.patch(f"/api/vaults/{recipes}/", {"name": "Field Notes", "archived": True}, format="json")
    assert renamed.status_code == 400 and CLASH in renamed.json()["name"][0]
    stored = Vault.objects.get(pk=recipes)
    assert stored.name == "Recipes" and stored.archived_at is None  # nothing of the refused change is kept
    own_name = client.patch(f"/api/vaults/{recipes}/", {"name": "RECIPES"}, format="json")
    assert own_name.status_code == 200 and own_name.json()["name"] == "RECIPES"


def test_the_new_vault_form_and_the_rename_form_name_the_clash_and_make_nothing():
    person = make_user()
    browser = _browser(person)
    assert browser.post("/vaults/new/", {"name": "Field notes"}).status_code == 302

    refused = browser.post("/vaults/new/", {"name": "FIELD notes  "})
    assert refused.status_code == 400 and CLASH in refused.content.decode()
    assert _named(person, "field notes") == 1

    other = make_vault(person, "Garden")
    renamed = browser.post(f"/vaults/{other.pk}/settings/", {"action": "rename", "name": "field notes"})
    assert renamed.status_code == 400 and CLASH in renamed.content.decode()
    assert Vault.objects.get(pk=other.pk).name == "Garden"


def test_a_vault_managed_for_someone_else_counts_and_one_only_read_does_not():
    person, colleague = make_user(), make_user()
    managed, read = make_vault(colleague, "Team wiki"), make_vault(colleague, "Handbook")
    share(managed, "manager", user=person)
    share(read, "reader", user=person)
    client = api(person)
    refused = client.post("/api/vaults/", {"name": "team wiki"}, format="json")
    assert refused.status_code == 400 and "You already have a vault named “Team wiki”" in refused.json()["name"][0]
    assert client.post("/api/vaults/", {"name": "Handbook"}, format="json").status_code == 201


def test_names_of_vaults_a_person_cannot_see_never_block_them_nor_show():
    person, stranger = make_user(), make_user()
    make_vault(stranger, "Secret plans")
    made = api(person).post("/api/vaults/", {"name": "secret plans"}, format="json")
    assert made.status_code == 201 and made.json()["name"] == "secret plans"

    # A co-manager renames a shared vault to the name of the owner's private one: the owner's vault is not theirs
    # to see, so it neither blocks the name nor is told of.
    owner = make_user()
    shared, _private = make_vault(owner, "Shared"), make_vault(owner, "Private diary")
    share(shared, "manager", user=person)
    renamed = api(person).patch(f"/api/vaults/{shared.pk}/", {"name": "Private diary"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name"] == "Private diary"
