"""Accounts and teams: who creates users, who manages a team, and guessing passwords."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from apps.accounts.models import TeamMembership
from tests.factories import api, make_team, make_user, make_vault
from tests.openapi import assert_matches_schema

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


def test_a_manager_who_is_not_staff_adds_people_by_username_and_they_read_the_vault(db):
    manager, colleague, teammate = make_user(), make_user("Robin"), make_user("sam.lee")
    vault = make_vault(manager)
    team = api(manager).post("/api/teams/", {"name": "Night shift"}, format="json").json()
    added = api(manager).post(f"/api/teams/{team['id']}/members/", {"username": "SAM.LEE"}, format="json")
    assert added.status_code == 201
    assert_matches_schema(added)
    assert {m["username"]: m["role"] for m in added.json()["members"]}[teammate.username] == "member"

    shares = f"/api/vaults/{vault.pk}/shares/"
    for body in ({"username": "robin", "role": "reader"}, {"team": team["id"], "role": "contributor"}):
        shared = api(manager).post(shares, body, format="json")
        assert shared.status_code == 201, body
        assert_matches_schema(shared)
    for person, role in ((colleague, "reader"), (teammate, "contributor")):
        readable = api(person).get(f"/api/vaults/{vault.pk}/")
        assert readable.status_code == 200 and readable.json()["role"] == role


def test_an_unknown_username_is_refused_with_a_reason_and_changes_nothing(db):
    manager, member, stranger = make_user(), make_user(), make_user()
    team, vault = make_team(manager, member), make_vault(manager)
    members = f"/api/teams/{team.pk}/members/"
    shares = f"/api/vaults/{vault.pk}/shares/"
    before = set(TeamMembership.objects.values_list("team_id", "user_id", "role"))
    shares_before = api(manager).get(shares).json()

    for url, body in ((members, {"username": "nobody-here"}), (shares, {"username": "nobody-here", "role": "reader"})):
        refused = api(manager).post(url, body, format="json")
        assert refused.status_code == 400, url
        assert refused.json() == {"user": ["Nobody here has the username or e-mail address 'nobody-here'."]}
    # One of the two, never both or neither.
    for body in ({"username": stranger.username, "user": stranger.pk}, {"role": "member"}):
        assert api(manager).post(members, body, format="json").status_code == 400
    # As with an id, only the team's managers learn whether a name is an account: members are refused first.
    for who in ({"username": stranger.username}, {"username": "nobody-here"}, {"user": stranger.pk}, {"user": 10**9}):
        assert api(member).post(members, who, format="json").status_code == 403, who
        assert api(stranger).post(members, who, format="json").status_code == 404, who

    assert set(TeamMembership.objects.values_list("team_id", "user_id", "role")) == before
    assert api(manager).get(shares).json() == shares_before


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
