"""A signed-in person changes their own password on the web: the old one is asked for, the new one meets the
configured rules, every API token of theirs stops working, and they stay signed in."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

from apps.accounts.tokens import token_create
from tests.factories import PASSWORD, make_user

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "lantern-orchard-pebble"


def signs_in(username: str, password: str) -> bool:
    return Client().post("/login/", {"username": username, "password": password}).status_code == 302


def signed_in_browser(username: str) -> Client:
    browser = Client()
    assert browser.post("/login/", {"username": username, "password": PASSWORD}).status_code == 302
    return browser


def token_works(key: str) -> bool:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/vaults/").status_code == 200


def change(browser: Client, old: str, new: str, again: str | None = None):
    return browser.post(
        "/password/", {"old_password": old, "new_password1": new, "new_password2": new if again is None else again}
    )


def test_the_page_is_linked_from_the_header_and_lists_the_rules():
    browser = signed_in_browser(make_user().username)
    page = browser.get("/tokens/").content.decode()
    assert 'href="/password/"' in page
    form = browser.get("/password/").content.decode()
    assert "Change your password" in form and 'name="old_password"' in form
    assert "at least 10 characters" in form


def test_a_signed_out_visitor_is_sent_to_sign_in():
    answer = Client().get("/password/")
    assert answer.status_code == 302 and answer["Location"].startswith("/login/")


def test_a_wrong_current_password_changes_nothing():
    user = make_user()
    key = token_create(user=user, name="laptop").key
    browser = signed_in_browser(user.username)
    answer = change(browser, "not-my-password", NEW_PASSWORD)
    assert answer.status_code == 200
    assert "Your old password was entered incorrectly" in answer.content.decode()
    assert signs_in(user.username, PASSWORD) and not signs_in(user.username, NEW_PASSWORD)
    assert token_works(key)


@pytest.mark.parametrize(
    ("new", "again", "reason"),
    [
        ("short-9", None, "too short"),
        ("password1234", None, "too common"),
        (NEW_PASSWORD, "lantern-orchard-pebbles", "didn’t match"),
    ],
)
def test_a_new_password_that_breaks_the_rules_is_refused_with_the_reason(new, again, reason):
    user = make_user()
    browser = signed_in_browser(user.username)
    answer = change(browser, PASSWORD, new, again)
    assert answer.status_code == 200 and reason in answer.content.decode()
    assert signs_in(user.username, PASSWORD)


def test_the_right_current_password_changes_it_revokes_tokens_and_keeps_the_browser_signed_in():
    user = make_user()
    keys = [token_create(user=user, name=name).key for name in ("laptop", "agent")]
    browser = signed_in_browser(user.username)
    elsewhere = signed_in_browser(user.username)

    answer = change(browser, PASSWORD, NEW_PASSWORD)
    assert answer.status_code == 302 and answer["Location"] == "/password/changed/"
    assert "Password changed" in browser.get("/password/changed/").content.decode()

    assert browser.get("/tokens/").status_code == 200  # still signed in here
    assert elsewhere.get("/tokens/").status_code == 302  # the other session ended
    assert signs_in(user.username, NEW_PASSWORD) and not signs_in(user.username, PASSWORD)
    assert not any(token_works(key) for key in keys)


def test_an_account_without_a_password_is_told_so():
    user = User.objects.create_user(username="signs-in-elsewhere", password=None)
    browser = Client()
    browser.force_login(user)
    page = browser.get("/password/").content.decode()
    assert "has no password here to change" in page and 'name="old_password"' not in page
    assert 'href="/password/"' not in browser.get("/tokens/").content.decode()


def test_wrong_current_passwords_lock_the_page_and_the_accounts_sign_in_from_that_address(settings):
    settings.AXES_FAILURE_LIMIT = 3
    user = make_user()
    browser = signed_in_browser(user.username)
    guesses = [change(browser, f"guess-number-{n}", NEW_PASSWORD) for n in range(3)]
    assert [answer.status_code for answer in guesses] == [200, 200, 429]  # the failure that reaches the limit locks
    assert "Your old password was entered incorrectly" in guesses[0].content.decode()
    locked_page = guesses[2].content.decode()
    assert "Too many wrong passwords for this account from this address" in locked_page
    assert 'name="old_password"' in locked_page and int(guesses[2]["Retry-After"]) > 0

    # Locked, even the right password is not taken here, nor at sign-in from this address.
    refused = change(browser, PASSWORD, NEW_PASSWORD)
    assert refused.status_code == 429 and "Too many wrong passwords" in refused.content.decode()
    assert Client().post("/login/", {"username": user.username, "password": PASSWORD}).status_code == 429
    elsewhere = Client(REMOTE_ADDR="192.0.2.99")
    assert elsewhere.post("/login/", {"username": user.username, "password": PASSWORD}).status_code == 302
    assert not signs_in(user.username, NEW_PASSWORD)

    # What was typed is not kept beside the failures.
    kept = " ".join(AccessAttempt.objects.values_list("post_data", flat=True))
    assert "guess-number" not in kept and NEW_PASSWORD not in kept


def test_the_right_current_password_before_the_limit_still_changes_it(settings):
    settings.AXES_FAILURE_LIMIT = 3
    user = make_user()
    browser = signed_in_browser(user.username)
    assert [change(browser, f"guess-{n}", NEW_PASSWORD).status_code for n in range(2)] == [200, 200]
    answer = change(browser, PASSWORD, NEW_PASSWORD)
    assert answer.status_code == 302 and answer["Location"] == "/password/changed/"
    assert signs_in(user.username, NEW_PASSWORD)
