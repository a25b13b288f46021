"""A note named by one long unbroken word stays inside its column on every page that lists it, in headless Chromium."""

from __future__ import annotations

import time

import pytest

from apps.notes.models import ImportJob, Note
from tests.factories import PASSWORD, make_user, make_vault

NAME = "L" * 240

# Per element the selector finds: its box and its column's, and the name it shows in full on hover.
BOXES = """([selector, column]) => [...document.querySelectorAll(selector)].map((element) => {
    const box = element.getBoundingClientRect(), within = element.closest(column).getBoundingClientRect();
    return {left: box.left - within.left, right: within.right - box.right, width: box.width,
            hover: element.title || element.closest("[title]")?.title || element.textContent};
})"""


def _inside_its_column(page, selector: str, column: str) -> None:  # type: ignore[no-untyped-def]
    boxes = page.evaluate(BOXES, [selector, column])
    assert boxes, (page.url, selector)
    for box in boxes:
        assert box["width"] > 0 and box["left"] >= -1 and box["right"] >= -1, (page.url, selector, box)
        assert NAME in box["hover"], (page.url, selector, box)  # cut or wrapped, the whole name is there to read


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("width", "height"), [(1366, 900), (390, 844)])
def test_a_note_with_a_long_unbroken_name_stays_inside_its_column_everywhere_it_is_listed(
    live_server, page, worker, width, height
):
    maker = make_user(f"long-names-{width}")
    vault = make_vault(maker, "Bad input")
    page.set_viewport_size({"width": width, "height": height})
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", maker.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.goto(f"{live_server.url}/vaults/{vault.pk}/")
    upload = {"name": f"{NAME}.md", "mimeType": "text/markdown", "buffer": b"A note about the lathe.\n"}
    page.set_input_files("input[type=file]", files=[upload])
    page.click("button:has-text('Upload zip')")
    page.wait_for_url("**/jobs/*/")
    deadline = time.time() + 120
    while ImportJob.objects.get(vault=vault).status not in ("succeeded", "failed") and time.time() < deadline:
        time.sleep(0.5)
    assert ImportJob.objects.get(vault=vault).status == "succeeded"
    page.reload()

    # The job page names the file once, and its title and file table keep to the page's column.
    title = page.inner_text("h1")
    assert title.count(NAME) == 1 and title == f"Import of {NAME}.md into Bad input", title
    _inside_its_column(page, "h1", "section")
    _inside_its_column(page, "td:first-child", "section")

    # The vault page: the note in the notes list, the import in the sidebar's list.
    page.goto(f"{live_server.url}/vaults/{vault.pk}/")
    _inside_its_column(page, "ul.tree a", "section")
    _inside_its_column(page, "aside li a", "aside")

    # The note page's title and path line, and the search results.
    note = Note.objects.get(vault=vault)
    page.goto(f"{live_server.url}/notes/{note.pk}/")
    _inside_its_column(page, "h1", "article")
    _inside_its_column(page, "article > p.muted:first-child", "article")
    page.goto(f"{live_server.url}/?q=lathe")
    _inside_its_column(page, "li.hit a.title", "section")
    _inside_its_column(page, "li.hit > span.muted", "section")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
