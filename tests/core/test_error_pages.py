"""Refusals and failures answer with the site's own pages (its header, a way back home); the API keeps its JSON."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client, RequestFactory

from apps.core.apis import api_server_error
from tests.factories import api, make_note, make_user, make_vault, share


def _browser(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _is_a_page_of_the_site(html: str) -> None:
    assert '<header class="top">' in html
    assert '<a class="brand" href="/">DesirePath</a>' in html
    assert 'id="theme-choice"' in html


@pytest.mark.django_db
def test_a_missing_page_and_a_note_of_a_vault_one_may_not_read_show_the_same_page_of_the_site():
    owner, stranger = make_user(), make_user()
    secret = make_note(make_vault(owner, "Theirs"), "Secret.md", "# Secret\nzqx0markcafe\n", embed=False)
    browser = _browser(stranger)
    urls = ["/nope/", "/notes/999999/", f"/notes/{secret.pk}/", "/vaults/999999/", f"/vaults/{secret.vault_id}/"]
    pages = {url: browser.get(url) for url in urls}
    for url, response in pages.items():
        html = response.content.decode()
        assert response.status_code == 404, url
        _is_a_page_of_the_site(html)
        assert "<h1>Page not found</h1>" in html and 'href="/chat/"' in html, url
        assert "zqx0markcafe" not in html and "Theirs" not in html, url
    assert pages[urls[1]].content == pages[urls[2]].content
    assert pages[urls[3]].content == pages[urls[4]].content
    signed_out = Client().get("/nope/")
    assert signed_out.status_code == 404 and "<h1>Page not found</h1>" in signed_out.content.decode()


@pytest.mark.django_db
def test_a_reader_at_the_editor_and_a_non_staff_person_at_the_models_page_are_told_why():
    owner, reader = make_user(), make_user()
    vault = make_vault(owner, "Shared")
    note = make_note(vault, "Plan.md", "# Plan\n", embed=False)
    share(vault, "reader", user=reader)
    browser = _browser(reader)
    for url, reason in (
        (f"/notes/{note.pk}/edit/", "Your role on this vault does not allow &#x27;contribute&#x27;"),
        ("/models/", "The Models page is for staff"),
    ):
        response = browser.get(url)
        html = response.content.decode()
        assert response.status_code == 403, url
        _is_a_page_of_the_site(html)
        assert "<h1>Not allowed</h1>" in html and reason in html, url


def _header(html: str) -> str:
    return html[html.index('<header class="top">') : html.index("</header>")]


@pytest.mark.django_db
def test_a_404_and_a_403_show_the_signed_in_person_s_header_and_its_log_out_works():
    owner, reader, admin = make_user(), make_user("rhea"), make_user("ada", staff=True)
    vault = make_vault(owner, "Theirs")
    note = make_note(vault, "Plan.md", "# Plan\n", embed=False)
    share(vault, "reader", user=reader)
    for person, refused in ((reader, f"/notes/{note.pk}/edit/"), (admin, "/vaults/999999/")):
        browser = Client(enforce_csrf_checks=True)
        browser.force_login(person)
        home = _header(browser.get("/").content.decode())
        for url in (f"/vaults/{make_vault(owner).pk}/", "/nope/", refused):
            html = browser.get(url).content.decode()
            header = _header(html)
            assert f"Log out {person.username}</button>" in header, (person.username, url)
            for link in ("Chat", "Search", "Noticed", "API", "Tokens", "Password"):
                assert f">{link}</a>" in header, (person.username, url, link)
            assert (">Models</a>" in header and ">Admin</a>" in header) == person.is_staff, (person.username, url)
            assert _words(header) == _words(home), (person.username, url)  # what it says is the home page's
        # The 404's sign-out form sends the token of the CSRF cookie (static/js/csrf_from_cookie.js), and signs out.
        assert 'data-csrf-cookie="csrftoken"' in browser.get("/nope/").content.decode()
        token = browser.cookies["csrftoken"].value
        assert browser.post("/logout/", {"csrfmiddlewaretoken": token}).status_code == 302
        assert browser.get("/").status_code == 302  # to the login page


def _words(html: str) -> list[str]:
    return re.sub(r"<[^>]+>", " ", html).split()


@pytest.mark.django_db
def test_the_api_still_answers_missing_things_in_json():
    for url in ("/api/nope/", "/api/notes/999999/"):
        response = api(make_user()).get(url)
        assert response.status_code == 404 and response.json()["detail"], url


def test_the_server_error_page_is_the_site_s_own_without_the_database_or_the_requester():
    # No database access in this test (pytest-django fails any query), and no user on the request.
    page = api_server_error(RequestFactory().get("/notes/1/"))
    html = page.content.decode()
    assert page.status_code == 500
    _is_a_page_of_the_site(html)
    assert "<h1>Something went wrong</h1>" in html and 'href="/"' in html
    failed_call = api_server_error(RequestFactory().get("/api/notes/1/"))
    assert failed_call.status_code == 500 and failed_call["Content-Type"] == "application/json"


@pytest.mark.django_db
def test_a_page_that_fails_shows_the_server_error_page(monkeypatch):
    def broken(request: object) -> None:
        raise RuntimeError("the Models page broke")

    monkeypatch.setattr("apps.llm.views._staff", broken)
    browser = _browser(make_user(staff=True))
    browser.raise_request_exception = False
    response = browser.get("/models/")
    assert response.status_code == 500
    _is_a_page_of_the_site(response.content.decode())
    assert "<h1>Something went wrong</h1>" in response.content.decode()
