"""What an account may be called and what password it may have."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

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
