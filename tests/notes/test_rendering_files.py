"""A note page shows the files it embeds: images drawn, PDFs in the browser's viewer, bases and other files as
links to their bytes, a missing file marked, and an image on another site never loaded. Files are found in the
vault of the note that names them, so a reader never gets a file address of a vault they may not read."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.test import Client

from apps.notes.models import Note
from apps.notes.services.ingest import import_job_create, import_job_run
from tests.corpora import CORPORA, VAULTS
from tests.factories import import_folder, make_note, make_user, make_vault, share
from tests.notes.test_attachments import PDF, _zip, png
from tests.notes.test_rendering_real_vaults import html_of

pytestmark = pytest.mark.django_db

HOME = """# Home

![[photo.png|300]]

![[photo.png|Our kitchen|120x80]]

![[report.pdf#page=2]]

![[Daily.base]] and ![[diagram.svg]] and ![[missing.png]]

![The kitchen, from the note's folder](assets/photo.png)

![A tracker](https://tracker.example.com/pixel.png)

Read [the report](../docs/report.pdf) or [[report.pdf|the report, linked by name]].
"""


class Elements(HTMLParser):
    """The elements of a page, as a browser's parser sees them: (tag, attributes, text before the next tag)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str], str]] = []
        self.in_element = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {name: value or "" for name, value in attrs}, ""))
        self.in_element = True

    def handle_endtag(self, tag: str) -> None:
        self.in_element = False

    def handle_data(self, data: str) -> None:
        if self.found and self.in_element:
            tag, attrs, text = self.found[-1]
            self.found[-1] = (tag, attrs, text + data)

    def all(self, tag: str, **wanted: str) -> list[tuple[dict[str, str], str]]:
        return [
            (attrs, text.strip())
            for found, attrs, text in self.found
            if found == tag and all(wanted[name] in attrs.get(name, "").split() for name in wanted)
        ]


def browser(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _import(vault, entries: dict[str, bytes]) -> None:  # type: ignore[no-untyped-def]
    job = import_job_create(actor=vault.owner, vault=vault, archive=_zip(entries), source="trip")
    import_job_run(job_id=job.pk)


def test_a_note_page_shows_its_images_pdf_and_other_files_and_marks_a_missing_one(vault):
    photo, nearer = png(3, 2, seed=1), png(4, 4, seed=2)
    daily = b'filters:\n  and:\n    - file.inFolder("Daily")\nviews:\n  - type: table\n'
    _import(
        vault,
        {
            "Trip/notes/Home.md": HOME.encode(),
            "Trip/photos/photo.png": photo,  # the shortest path named photo.png: what ![[photo.png]] means
            "Trip/notes/assets/photo.png": nearer,  # beside the note: what ![](assets/photo.png) means
            "Trip/docs/report.pdf": PDF,
            "Trip/Templates/Bases/Daily.base": daily,
            "Trip/diagram.svg": b'<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>',
        },
    )
    home = Note.objects.get(vault=vault, path="notes/Home.md")
    reader = browser(vault.owner)
    page = reader.get(f"/notes/{home.pk}/")
    assert page.status_code == 200
    elements = Elements(page.content.decode())
    files = f"/vaults/{vault.pk}/files"

    images = [attrs for attrs, _ in elements.all("img")]
    assert images == [
        {
            "class": "embed-image",
            "src": f"{files}/photos/photo.png",
            "alt": "photo.png",
            "loading": "lazy",
            "width": "300",
        },
        {
            "class": "embed-image",
            "src": f"{files}/photos/photo.png",
            "alt": "Our kitchen",
            "loading": "lazy",
            "width": "120",
            "height": "80",
        },
        {
            "class": "embed-image",
            "src": f"{files}/notes/assets/photo.png",
            "alt": "The kitchen, from the note's folder",
            "loading": "lazy",
        },
    ]
    assert reader.get(images[0]["src"]).content == photo and reader.get(images[2]["src"]).content == nearer

    [(pdf, _)] = elements.all("object")
    assert pdf["data"] == f"{files}/docs/report.pdf#page=2" and pdf["type"] == "application/pdf"
    [(download, text)] = elements.all("a", **{"class": "embed-download"})
    assert download["href"] == f"{files}/docs/report.pdf" and text == "Download report.pdf"
    assert reader.get(download["href"]).content == PDF

    links = {text: attrs["href"] for attrs, text in elements.all("a", **{"class": "internal-file"})}
    assert links["Daily.base"] == f"{files}/Templates/Bases/Daily.base"
    assert links["diagram.svg"] == f"{files}/diagram.svg"  # SVG can hold script: a link, never drawn in the page
    assert links["the report"] == links["the report, linked by name"] == f"{files}/docs/report.pdf"
    assert reader.get(links["Daily.base"]).content == daily

    [(missing, text)] = elements.all("span", **{"class": "embed-unresolved"})
    assert text == "missing.png" and "no file" in missing["title"]
    # The side panel lists the missing file alone, as a file (no note to write): a link to a file that exists
    # resolves.
    assert [text for _, text in elements.all("li", **{"class": "unresolved"})] == ["missing.png"]
    assert "Missing files" in page.content.decode() and "write it" not in page.content.decode()

    # The tracker's address is shown as a link to follow, never fetched by the page.
    [(tracker, text)] = elements.all("a", **{"class": "external-image"})
    assert tracker["href"] == "https://tracker.example.com/pixel.png"
    assert text == "A tracker (https://tracker.example.com/pixel.png)"
    assert "tracker.example.com" not in "".join(attrs.get("src", "") for _, attrs, _ in elements.found)


def test_kepano_s_embedded_bases_are_links_to_the_base_files_on_the_real_note_pages(vault):
    corpus = CORPORA / "kepano-obsidian"
    import_folder(vault, corpus, source="kepano")
    movies = Note.objects.get(vault=vault, path="Categories/Movies.md")
    elements = Elements(browser(vault.owner).get(f"/notes/{movies.pk}/").content.decode())
    base = f"/vaults/{vault.pk}/files/Templates/Bases/Movies.base"
    assert [attrs["href"] for attrs, _ in elements.all("a", **{"class": "internal-file"})] == [base, base]
    assert browser(vault.owner).get(base).content == (corpus / "Templates/Bases/Movies.base").read_bytes()

    # Every note of the vault that embeds a base links to that base file, and nothing is left unresolved.
    embedding = [note for note in Note.objects.filter(vault=vault) if re.search(r"!\[\[[^\]]+\.base", note.body)]
    assert len(embedding) >= 20
    for note in embedding:
        html = browser(vault.owner).get(f"/notes/{note.pk}/").content.decode()
        names = set(re.findall(r"!\[\[([^\]|#]+\.base)", note.body))
        for name in names:
            assert f'href="/vaults/{vault.pk}/files/Templates/Bases/{name.replace(" ", "%20")}"' in html, note.path
        assert "embed-unresolved" not in html, note.path


def test_a_reader_never_gets_a_file_address_of_a_vault_they_may_not_read():
    reader, stranger = make_user(), make_user()
    mine, theirs = make_vault(reader, "Mine"), make_vault(stranger, "Theirs")
    _import(theirs, {"Plans/Floor plan.md": b"# Floor plan\n\n![[blueprint.png]]\n", "Plans/blueprint.png": png()})
    plan = Note.objects.get(vault=theirs, path="Floor plan.md")
    page = make_note(mine, "Page.md", "Before.\n\n![[Floor plan]]\n\n![[blueprint.png]]\n", embed=False)
    # Links resolve within a vault; point this one across anyway, so only the permission check stands between.
    page.outgoing_links.filter(kind="embed", target_text="Floor plan").update(target=plan)

    html = browser(reader).get(f"/notes/{page.pk}/").content.decode()
    assert "Embedded note not available" in html
    assert f"/vaults/{theirs.pk}/" not in html and "<img" not in html
    # The page's own ![[blueprint.png]] looks in its own vault only: there is none there.
    assert '<span class="embed-file embed-unresolved" title="no file with this name in the vault">blueprint.png' in html

    share(theirs, "reader", user=reader)
    elements = Elements(browser(reader).get(f"/notes/{page.pk}/").content.decode())
    [(image, _)] = elements.all("img")  # the embedded note's file, from the embedded note's vault
    assert image["src"] == f"/vaults/{theirs.pk}/files/blueprint.png"
    assert browser(reader).get(image["src"]).status_code == 200


@pytest.mark.parametrize("corpus", VAULTS)
def test_no_note_of_the_real_vaults_loads_an_image_from_another_site(corpus):
    external = 0
    for path in sorted((CORPORA / corpus).rglob("*.md")):
        elements = Elements(html_of(path.read_text(encoding="utf-8")))
        assert elements.all("img") == [], path  # no vault here: nothing resolves, and nothing external loads
        for attrs, text in elements.all("a", **{"class": "external-image"}):
            assert attrs["href"] in text, path  # the reader sees where the image is before following it
            external += 1
    # logseq-docs writes 22 such images (3 as hiccup), 5 of them in code; the other two vaults write none.
    assert external == {"logseq-docs": 17, "kepano-obsidian": 0, "foam-docs": 0}[corpus]


def test_how_a_file_is_shown_follows_its_bytes_not_its_name(vault):
    mp3 = b"ID3\x03\x00\x00\x00\x00\x00\x00" + bytes(range(256)) * 4
    mp4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + bytes(range(256)) * 4
    _import(
        vault,
        {
            "Trip/Log.md": b"![[song.mp3]]\n\n![[clip.mp4|320]]\n\n![[not-really.png]]\n",
            "Trip/song.mp3": mp3,
            "Trip/clip.mp4": mp4,
            "Trip/not-really.png": b"<!doctype html><script>fetch('/api/me/')</script>",
        },
    )
    log = Note.objects.get(vault=vault, path="Log.md")
    reader = browser(vault.owner)
    elements = Elements(reader.get(f"/notes/{log.pk}/").content.decode())
    files = f"/vaults/{vault.pk}/files"
    [(audio, _)] = elements.all("audio")
    [(video, _)] = elements.all("video")
    assert audio["src"] == f"{files}/song.mp3" and "controls" in audio
    assert video["src"] == f"{files}/clip.mp4" and "controls" in video and video["width"] == "320"
    played = reader.get(video["src"])
    assert played["Content-Type"] == "video/mp4" and played["Content-Disposition"].startswith("inline")
    assert elements.all("img") == []  # HTML behind an image's name is a link to download, never drawn
    links = {text: attrs["href"] for attrs, text in elements.all("a", **{"class": "internal-file"})}
    assert links["not-really.png"] == f"{files}/not-really.png"
