"""Accounts and teams: who creates users, who manages a team, and guessing passwords."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.factories import api, make_team, make_user

pytestmark = pytest.mark.django_db


def test_only_staff_create_users_and_every_user_gets_a_personal_vault(db):
    staff, plain = make_user(staff=True), make_user()
    assert (
        api(plain).post("/api/users/", {"username": "x1", "password": "a-long-pass-9"}, format="json").status_code
        == 403
    )
    made = api(staff).post("/api/users/", {"username": "x2", "password": "a-long-pass-9"}, format="json")
    assert made.status_code == 201 and made.json()["username"] == "x2"
    newcomer = User.objects.get(username="x2")
    vaults = api(newcomer).get("/api/vaults/").json()
    assert [(v["is_personal"], v["role"]) for v in vaults] == [(True, "manager")]
    personal = vaults[0]["id"]
    other = make_user()
    assert (
        api(newcomer)
        .post(f"/api/vaults/{personal}/shares/", {"user": other.pk, "role": "reader"}, format="json")
        .status_code
        == 400
    )  # personal vaults stay private


def test_team_membership_rules(db):
    manager, member, outsider, newcomer = make_user(), make_user(), make_user(), make_user()
    team = make_team(manager, member)
    url = f"/api/teams/{team.pk}/members/"

    # Nobody adds themselves: outsiders do not even see the team, members may not, managers may not.
    assert api(outsider).post(url, {"user": outsider.pk}, format="json").status_code == 404
    assert api(member).post(url, {"user": member.pk, "role": "manager"}, format="json").status_code == 403
    assert api(member).post(url, {"user": newcomer.pk}, format="json").status_code == 403
    assert api(manager).post(url, {"user": manager.pk, "role": "member"}, format="json").status_code == 400

    assert api(manager).post(url, {"user": newcomer.pk}, format="json").status_code == 201
    assert api(newcomer).get(f"/api/teams/{team.pk}/").status_code == 200
    assert api(member).delete(f"{url}{newcomer.pk}/").status_code == 403
    assert api(manager).delete(f"{url}{newcomer.pk}/").status_code == 204
    assert api(newcomer).get(f"/api/teams/{team.pk}/").status_code == 404
    assert api(member).delete(f"{url}{member.pk}/").status_code == 204  # leaving is always allowed
    assert api(manager).delete(f"{url}{manager.pk}/").status_code == 400  # the last manager stays


def test_password_guessing_on_the_token_endpoint_is_throttled(db, settings):
    from django.core.cache import cache

    cache.clear()
    user = make_user()
    statuses = [
        api().post("/api/auth/token/", {"username": user.username, "password": "wrong"}, format="json").status_code
        for _ in range(25)
    ]
    assert statuses[0] == 400 and statuses[-1] == 429
    cache.clear()
