"""Everyone has a private personal vault, whatever made their account: the API, the admin, single sign-on,
`createsuperuser` or `User.objects.create_user`, and accounts made before that was so."""

from __future__ import annotations

import importlib
import threading

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.test import Client

from apps.audit.models import AuditEvent
from apps.vaults.models import Vault
from apps.vaults.services import personal_vault_ensure
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def signed_in(username: str, password: str = PASSWORD) -> Client:
    browser = Client()
    assert browser.post("/login/", {"username": username, "password": password}).status_code == 302
    return browser


def assert_has_a_usable_personal_vault(browser: Client, username: str) -> None:
    personal = browser.get("/api/me/").json()["personal_vault"]
    assert personal is not None
    assert Vault.objects.get(pk=personal).name == f"{username} (personal)"
    home = browser.get("/").content.decode()
    assert f"{username} (personal)" in home and "· personal" in home
    asked = browser.post("/api/chat/", {"message": "What did I write down?"}, content_type="application/json")
    assert asked.status_code == 200, asked.content
    assert "cannot read any vault" not in asked.content.decode()


def test_an_account_made_with_create_user_has_its_personal_vault():
    User.objects.create_user(username="made-by-code", password=PASSWORD)
    assert_has_a_usable_personal_vault(signed_in("made-by-code"), "made-by-code")


def test_an_account_made_with_createsuperuser_has_its_personal_vault(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command("createsuperuser", interactive=False, username="first-admin", email="admin@example.org", verbosity=0)
    assert_has_a_usable_personal_vault(signed_in("first-admin"), "first-admin")


def test_an_account_has_one_personal_vault_however_often_it_is_ensured():
    user = User.objects.create_user(username="ensured-twice", password=PASSWORD)
    user.save()  # a later save is not a new account
    assert personal_vault_ensure(user=user) == personal_vault_ensure(user=user)
    assert Vault.objects.filter(owner=user, is_personal=True).count() == 1
    assert AuditEvent.objects.filter(action="vault.create", actor=user).count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_callers_at_once_make_one_personal_vault():
    # An account from before every account got one (bulk_create saves no account one by one).
    (user,) = User.objects.bulk_create([User(username="raced", password="!")])
    barrier, made, errors = threading.Barrier(2), [], []

    def ensure() -> None:
        try:
            barrier.wait()
            made.append(personal_vault_ensure(user=user).pk)
        except Exception as exc:  # noqa: BLE001  # the assertion below shows it
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=ensure) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(set(made)) == 1
    assert Vault.objects.filter(owner=user, is_personal=True).count() == 1


def test_accounts_from_before_get_their_personal_vault_from_the_migration():
    from django.apps import apps as installed

    migration = importlib.import_module("apps.vaults.migrations.0006_personal_vault_for_every_account")
    (earlier,) = User.objects.bulk_create([User(username="from-before")])
    earlier.set_password(PASSWORD)
    earlier.save()
    assert not Vault.objects.filter(owner=earlier).exists()

    migration.personal_vaults_make(installed, None)
    migration.personal_vaults_make(installed, None)  # run again, it makes nothing more

    assert Vault.objects.filter(owner=earlier, is_personal=True).count() == 1
    assert_has_a_usable_personal_vault(signed_in("from-before"), "from-before")
