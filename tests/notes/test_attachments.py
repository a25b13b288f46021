"""Attachments of a vault: images, PDFs and other files imported beside the notes, stored once per content, served
only to the vault's readers with the type their bytes have, and found by the name a note embeds them with."""

from __future__ import annotations

import hashlib
import io
import random
import re
import struct
import zipfile
import zlib

import pytest
from django.test import Client

from apps.audit.models import AuditEvent
from apps.notes.models import Attachment, AttachmentBlob, FileOutcome, ImportStatus, Note
from apps.notes.selectors import attachment_for, attachment_url
from apps.notes.services.ingest import import_job_create, import_job_run
from tests.corpora import CORPORA
from tests.factories import api, import_folder, make_user, make_vault, share
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db


def png(width: int = 2, height: int = 1, *, seed: int = 0) -> bytes:
    """A real PNG (the browser would draw it): signature, IHDR, one IDAT of RGB rows, IEND."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    pixels = random.Random(seed).randbytes(width * 3)
    rows = b"".join(b"\x00" + pixels for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
)
HTML_AS_PNG = b"<!doctype html><html><body><script>fetch('/api/me/')</script></body></html>"
SVG_WITH_SCRIPT = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
EXE = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 64
CAP = 40_000  # ATTACHMENT_MAX_BYTES in these tests


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def _entries(photo: bytes) -> dict[str, bytes]:
    return {
        "Trip/Home.md": b"# Home\n\n![[photo.png]] and the map ![](docs/report.pdf)\n",
        "Trip/assets/photo.png": photo,
        "Trip/assets/old/photo.png": photo,  # the same bytes twice: stored once
        "Trip/docs/report.pdf": PDF,
        "Trip/assets/not-really.png": HTML_AS_PNG,
        "Trip/diagram.svg": SVG_WITH_SCRIPT,
        "Trip/tools/setup.exe": EXE,
        "Trip/page.html": b"<html></html>",
        "Trip/video/huge.png": b"\x89PNG\r\n\x1a\n" + random.Random(3).randbytes(CAP),  # incompressible
    }


def _import_zip(vault, entries: dict[str, bytes], source: str = "trip"):  # type: ignore[no-untyped-def]
    job = import_job_create(actor=vault.owner, vault=vault, archive=_zip(entries), source=source)
    return import_job_run(job_id=job.pk)


def outcomes(job) -> dict[str, tuple[str, str]]:  # type: ignore[no-untyped-def]
    return {f.path: (f.outcome, f.reason) for f in job.files.all()}


def browser(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def test_a_zip_s_files_are_stored_by_what_their_bytes_are_and_bad_ones_skipped_with_a_reason(vault, settings):
    settings.ATTACHMENT_MAX_BYTES = CAP
    photo = png()
    job = _import_zip(vault, _entries(photo))
    result = outcomes(job)

    assert job.status == ImportStatus.SUCCEEDED  # skipped files never fail the job
    stored = {a.path: a.media_type for a in Attachment.objects.filter(vault=vault)}
    assert stored == {
        "assets/photo.png": "image/png",
        "assets/old/photo.png": "image/png",
        "docs/report.pdf": "application/pdf",
        "assets/not-really.png": "text/plain; charset=utf-8",  # the name says image, the bytes say otherwise
        "diagram.svg": "image/svg+xml",
    }
    assert {path: outcome for path, (outcome, _) in result.items()} == {
        **dict.fromkeys(["Home.md", *stored], FileOutcome.CREATED),
        **dict.fromkeys(["tools/setup.exe", "page.html", "video/huge.png"], FileOutcome.SKIPPED),
    }
    assert "executable" in result["tools/setup.exe"][1]
    assert "HTML" in result["page.html"][1]
    assert result["video/huge.png"][1] == "file is larger than the 39 KiB limit"
    assert job.counts == {"created": 6, "skipped": 3, "chunks_embedded": job.counts["chunks_embedded"]}

    # Two paths, one content: the bytes are kept once, and exactly as they came.
    photo_rows = Attachment.objects.filter(vault=vault, content_hash=hashlib.sha256(photo).hexdigest())
    assert photo_rows.count() == 2 and len({row.blob_id for row in photo_rows}) == 1
    assert AttachmentBlob.objects.filter(vault=vault).count() == 4
    assert bytes(AttachmentBlob.objects.get(vault=vault, sha256=hashlib.sha256(PDF).hexdigest()).data) == PDF
    audited = AuditEvent.objects.filter(vault_id=vault.pk, action="attachment.import.created")
    assert sorted(e.changes["path"] for e in audited) == sorted(stored)


def test_readers_get_the_bytes_with_safe_headers_and_everyone_else_a_404(vault, settings):
    settings.ATTACHMENT_MAX_BYTES = CAP
    photo = png()
    _import_zip(vault, _entries(photo))
    reader, outsider = make_user("att-reader"), make_user("att-outsider")
    share(vault, "reader", user=reader)
    url = f"/vaults/{vault.pk}/files/assets/photo.png"

    shown = browser(reader).get(url)
    assert shown.status_code == 200 and shown.content == photo
    assert shown["Content-Type"] == "image/png"
    assert shown["X-Content-Type-Options"] == "nosniff"
    assert shown["Content-Disposition"] == 'inline; filename="photo.png"'
    assert shown["ETag"] == f'"{hashlib.sha256(photo).hexdigest()}"'
    assert "private" in shown["Cache-Control"]
    revalidated = browser(reader).get(url, headers={"If-None-Match": shown["ETag"]})
    assert revalidated.status_code == 304 and revalidated.content == b""
    pdf = browser(reader).get(f"/vaults/{vault.pk}/files/docs/report.pdf")
    assert pdf["Content-Type"] == "application/pdf" and pdf["Content-Disposition"].startswith("inline")
    assert pdf["X-Frame-Options"] == "SAMEORIGIN"  # a note's page may frame it, no other site

    # HTML behind an image's name, and SVG (which can hold script): downloaded, never run in our origin.
    for path in ("assets/not-really.png", "diagram.svg"):
        risky = browser(reader).get(f"/vaults/{vault.pk}/files/{path}")
        assert risky.status_code == 200, path
        assert risky["Content-Disposition"].startswith("attachment"), path
        assert risky["X-Content-Type-Options"] == "nosniff"
        assert "sandbox" in risky["Content-Security-Policy"]
        assert not risky["Content-Type"].startswith("text/html")

    # An outsider cannot tell a file that exists from one that does not.
    present = browser(outsider).get(url)
    absent = browser(outsider).get(f"/vaults/{vault.pk}/files/assets/nothing-here.png")
    assert present.status_code == absent.status_code == 404
    assert present.content == absent.content and photo not in present.content
    assert browser(outsider).get(url, headers={"If-None-Match": shown["ETag"]}).status_code == 404
    assert Client().get(url).status_code == 302  # signed out: to the login page, whatever the path
    assert api(reader).get(url).content == photo  # an API client with its token, following the listing's URL
    assert api(outsider).get(url).status_code == 404


def test_the_api_lists_a_vault_s_attachments_to_its_readers_only(vault, settings):
    settings.ATTACHMENT_MAX_BYTES = CAP
    _import_zip(vault, _entries(png()))
    reader, outsider = make_user("list-reader"), make_user("list-outsider")
    share(vault, "reader", user=reader)

    listed = api(reader).get(f"/api/vaults/{vault.pk}/attachments/")
    assert listed.status_code == 200
    assert_matches_schema(listed)
    rows = {row["path"]: row for row in listed.json()["results"]}
    assert sorted(rows) == sorted(Attachment.objects.filter(vault=vault).values_list("path", flat=True))
    assert rows["docs/report.pdf"]["media_type"] == "application/pdf"
    assert rows["docs/report.pdf"]["size"] == len(PDF)
    assert api(reader).get(rows["docs/report.pdf"]["url"]).content == PDF
    assert api(outsider).get(f"/api/vaults/{vault.pk}/attachments/").status_code == 404
    assert api(reader).get(f"/api/vaults/{vault.pk}/attachments/?tier=cold").json()["results"] == []


def test_reimport_is_unchanged_then_follows_the_source(vault, settings):
    settings.ATTACHMENT_MAX_BYTES = CAP
    old_photo = png()
    entries = _entries(old_photo)
    _import_zip(vault, entries)
    blobs = set(AttachmentBlob.objects.filter(vault=vault).values_list("pk", flat=True))

    again = outcomes(_import_zip(vault, entries))
    assert {again[path][0] for path in Attachment.objects.values_list("path", flat=True)} == {FileOutcome.UNCHANGED}
    assert set(AttachmentBlob.objects.filter(vault=vault).values_list("pk", flat=True)) == blobs

    new_photo = png(seed=1)
    entries["Trip/assets/photo.png"] = new_photo
    del entries["Trip/docs/report.pdf"]
    changed = outcomes(_import_zip(vault, entries))
    assert changed["assets/photo.png"][0] == FileOutcome.UPDATED
    assert changed["docs/report.pdf"] == (FileOutcome.MOVED_TO_COLD, "gone from the source")
    served = browser(vault.owner).get(f"/vaults/{vault.pk}/files/assets/photo.png")
    assert served.content == new_photo and served["ETag"] == f'"{hashlib.sha256(new_photo).hexdigest()}"'
    # The old photo's bytes stay while another path holds them; the gone PDF is kept, bytes and all.
    assert browser(vault.owner).get(f"/vaults/{vault.pk}/files/assets/old/photo.png").status_code == 200
    assert browser(vault.owner).get(f"/vaults/{vault.pk}/files/docs/report.pdf").content == PDF
    assert attachment_for(vault_id=vault.pk, name="report.pdf") is None  # but no note embeds it any more

    # Once no path holds the old photo, its bytes go; the new photo's are shared by both paths again.
    entries["Trip/assets/old/photo.png"] = new_photo
    _import_zip(vault, entries)
    hashes = set(AttachmentBlob.objects.filter(vault=vault).values_list("sha256", flat=True))
    assert hashlib.sha256(old_photo).hexdigest() not in hashes
    assert hashes == set(Attachment.objects.filter(vault=vault).values_list("content_hash", flat=True))


def test_attachments_count_toward_the_import_s_size_and_file_limits(vault, settings, tmp_path):
    settings.IMPORT_MAX_TOTAL_BYTES = 3000
    big = b"\x89PNG\r\n\x1a\n" + random.Random(5).randbytes(2500)
    job = _import_zip(vault, {"a.png": big, "b.png": big[:-1], "Later.md": b"# Later\n"}, source="sizes")
    result = outcomes(job)
    assert result["a.png"][0] == result["b.png"][0] == FileOutcome.CREATED
    assert result["Later.md"] == (FileOutcome.SKIPPED, "the import stopped at its 2 KiB limit")

    settings.IMPORT_MAX_TOTAL_BYTES = 10_000_000
    settings.IMPORT_MAX_FILES = 2
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "A.md").write_text("# A\n", encoding="utf-8")
    (folder / "B.png").write_bytes(png())
    (folder / "C.pdf").write_bytes(PDF)
    files = outcomes(import_folder(vault, folder, source="files"))
    assert files["A.md"][0] == files["B.png"][0] == FileOutcome.CREATED
    assert files["C.pdf"] == (FileOutcome.SKIPPED, "the import stopped at its limit of 2 files")


def test_an_embed_finds_its_file_by_obsidian_s_rule(vault, settings):
    settings.ATTACHMENT_MAX_BYTES = CAP
    _import_zip(vault, _entries(png()))

    def found(name: str, relative_to: str = "") -> str | None:
        attachment = attachment_for(vault_id=vault.pk, name=name, relative_to=relative_to)
        return attachment.path if attachment else None

    assert found("assets/old/photo.png") == "assets/old/photo.png"  # the exact path first
    assert found("photo.png") == "assets/photo.png"  # else the shortest path with that file name
    assert found("PHOTO.PNG") == "assets/photo.png"
    assert found("old/photo.png") == "assets/old/photo.png"
    assert found("report.pdf#page=2") == "docs/report.pdf"
    assert found("photo.png|300") == "assets/photo.png"
    assert found("../docs/report.pdf", relative_to="notes/Home.md") == "docs/report.pdf"
    assert found("not%2Dreally.png") == "assets/not-really.png"
    assert found("missing.png") is None and found("") is None
    theirs = make_vault(make_user("resolver-other"), "Theirs")
    _import_zip(theirs, {"secret.png": png(seed=9)})
    assert found("secret.png") is None  # another vault's files are never found from this one
    assert attachment_url(Attachment.objects.get(vault=theirs)) == f"/vaults/{theirs.pk}/files/secret.png"


def test_a_real_vault_s_files_import_and_its_embeds_resolve(vault):
    corpus = CORPORA / "kepano-obsidian"
    assert corpus.is_dir(), f"the real vaults are not at {CORPORA} (set DESIREPATH_CORPORA)"
    others = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*") if p.is_file() and p.suffix != ".md")
    job = import_folder(vault, corpus, source="kepano")
    result = outcomes(job)

    bases = [p for p in others if p.endswith(".base")]
    assert len(bases) == 30
    assert {result[p][0] for p in bases} == {FileOutcome.CREATED}
    assert result["LICENSE"] == (
        FileOutcome.SKIPPED,
        "not a Markdown note (.md) nor a known attachment type (no extension)",
    )
    assert Note.objects.filter(vault=vault).count() == len(list(corpus.rglob("*.md")))
    # Obsidian's own embeds of its bases (`![[Daily.base]]`, `![[Meetings.base#Person]]`) find the files.
    embeds = {
        name for note in Note.objects.filter(vault=vault) for name in re.findall(r"!\[\[([^\]|#]+\.base)", note.body)
    }
    assert len(embeds) >= 10
    for name in embeds:
        attachment = attachment_for(vault_id=vault.pk, name=name)
        assert attachment is not None and attachment.path == f"Templates/Bases/{name}", name
    daily = browser(vault.owner).get(attachment_url(attachment_for(vault_id=vault.pk, name="Daily.base")))
    assert daily.content == (corpus / "Templates/Bases/Daily.base").read_bytes()
    assert daily["Content-Type"] == "text/plain; charset=utf-8" and daily["Content-Disposition"].startswith(
        "attachment"
    )

    again = outcomes(import_folder(vault, corpus, source="kepano"))
    assert {again[p][0] for p in bases} == {FileOutcome.UNCHANGED}
