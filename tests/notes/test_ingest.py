"""Importing an Obsidian vault: links, idempotent re-import, cold tier for vanished notes, bad files skipped."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import pytest
from django.test import Client

from apps.llm.embeddings import current_model
from apps.notes.models import Chunk, ChunkVector, FileOutcome, ImportStatus, Note, NoteLink
from apps.notes.services.ingest import import_job_create, import_job_run
from tests.corpora import CORPORA
from tests.factories import SAMPLE_VAULT, api, import_folder, import_sample, make_note, unembedded

pytestmark = pytest.mark.django_db


def outcomes(job) -> dict[str, tuple[str, str]]:
    return {f.path: (f.outcome, f.reason) for f in job.files.all()}


def test_sample_vault_imports_with_links_tags_and_embeddings(vault):
    job = import_sample(vault)

    md_files = list(SAMPLE_VAULT.rglob("*.md"))
    assert job.status == ImportStatus.SUCCEEDED
    assert 40 <= len(md_files) <= 80
    assert job.counts["created"] == len(md_files)
    assert not unembedded(vault=vault).exists()
    assert Chunk.objects.filter(vault=vault).count() > len(md_files)  # long notes split

    focaccia = Note.objects.get(vault=vault, path="kitchen/focaccia.md")
    assert focaccia.title == "Focaccia al Rosmarino"
    assert focaccia.tags
    # Links by alias ([[PTW]]) and by heading ([[Note#Heading]]) resolve; planted unresolved ones stay visible.
    ptw = NoteLink.objects.get(vault=vault, target_text="PTW")
    assert ptw.target.path == "ops/Permit to Work.md"
    heading_link = NoteLink.objects.filter(vault=vault).exclude(heading="").first()
    assert heading_link is not None and heading_link.target is not None
    unresolved = set(NoteLink.objects.filter(vault=vault, target=None).values_list("target_text", flat=True))
    assert "Someday Sourdough Starter" in unresolved
    assert len(unresolved) == 4


def test_reimport_is_idempotent_and_embeds_only_changed_chunks(vault, tmp_path):
    folder = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, folder)
    import_folder(vault, folder, source="mine")
    chunk_ids = set(Chunk.objects.filter(vault=vault).values_list("id", flat=True))

    again = import_folder(vault, folder, source="mine")
    assert again.counts.get("unchanged") == len(list(folder.rglob("*.md")))
    assert again.counts["chunks_embedded"] == 0
    assert set(Chunk.objects.filter(vault=vault).values_list("id", flat=True)) == chunk_ids

    long_note = folder / "ops" / "Redis Outage Postmortem.md"
    long_note.write_text(long_note.read_text(encoding="utf-8") + "\n\n## Addendum\n\nWe added a canary alert.\n")
    path = "ops/Redis Outage Postmortem.md"
    before = _vectors_by_hash(vault, path)
    changed = import_folder(vault, folder, source="mine")
    after = _vectors_by_hash(vault, path)
    new_texts = set(after) - set(before)
    assert changed.counts["updated"] == 1
    # Exactly the chunk texts that are new were embedded; every unchanged one kept its vector.
    # The addendum is a section of its own: one new chunk, every other chunk of the note unchanged.
    assert len(new_texts) == 1 and len(after) == len(before) + 1
    assert "canary alert" in Chunk.objects.get(vault=vault, note__path=path, content_hash=new_texts.pop()).text
    assert changed.counts["chunks_embedded"] == 1
    assert all(after[h] == before[h] for h in set(after) & set(before))


def test_notes_gone_from_source_move_to_cold_and_api_notes_are_untouched(vault, tmp_path):
    folder = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, folder)
    import_folder(vault, folder, source="mine")
    api_note = make_note(vault, "scratch/Mine.md", "# Mine\nwritten in the app", embed=False)
    (folder / "kitchen" / "focaccia.md").unlink()

    job = import_folder(vault, folder, source="mine")

    gone = Note.objects.get(vault=vault, path="kitchen/focaccia.md")
    assert gone.tier == "cold" and gone.body  # nothing destroyed
    assert outcomes(job)["kitchen/focaccia.md"][0] == FileOutcome.MOVED_TO_COLD
    api_note.refresh_from_db()
    assert api_note.tier == "hot"


def test_bad_files_are_skipped_with_reasons_and_the_rest_imports(vault, tmp_path, settings):
    settings.NOTE_MAX_BYTES = 50_000
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "Good.md").write_text("---\ntitle: Good\n---\nFine note about [[Other]].\n", encoding="utf-8")
    (folder / "Latin1.md").write_bytes("Caf\xe9 au lait".encode("latin-1"))
    (folder / "Binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR")
    (folder / "Huge.md").write_text("x" * 60_000, encoding="utf-8")
    (folder / "Broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (folder / "Unclosed.md").write_text("---\ntitle: never closed\nbody\n", encoding="utf-8")
    (folder / "photo.png").write_bytes(b"\x89PNG")
    (folder / "data.xyz").write_bytes(b"something")

    job = import_folder(vault, folder, source="bad")
    result = outcomes(job)

    assert job.status == ImportStatus.SUCCEEDED
    assert result["Good.md"][0] == FileOutcome.CREATED
    assert "UTF-8" in result["Latin1.md"][1]
    assert "binary" in result["Binary.md"][1]
    assert "larger than" in result["Huge.md"][1]
    # Broken properties cost the note its properties, not its body (Obsidian still shows it): a warning says so.
    assert result["Broken.md"] == (
        FileOutcome.CREATED,
        "broken YAML frontmatter at line 2: expected ',' or ']', but got '<stream end>'; the note was imported "
        "without it",
    )
    assert "never closed" in result["Unclosed.md"][1]
    assert "Markdown" in result["data.xyz"][1]
    assert result["photo.png"][0] == FileOutcome.CREATED  # an attachment, not a note
    assert sorted(Note.objects.filter(vault=vault).values_list("path", flat=True)) == ["Broken.md", "Good.md"]
    broken = Note.objects.get(vault=vault, path="Broken.md")
    assert broken.frontmatter == {} and broken.chunks.filter(text__contains="body").exists()
    browser = Client()
    browser.force_login(vault.owner)
    page = browser.get(f"/notes/{broken.pk}/").content.decode()
    assert "<p>body</p>" in page and "unclosed" not in page


def test_a_bad_reimport_loses_nothing(vault, tmp_path):
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "Keep.md").write_text("# Keep\nimportant words\n", encoding="utf-8")
    import_folder(vault, folder, source="src")
    (folder / "Keep.md").write_bytes(b"\xff\xfe broken now")

    job = import_folder(vault, folder, source="src")

    note = Note.objects.get(vault=vault, path="Keep.md")
    assert note.tier == "hot" and "important words" in note.body
    assert outcomes(job)["Keep.md"][0] == FileOutcome.SKIPPED


def _zip(entries: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def test_zip_import_strips_the_top_folder_and_refuses_traversal_and_bombs(vault, settings):
    settings.NOTE_MAX_BYTES = 1_000_000
    archive = _zip(
        {
            "MyVault/ideas/One.md": b"# One\nlinks to [[Two]]\n",
            "MyVault/Two.md": b"# Two\n",
            "MyVault/../../etc/evil.md": b"# Evil\n",
            "MyVault/bomb.md": b"a" * 50_000_000,
            "MyVault/.obsidian/workspace.json": b"{}",
        }
    )
    job = import_job_create(actor=vault.owner, vault=vault, archive=archive, source="upload")
    job = import_job_run(job_id=job.pk)
    result = outcomes(job)

    assert set(Note.objects.filter(vault=vault).values_list("path", flat=True)) == {"ideas/One.md", "Two.md"}
    traversal = [reason for path, (_, reason) in result.items() if "evil" in path]
    assert traversal and "unsafe path" in traversal[0]
    assert "larger than" in result["bomb.md"][1] or "zip bomb" in result["bomb.md"][1]
    assert NoteLink.objects.get(vault=vault, target_text="Two").target is not None
    job.refresh_from_db()
    assert job.archive is None  # the upload is not kept once imported


def test_zip_entry_that_lies_about_its_size_is_capped(vault, settings):
    settings.NOTE_MAX_BYTES = 1000
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("Liar.md", b"y" * 5000)
    data = bytearray(buffer.getvalue())
    # Patch the central directory's uncompressed size (offset 24 in the entry) to claim 10 bytes.
    central = data.rfind(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    job = import_job_create(actor=vault.owner, vault=vault, archive=bytes(data), source="liar")
    job = import_job_run(job_id=job.pk)

    assert outcomes(job)["Liar.md"][0] == FileOutcome.SKIPPED
    assert not Note.objects.filter(vault=vault).exists()


def test_not_a_zip_is_refused_before_anything_is_queued(vault):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="not a zip"):
        import_job_create(actor=vault.owner, vault=vault, archive=b"just text", source="x")


def test_folder_import_refuses_a_missing_folder(vault, tmp_path: Path):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="not a folder"):
        import_job_create(actor=vault.owner, vault=vault, folder=str(tmp_path / "nope"))


def test_a_file_skipped_this_time_is_not_taken_for_gone(vault, tmp_path, settings):
    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "Grows.md").write_text("# Grows\nsmall for now\n", encoding="utf-8")
    import_folder(vault, folder, source="src")
    settings.NOTE_MAX_BYTES = 2000
    (folder / "Grows.md").write_text("# Grows\n" + "long " * 1000, encoding="utf-8")

    job = import_folder(vault, folder, source="src")

    assert outcomes(job)["Grows.md"][0] == FileOutcome.SKIPPED
    assert Note.objects.get(vault=vault, path="Grows.md").tier == "hot"


def test_someone_elses_upload_with_the_same_name_moves_nothing(vault):
    from tests.factories import make_user, share

    bob = make_user()
    share(vault, "contributor", user=bob)
    first = import_job_create(actor=vault.owner, vault=vault, archive=_zip({"A.md": b"# A\n"}), source="export")
    import_job_run(job_id=first.pk)
    other = import_job_create(actor=bob, vault=vault, archive=_zip({"B.md": b"# B\n"}), source="export")
    import_job_run(job_id=other.pk)

    assert set(Note.objects.filter(vault=vault, tier="hot").values_list("path", flat=True)) == {"A.md", "B.md"}


def test_zip_paths_are_normalised_and_macos_folders_do_not_break_the_top_folder(vault):
    archive = _zip(
        {
            "Vault/notes//One.md": b"# One\n",
            "Vault/./Two.md": b"# Two\n",
            "__MACOSX/Vault/._One.md": b"\x00\x05junk",
            ".DS_Store": b"\x00\x00",
        }
    )
    job = import_job_run(job_id=import_job_create(actor=vault.owner, vault=vault, archive=archive, source="z").pk)

    assert set(Note.objects.filter(vault=vault).values_list("path", flat=True)) == {"notes/One.md", "Two.md"}
    assert job.status == ImportStatus.SUCCEEDED


def test_the_total_size_of_an_import_is_capped(vault, settings):
    settings.IMPORT_MAX_TOTAL_BYTES = 3000
    archive = _zip({f"N{i}.md": f"# N{i}\n".encode() + b"x" * 1000 for i in range(6)})
    job = import_job_run(job_id=import_job_create(actor=vault.owner, vault=vault, archive=archive, source="big").pk)

    reasons = [reason for outcome, reason in outcomes(job).values() if outcome == FileOutcome.SKIPPED]
    assert Note.objects.filter(vault=vault).count() == 3
    assert len(reasons) == 3 and all("limit" in r for r in reasons)


def test_an_edit_made_while_an_import_runs_is_not_overwritten(vault, tmp_path, monkeypatch):
    from apps.notes.services import ingest
    from apps.notes.services.notes import note_update

    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "A.md").write_text("# A\nfrom the source\n", encoding="utf-8")
    import_folder(vault, folder, source="src")
    (folder / "A.md").write_text("# A\nnew from the source\n", encoding="utf-8")
    original_read = ingest._read

    def read_then_someone_edits(*args, **kwargs):  # type: ignore[no-untyped-def]
        decision = original_read(*args, **kwargs)
        note = Note.objects.get(vault=vault, path="A.md")
        note_update(actor=vault.owner, note=note, body="# A\nhand edited meanwhile\n")
        return decision

    monkeypatch.setattr(ingest, "_read", read_then_someone_edits)
    job = import_folder(vault, folder, source="src")

    assert Note.objects.get(vault=vault, path="A.md").body == "# A\nhand edited meanwhile\n"
    assert outcomes(job)["A.md"][0] == FileOutcome.SKIPPED


@pytest.mark.django_db(transaction=True)
def test_progress_moves_file_by_file_then_chunk_by_chunk_and_others_see_it(monkeypatch):
    """What the command's bar and the polling page see: every file read, then every embedding call, each visible
    to another connection before the batch it belongs to has committed."""
    from apps.notes.services import ingest
    from tests.factories import make_user, make_vault

    monkeypatch.setattr(ingest, "PROGRESS_SECONDS", 0.0)  # every step written, so this test can see each one
    monkeypatch.setattr(ingest, "EMBED_TEXTS", 32)  # several embedding calls for one small vault
    corpus = CORPORA / "foam-docs"
    assert corpus.is_dir(), f"the real vaults are not at {CORPORA} (set DESIREPATH_CORPORA)"
    vault = make_vault(make_user("watcher"), "Foam")
    job = import_job_create(actor=vault.owner, vault=vault, folder=str(corpus), source="foam")
    seen: list[tuple[str, int, int, int]] = []
    from_outside: list[dict[str, object]] = []

    def watch(current) -> None:  # type: ignore[no-untyped-def]
        seen.append((current.phase, current.processed, current.embed_done, current.embed_total))
        if current.phase == "reading" and current.processed == 10:
            from_outside.append(_read_elsewhere(current.pk))

    job = import_job_run(job_id=job.pk, progress=watch)

    files = sum(1 for p in corpus.rglob("*") if p.is_file() and ".git" not in p.parts)
    assert job.status == ImportStatus.SUCCEEDED and job.total == files
    reading = [processed for phase, processed, _, _ in seen if phase == "reading"]
    assert sorted(set(reading)) == list(range(files + 1))  # every file, none skipped over
    embedding = [(done, total) for phase, _, done, total in seen if phase == "embedding"]
    total = embedding[0][1]
    assert total == job.counts["chunks_embedded"] > 64 and {t for _, t in embedding} == {total}
    steps = sorted({done for done, _ in embedding})
    assert steps[0] == 0 and steps[-1] == total and len(steps) >= total // 32  # call by call, to the end
    # At the tenth file another connection already reads the progress, before the first batch committed anything.
    assert from_outside == [{"phase": "reading", "processed": 10, "results": 0}]
    assert not unembedded(vault=vault).exists()


def _read_elsewhere(job_id: int) -> dict[str, object]:
    """The job row as the page's request would read it: on a connection of its own (a thread)."""
    import threading

    from django.db import connection

    from apps.notes.models import ImportFileResult, ImportJob

    result: dict[str, object] = {}

    def read() -> None:
        try:
            row = ImportJob.objects.values("phase", "processed").get(pk=job_id)
            result.update(row, results=ImportFileResult.objects.filter(job_id=job_id).count())
        finally:
            connection.close()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    return result


def test_an_import_queues_its_follow_up_steps_as_a_few_tasks_per_vault(vault, django_capture_on_commit_callbacks):
    """An import of a real vault queues one graph task, one metadata task and one insights build for the vault, not
    one per note; a note written through the API queues its embedding, which queues the rest (the worker test runs
    them)."""
    from django.conf import settings

    from desirepath.celery import app
    from tests.factories import api

    queue = settings.CELERY_TASK_DEFAULT_QUEUE

    def queued() -> list[str]:
        with app.connection_for_write() as conn:
            client = conn.default_channel.client
            return [json.loads(m)["headers"]["task"] for m in client.lrange(queue, 0, -1)]

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(queue)
    with django_capture_on_commit_callbacks(execute=True):
        job = import_folder(vault, CORPORA / "foam-docs", source="foam", follow_up=False)
    assert job.counts["created"] > 50
    assert sorted(queued()) == [
        "apps.graph.tasks.extract_written",
        "apps.insights.tasks.insights_build",
        "apps.librarian.tasks.enrich_vault",
    ]

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(queue)
    with django_capture_on_commit_callbacks(execute=True):
        response = api(vault.owner).post(
            f"/api/vaults/{vault.pk}/notes/", {"path": "New.md", "body": "# New\nA fresh note."}, format="json"
        )
    assert response.status_code == 201
    assert queued() == ["apps.notes.tasks.embed_pending"]
    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(queue)


def _vectors_by_hash(vault, path: str) -> dict[str, list[float]]:
    rows = ChunkVector.objects.filter(vault=vault, note__path=path, model=current_model())
    return {content_hash: list(vector) for content_hash, vector in rows.values_list("chunk__content_hash", "embedding")}


def test_an_upload_whose_every_file_was_skipped_says_nothing_was_imported(vault):
    client = api(vault.owner)
    upload = io.BytesIO(_zip({"Export/notes.xyz": b"not a note"}))
    upload.name = "Export.zip"
    queued = client.post(f"/api/vaults/{vault.pk}/import/", {"file": upload}, format="multipart").json()
    import_job_run(job_id=queued["job"])  # the worker's run

    job = client.get(f"/api/jobs/{queued['job']}/").json()

    assert (job["status"], job["status_label"]) == ("nothing_imported", "finished: nothing imported — 1 skipped")
    assert job["files"][0]["outcome"] == "skipped" and ".xyz" in job["files"][0]["reason"]
    browser = Client()
    browser.force_login(vault.owner)
    page = browser.get(f"/jobs/{queued['job']}/").content.decode()
    assert "finished: nothing imported — 1 skipped" in page and "succeeded" not in page


def test_a_vault_uploaded_again_with_its_extension_in_capitals_updates_its_notes(vault):
    client = api(vault.owner)
    categories = sorted((CORPORA / "kepano-obsidian/Categories").glob("*.md"))[:3]
    notes = {f"Vault/Categories/{path.name}": path.read_bytes() for path in categories}

    def upload(name: str, entries: dict[str, bytes]) -> dict:
        archive = io.BytesIO(_zip(entries))
        archive.name = name
        queued = client.post(f"/api/vaults/{vault.pk}/import/", {"file": archive}, format="multipart").json()
        import_job_run(job_id=queued["job"])  # the worker's run
        return client.get(f"/api/jobs/{queued['job']}/").json()

    first = upload("Vault.zip", notes)
    assert {file["outcome"] for file in first["files"]} == {"created"}
    changed = f"Vault/Categories/{categories[0].name}"
    again = upload("Vault.ZIP", {**notes, changed: notes[changed] + b"\nA line added since.\n"})

    outcomes = {file["path"]: (file["outcome"], file["reason"]) for file in again["files"]}
    assert outcomes[f"Categories/{categories[0].name}"] == ("updated", ""), outcomes
    assert {outcome for outcome, _ in outcomes.values()} == {"updated", "unchanged"}, outcomes
    assert set(Note.objects.filter(vault=vault).values_list("source", flat=True)) == {
        f"{vault.owner.get_username()}/Vault"
    }
