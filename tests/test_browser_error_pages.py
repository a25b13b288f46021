"""The 404 and 403 pages in headless Chromium: the signed-in person's header, and its Log out works there too."""

from __future__ import annotations

import pytest

from tests.factories import PASSWORD, make_note, make_user, make_vault, share


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_404_and_403_pages_show_the_signed_in_header_and_log_out_from_the_404_works(live_server, page):
    owner, reader = make_user(), make_user("reader-at-the-door")
    vault = make_vault(owner, "Theirs")
    note = make_note(vault, "Plan.md", "# Plan\n", embed=False)
    share(vault, "reader", user=reader)
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", reader.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.locator("header.top nav").wait_for()
    home = page.inner_text("header.top nav")
    assert "Log out reader-at-the-door" in home

    page.goto(f"{live_server.url}/notes/{note.pk}/edit/")
    assert page.inner_text("h1") == "Not allowed" and page.inner_text("header.top nav") == home
    page.goto(f"{live_server.url}/vaults/{make_vault(owner).pk}/")
    assert page.inner_text("h1") == "Page not found" and page.inner_text("header.top nav") == home

    page.click("button:has-text('Log out reader-at-the-door')")
    page.wait_for_url("**/login/**")
    page.goto(f"{live_server.url}/")
    assert "/login/" in page.url  # signed out
