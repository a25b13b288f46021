"""What an account may be called and what password it may have."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from tests.factories import api, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db):
    return make_user(staff=True)


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("password", "too short"),
        ("short-9", "too short"),
        ("1234567890123", "entirely numeric"),
        ("password1234", "too common"),
        ("newcomer-2026", "too similar to the username"),
    ],
)
def test_weak_passwords_are_refused_with_the_reason(staff, password, reason):
    made = api(staff).post("/api/users/", {"username": "newcomer-2026", "password": password}, format="json")
    assert made.status_code == 400
    assert any(reason in message for message in made.json()["password"]), made.json()
    assert not User.objects.filter(username="newcomer-2026").exists()


def test_a_strong_password_is_accepted(staff):
    made = api(staff).post("/api/users/", {"username": "newcomer", "password": "heron-quarry-lamp"}, format="json")
    assert made.status_code == 201


@pytest.mark.parametrize(
    "username", ["<script>alert(1)</script>", "a b", "semi;colon", "quote'", "plus+sign", "x" * 65, "tab\tname"]
)
def test_usernames_outside_the_rules_are_refused(staff, username):
    made = api(staff).post("/api/users/", {"username": username, "password": "heron-quarry-lamp"}, format="json")
    assert made.status_code == 400 and "username" in made.json()
    assert not User.objects.filter(username=username.strip()).exists()


@pytest.mark.parametrize("username", ["ada.lovelace", "grace_hopper", "k-2", "ops@example.org", "Zoë", "x" * 64])
def test_usernames_of_letters_digits_and_a_few_marks_are_accepted(staff, username):
    made = api(staff).post("/api/users/", {"username": username, "password": "heron-quarry-lamp"}, format="json")
    assert made.status_code == 201, made.json()
    assert made.json()["username"] == username


def _admin(superuser: User) -> Client:
    client = Client()
    client.force_login(superuser)
    return client


@pytest.mark.parametrize(
    ("username", "reason"),
    [
        ("bob+test", "A username has only letters, digits and . _ - or @."),
        ("L" * 100, "A username has at most 64 characters."),
    ],
)
def test_the_admin_s_add_and_change_forms_keep_the_username_rule(username, reason):
    admin_user = User.objects.create_superuser("root-admin", password="heron-quarry-lamp")
    admin = _admin(admin_user)
    add_page = admin.get("/admin/auth/user/add/").content.decode()
    assert "1 to 64 letters, digits and . _ - @." in add_page
    form = {"username": username, "usable_password": "true", "password1": "heron-quarry-lamp"}
    refused = admin.post("/admin/auth/user/add/", {**form, "password2": "heron-quarry-lamp"})
    assert refused.status_code == 200 and reason in refused.content.decode()
    assert not User.objects.filter(username=username).exists()

    existing = make_user("bob")
    change_form = {"username": username, "is_active": "on", "date_joined_0": "2026-01-01", "date_joined_1": "00:00"}
    renamed = admin.post(f"/admin/auth/user/{existing.pk}/change/", change_form)
    assert renamed.status_code == 200 and reason in renamed.content.decode()
    existing.refresh_from_db()
    assert existing.username == "bob"


def test_the_admin_still_makes_an_account_whose_name_keeps_the_rule():
    admin = _admin(User.objects.create_superuser("root-admin", password="heron-quarry-lamp"))
    password = "heron-quarry-lamp"
    form = {"username": "bob.test@example.org", "usable_password": "true", "password1": password, "password2": password}
    made = admin.post("/admin/auth/user/add/", form)
    assert made.status_code == 302 and User.objects.filter(username="bob.test@example.org").exists()


def test_createsuperuser_keeps_the_username_rule(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "heron-quarry-lamp")
    with pytest.raises(CommandError, match="A username has only letters"):
        call_command("createsuperuser", "--noinput", "--username", "bob+test", "--email", "bob@example.org")
    assert not User.objects.filter(username="bob+test").exists()
