"""Password guessing: after a few failures an account is locked out from the address they came from, for a
cool-off, on every way in (the sign-in form, the admin's form, the token endpoint), while colleagues behind the same
address keep signing in; the lock lives in the database, so every web process shares it; a forged X-Forwarded-For
changes nothing unless it comes from a configured proxy."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.utils import timezone

from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

LOGIN_URLS = ["/login/", "/admin/login/", "/api/auth/token/"]


@pytest.fixture(autouse=True)
def _few_failures(settings):
    settings.AXES_FAILURE_LIMIT = 3


def sign_in(url: str, username: str, password: str, *, address: str = "203.0.113.7", forwarded: str = ""):
    headers = {"REMOTE_ADDR": address}
    if forwarded:
        headers["HTTP_X_FORWARDED_FOR"] = forwarded
    if url.startswith("/api/"):
        return Client().post(
            url, {"username": username, "password": password}, content_type="application/json", **headers
        )
    return Client().post(url, {"username": username, "password": password}, **headers)


def signed_in(url: str, response) -> bool:
    if url.startswith("/api/"):
        return response.status_code == 200 and "token" in response.json()
    return response.status_code == 302  # the form redirects where the person was going


@pytest.mark.parametrize("url", LOGIN_URLS)
def test_an_account_is_locked_from_the_address_its_failures_came_from(url):
    user = make_user(staff=True)  # staff, so the admin's form would let them in
    failures = [sign_in(url, user.username, "wrong-guess", address="198.51.100.1") for _ in range(3)]
    wrong = 400 if url.startswith("/api/") else 200  # the form shows itself again, with its error
    assert [r.status_code for r in failures] == [wrong, wrong, 429]  # the failure that reaches the limit locks
    locked = sign_in(url, user.username, PASSWORD, address="198.51.100.1")  # right password, same address
    assert locked.status_code == 429 and not signed_in(url, locked)
    assert "Too many failed sign-ins for this account from this address" in locked.content.decode()
    assert int(locked["Retry-After"]) > 0
    if url.startswith("/api/"):
        assert locked.json()["detail"].startswith("Too many failed sign-ins")
    # Someone guessing elsewhere does not lock the account's owner out.
    assert signed_in(url, sign_in(url, user.username, PASSWORD, address="192.0.2.99"))


@pytest.mark.parametrize("url", LOGIN_URLS)
def test_one_persons_failures_do_not_lock_out_colleagues_at_the_same_address(url, settings):
    settings.AXES_FAILURE_LIMIT = 10
    carol, bob = make_user("carol", staff=True), make_user("bob", staff=True)
    for _ in range(10):
        sign_in(url, carol.username, "wrong-guess", address="127.0.0.1")
    assert signed_in(url, sign_in(url, bob.username, PASSWORD, address="127.0.0.1"))
    locked = sign_in(url, carol.username, PASSWORD, address="127.0.0.1")
    assert locked.status_code == 429 and not signed_in(url, locked)


def test_failures_across_accounts_lock_each_account_only_by_its_own():
    users = [make_user() for _ in range(4)]
    for user in users:
        for _ in range(2):  # one short of the limit, for every account from one address
            sign_in("/api/auth/token/", user.username, "wrong-guess", address="203.0.113.50")
    assert all(
        signed_in("/api/auth/token/", sign_in("/api/auth/token/", u.username, PASSWORD, address="203.0.113.50"))
        for u in users
    )


def test_one_failure_counts_everywhere_the_account_signs_in():
    user = make_user(staff=True)
    for url in LOGIN_URLS:
        sign_in(url, user.username, "wrong-guess", address="198.51.100.1")
    for url in LOGIN_URLS:
        assert sign_in(url, user.username, PASSWORD, address="198.51.100.1").status_code == 429


def test_a_rotated_forwarded_for_from_an_untrusted_client_fools_nobody(settings):
    settings.TRUSTED_PROXIES = []
    user = make_user()
    statuses = [
        sign_in("/api/auth/token/", user.username, "wrong", forwarded=f"10.9.{i}.{i}").status_code for i in range(4)
    ]
    assert statuses == [400, 400, 429, 429]
    assert sign_in("/api/auth/token/", user.username, PASSWORD, forwarded="10.200.0.1").status_code == 429
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.7"}


def test_a_configured_proxy_is_believed_for_the_address_it_saw(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/24"]
    user = make_user()
    # Behind the proxy, each client is its own address; whatever a client prepends is ignored.
    for i in range(3):
        sign_in("/api/auth/token/", user.username, "wrong", address="10.0.0.2", forwarded=f"1.2.3.{i}, 198.51.100.8")
    assert (
        sign_in("/api/auth/token/", user.username, PASSWORD, address="10.0.0.2", forwarded="198.51.100.8").status_code
        == 429
    )
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.8"}
    other_client = sign_in("/api/auth/token/", user.username, PASSWORD, address="10.0.0.2", forwarded="198.51.100.9")
    assert other_client.status_code == 200
    # A client that is not the proxy cannot claim to be behind it.
    for i in range(3):
        sign_in("/api/auth/token/", "someone", "wrong", address="203.0.113.80", forwarded=f"198.51.100.{20 + i}")
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.8", "203.0.113.80"}


def test_the_lock_ends_after_the_cool_off(settings):
    settings.AXES_COOLOFF_TIME = timedelta(minutes=15)
    user = make_user()
    for _ in range(3):
        sign_in("/login/", user.username, "wrong-guess")
    assert sign_in("/login/", user.username, PASSWORD).status_code == 429
    assert "locked for 15 minutes" in sign_in("/login/", user.username, PASSWORD).content.decode()
    # Locked attempts do not extend the lock: sixteen minutes after the last counted failure, it is over.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert sign_in("/login/", user.username, PASSWORD).status_code == 302
