"""API tokens people can trust: named, shown once, hashed at rest, expiring, revocable, read-only or limited to
some vaults — and every endpoint honours the limit."""

from __future__ import annotations

import importlib
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from apps.accounts.models import ApiToken
from apps.accounts.tokens import key_hash, token_create
from apps.audit.models import AuditEvent
from apps.chat.models import Conversation
from apps.vaults.models import Vault
from tests.factories import PASSWORD, api, api_with_token, make_note, make_user, make_vault, share
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db


def client_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def database_text() -> str:
    """Every row of every table the tokens touch, as PostgreSQL prints it."""
    rows = []
    with connection.cursor() as cursor:
        for table in ("accounts_apitoken", "audit_auditevent", "axes_accessattempt", "axes_accesslog"):
            cursor.execute(f"SELECT t::text FROM {table} t")
            rows += [row[0] for row in cursor.fetchall()]
    return "\n".join(rows)


def test_a_token_is_shown_once_kept_as_a_hash_and_works(owner):
    made = api(owner).post("/api/tokens/", {"name": "laptop sync"}, format="json")
    assert made.status_code == 201
    assert_matches_schema(made)
    body = made.json()
    key = body["key"]
    assert key.startswith(body["prefix"]) and len(key) > 40 and made["Cache-Control"] == "no-store"
    assert body["read_only"] is False and body["vaults"] is None
    lifetime = timezone.datetime.fromisoformat(body["expires_at"]) - timezone.now()
    assert timedelta(days=89) < lifetime <= timedelta(days=90)

    # The key works, is never listed again, and the database holds only its hash.
    assert client_with(key).get("/api/vaults/").status_code == 200
    listed = api(owner).get("/api/tokens/")
    assert_matches_schema(listed)
    assert [t["name"] for t in listed.json() if t["id"] == body["id"]] == ["laptop sync"]
    assert key not in listed.content.decode()
    stored = database_text()
    assert key not in stored and key_hash(key) in stored and body["prefix"] in stored
    assert AuditEvent.objects.filter(action="token.create", object_id=str(body["id"])).exists()


def test_the_token_page_shows_a_new_key_once_and_revokes(owner):
    browser = Client()
    browser.force_login(owner)
    page = browser.post("/tokens/", {"name": "agent", "scope": "all", "expires_in_days": "30"})
    assert page.status_code == 200 and page["Cache-Control"] == "no-store"
    token = ApiToken.objects.get(user=owner, name="agent")
    html = page.content.decode()
    key = html.split('<code class="key">')[1].split("</code>")[0]
    assert key_hash(key) == token.key_hash
    assert client_with(key).get("/api/vaults/").status_code == 200
    again = browser.get("/tokens/").content.decode()
    assert "agent" in again and token.prefix in again and key not in again

    assert browser.post(f"/tokens/{token.pk}/revoke/").status_code == 302
    assert client_with(key).get("/api/vaults/").status_code == 401
    assert "revoked" in browser.get("/tokens/").content.decode()
    assert AuditEvent.objects.filter(action="token.revoke", object_id=str(token.pk)).exists()


def test_nobody_revokes_or_sees_someone_else_s_token(owner):
    other = make_user()
    theirs = token_create(user=other, name="theirs")
    assert api(owner).delete(f"/api/tokens/{theirs.token.pk}/").status_code == 404
    assert theirs.token.pk not in [t["id"] for t in api(owner).get("/api/tokens/").json()]
    browser = Client()
    browser.force_login(owner)
    assert browser.post(f"/tokens/{theirs.token.pk}/revoke/").status_code == 404
    assert client_with(theirs.key).get("/api/vaults/").status_code == 200


def test_revoked_and_expired_tokens_get_401(owner):
    revoked, expired = token_create(user=owner, name="revoked"), token_create(user=owner, name="expired")
    assert api(owner).delete(f"/api/tokens/{revoked.token.pk}/").status_code == 204
    ApiToken.objects.filter(pk=expired.token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    for made in (revoked, expired):
        answer = client_with(made.key).get("/api/vaults/")
        assert answer.status_code == 401, made.token.name
        assert answer["WWW-Authenticate"] == "Token"
    assert client_with("dp_not-a-key-at-all").get("/api/vaults/").status_code == 401
    listed = {t["name"]: t for t in api(owner).get("/api/tokens/").json()}
    assert listed["revoked"]["revoked_at"] is not None


def test_a_token_s_lifetime_is_bounded(owner, settings):
    client = api(owner)
    assert client.post("/api/tokens/", {"name": "x", "expires_in_days": 0}, format="json").status_code == 400
    too_long = client.post("/api/tokens/", {"name": "x", "expires_in_days": 366}, format="json")
    assert too_long.status_code == 400 and "expires_in_days" in too_long.json()
    week = client.post("/api/tokens/", {"name": "x", "expires_in_days": 7}, format="json").json()
    assert timezone.datetime.fromisoformat(week["expires_at"]) < timezone.now() + timedelta(days=7, minutes=1)
    assert client.post("/api/tokens/", {"name": "  "}, format="json").status_code == 400


def test_a_password_change_revokes_every_token(owner):
    first, second = token_create(user=owner, name="one"), token_create(user=owner, name="two")
    assert client_with(first.key).get("/api/vaults/").status_code == 200
    owner.set_password("a-brand-new-passphrase")
    owner.save()
    for made in (first, second):
        assert client_with(made.key).get("/api/vaults/").status_code == 401
    reasons = AuditEvent.objects.filter(action="token.revoke", object_id__in=[str(first.token.pk)])
    assert [e.changes["reason"] for e in reasons] == ["password changed"]


def test_a_password_changed_in_the_admin_revokes_tokens_too(owner):
    admin = User.objects.create_superuser("tokens-admin", password="x-long-password-1")
    made = token_create(user=owner, name="laptop")
    browser = Client()
    browser.force_login(admin)
    changed = browser.post(
        f"/admin/auth/user/{owner.pk}/password/",
        {"password1": "another-long-passphrase", "password2": "another-long-passphrase", "usable_password": "true"},
    )
    assert changed.status_code == 302
    assert client_with(made.key).get("/api/vaults/").status_code == 401


def test_a_read_only_token_reads_and_never_writes(owner, vault):
    note = make_note(vault, "Kept.md", "# Kept\nwords that stay\n", embed=False)
    reader = api_with_token(owner, read_only=True)
    assert reader.get(f"/api/notes/{note.pk}/").status_code == 200
    attempts = [
        reader.post(f"/api/vaults/{vault.pk}/notes/", {"path": "New.md", "body": "x"}, format="json"),
        reader.put(f"/api/notes/{note.pk}/", {"body": "overwritten"}, format="json"),
        reader.put(f"/api/vaults/{vault.pk}/settings/", {"gate_threshold": 4}, format="json"),
        reader.delete(f"/api/notes/{note.pk}/"),
        reader.post("/api/tokens/", {"name": "wider"}, format="json"),
        reader.post("/api/chat/", {"message": "what stays?"}, format="json"),
    ]
    assert [a.status_code for a in attempts] == [403] * len(attempts)
    assert all(a.json()["detail"].startswith("this token is read-only") for a in attempts)
    note.refresh_from_db()
    assert note.body == "# Kept\nwords that stay\n" and note.tier == "hot"
    assert not vault.notes.filter(path="New.md").exists()


def test_a_read_only_token_is_told_why_asking_is_refused_and_the_tokens_page_says_so(owner, vault):
    reader = api_with_token(owner, read_only=True)
    assert reader.get("/api/search/", {"q": "anything"}).status_code == 200
    asked = reader.post("/api/chat/", {"message": "what stays?"}, format="json")
    assert asked.status_code == 403
    assert "a read-only token may search and read; asking stores a conversation" in asked.json()["detail"]
    assert not Conversation.objects.filter(owner=owner).exists()

    browser = Client()
    browser.force_login(owner)
    page = browser.get("/tokens/").content.decode()
    assert "Read-only (searches and reads; any write is refused, and so is asking in chat" in page


def test_a_vault_limited_token_sees_only_its_vaults(owner, vault):
    other = make_vault(owner, "Other vault")
    mine = make_note(vault, "Mine.md", "# Mine\nthe heron nests by the quarry\n")
    theirs = make_note(other, "Theirs.md", "# Theirs\nthe heron nests by the lighthouse\n")
    limited = api_with_token(owner, vaults=[vault])

    assert [v["id"] for v in limited.get("/api/vaults/").json()] == [vault.pk]
    assert limited.get(f"/api/notes/{mine.pk}/").status_code == 200
    assert limited.get(f"/api/notes/{theirs.pk}/").status_code == 404
    assert limited.get(f"/api/vaults/{other.pk}/").status_code == 404
    assert limited.get(f"/api/vaults/{other.pk}/notes/").status_code == 404
    hits = limited.get("/api/search/", {"q": "heron nests"}).json()["results"]
    assert {h["note"] for h in hits} == {mine.pk}
    assert {h["note"] for h in api(owner).get("/api/search/", {"q": "heron nests"}).json()["results"]} == {
        mine.pk,
        theirs.pk,
    }  # the check can fail: the owner's unlimited token finds both
    asked = limited.post("/api/chat/", {"message": "Where does the heron nest?"}, format="json")
    assert asked.status_code == 200
    assert {c["vault"] for c in asked.json()["candidates"]} == {vault.pk}
    assert limited.post("/api/chat/", {"message": "heron?", "vaults": [other.pk]}, format="json").status_code == 404
    written = limited.post(f"/api/vaults/{other.pk}/notes/", {"path": "X.md", "body": "x"}, format="json")
    assert written.status_code == 404


def test_a_token_is_limited_only_to_vaults_its_owner_reads(owner, vault):
    stranger_vault = make_vault(make_user(), "Not yours")
    refused = api(owner).post("/api/tokens/", {"name": "x", "vaults": [stranger_vault.pk]}, format="json")
    assert refused.status_code == 404
    assert api(owner).post("/api/tokens/", {"name": "x", "vaults": []}, format="json").status_code == 400
    made = api(owner).post("/api/tokens/", {"name": "x", "vaults": [vault.pk]}, format="json")
    assert made.status_code == 201 and made.json()["vaults"] == [vault.pk]


def test_a_token_made_with_a_limited_token_is_no_broader(owner, vault):
    other = make_vault(owner, "Other vault")
    limited = api_with_token(owner, vaults=[vault])
    child = limited.post("/api/tokens/", {"name": "child"}, format="json").json()
    assert child["vaults"] == [vault.pk]
    assert [v["id"] for v in client_with(child["key"]).get("/api/vaults/").json()] == [vault.pk]
    wider = limited.post("/api/tokens/", {"name": "wider", "vaults": [other.pk]}, format="json")
    assert wider.status_code == 404


def test_losing_a_share_ends_what_a_limited_token_reads(owner, vault):
    reader = make_user()
    share(vault, "reader", user=reader)
    note = make_note(vault, "Shared.md", "# Shared\nshared words\n", embed=False)
    limited = api_with_token(reader, vaults=[vault])
    assert limited.get(f"/api/notes/{note.pk}/").status_code == 200
    from apps.vaults.services import vault_unshare

    vault_unshare(actor=owner, vault=vault, user=reader)
    assert limited.get(f"/api/notes/{note.pk}/").status_code == 404
    assert limited.get("/api/vaults/").json() == []


def test_the_token_exchange_makes_a_named_token_with_the_default_lifetime(owner):
    answer = APIClient().post("/api/auth/token/", {"username": "owner", "password": PASSWORD}, format="json")
    assert answer.status_code == 200
    assert_matches_schema(answer)
    key = answer.json()["token"]
    assert client_with(key).get("/api/vaults/").status_code == 200
    token = ApiToken.objects.get(key_hash=key_hash(key))
    assert token.user == owner and token.name.startswith("signed in") and not token.read_only
    assert timedelta(days=89) < token.expires_at - timezone.now() <= timedelta(days=90)
    bearer = APIClient()
    bearer.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert bearer.get("/api/vaults/").status_code == 200


def test_the_admin_shows_tokens_without_keys_and_cannot_make_one(owner):
    made = token_create(user=owner, name="watched")
    admin = User.objects.create_superuser("token-observer", password="x-long-password-1")
    browser = Client()
    browser.force_login(admin)
    pages = [
        browser.get("/admin/accounts/apitoken/"),
        browser.get(f"/admin/accounts/apitoken/{made.token.pk}/change/"),
        browser.get("/admin/accounts/apitoken/?q=watched"),
        browser.get(f"/admin/auth/user/{owner.pk}/change/"),
    ]
    assert [p.status_code for p in pages] == [200] * 4
    for page in pages:
        html = page.content.decode()
        assert made.key not in html and made.token.key_hash not in html
        assert made.key[len(made.token.prefix) :][:12] not in html
    assert "watched" in pages[0].content.decode() and made.token.prefix in pages[0].content.decode()
    assert browser.get("/admin/accounts/apitoken/add/").status_code == 403
    revoked = browser.post(
        "/admin/accounts/apitoken/",
        {"action": "revoke", "_selected_action": [made.token.pk]},
    )
    assert revoked.status_code == 302
    assert client_with(made.key).get("/api/vaults/").status_code == 401
    event = AuditEvent.objects.get(action="token.revoke", object_id=str(made.token.pk))
    assert event.actor == admin


@pytest.mark.django_db(transaction=True, databases=["default", "owner"])
def test_tokens_from_before_named_tokens_keep_working_hashed(owner):
    """The data migration: a rest_framework.authtoken key becomes a hashed API token that expires, and the table
    that held it in plain text is gone. Migrations run as the tables' owner: so does this one here."""
    from django.apps import apps as installed

    migration = importlib.import_module("apps.accounts.migrations.0003_tokens_from_authtoken")
    legacy_key = "0123456789abcdef0123456789abcdef01234567"
    as_owner = connections["owner"]
    with as_owner.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created timestamptz NOT NULL,"
            " user_id integer NOT NULL UNIQUE)"
        )
        cursor.execute(
            "INSERT INTO authtoken_token VALUES (%s, %s, %s)",
            [legacy_key, timezone.now() - timedelta(days=400), owner.pk],
        )
    with as_owner.schema_editor() as editor:
        migration.tokens_from_authtoken(installed, editor)

    assert "authtoken_token" not in connection.introspection.table_names()
    assert client_with(legacy_key).get("/api/vaults/").status_code == 200
    token = ApiToken.objects.get(user=owner, key_hash=key_hash(legacy_key))
    assert token.expires_at > timezone.now() + timedelta(days=89) and token.created_at < timezone.now() - timedelta(
        days=399
    )
    assert legacy_key not in database_text()


def test_a_token_cannot_be_limited_to_a_personal_vault(owner, vault):
    """A personal vault holds the Librarian's copies of every vault its owner reads: a token limited to it would
    read beyond it, so it is not offered and not accepted."""
    personal = Vault.objects.get(owner=owner, is_personal=True)
    made = api(owner).post("/api/tokens/", {"name": "mine", "vaults": [personal.pk]}, format="json")
    assert made.status_code == 404
    assert api(owner).post("/api/tokens/", {"name": "shared", "vaults": [vault.pk]}, format="json").status_code == 201
