"""Import an Obsidian vault (a folder or a zip) into a vault, idempotently, skipping bad files with a reason.

Markdown files become notes; images, PDFs and other known attachment types are stored as attachments; anything
else is skipped with the reason on the job."""

from __future__ import annotations

import io
import json
import logging
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import connection, transaction
from django.utils import timezone

from apps.audit.models import AuditEvent
from apps.audit.services import audit_record
from apps.llm.embeddings import current_model, embed_texts
from apps.notes.hooks import imported
from apps.notes.markdown import (
    NoteFormatError,
    ParsedNote,
    decode_note_bytes,
    embed_input,
    parse_note,
)
from apps.notes.media import ATTACHMENT_EXTENSIONS, REFUSED_EXTENSIONS, extension_of
from apps.notes.models import (
    Attachment,
    FileOutcome,
    ImportFileResult,
    ImportJob,
    ImportPhase,
    ImportStatus,
    Note,
    Tier,
)
from apps.notes.services.attachments import (
    AttachmentDraft,
    attachment_blobs_prune,
    attachments_locked,
    attachments_save,
)
from apps.notes.services.chunks import (
    block_referrers_read_again,
    chunks_replace,
    chunks_store_vectors,
    drafts_for,
    links_resolve,
)
from apps.notes.services.notes import apply_parsed, links_replace
from apps.notes.services.rereading import vault_notes_reread
from apps.notes.vectors import chunks_without_vector
from apps.vaults.models import Vault
from apps.vaults.permissions import require_unarchived, user_may

BATCH_FILES = 64  # files per transaction; their new chunk texts are embedded afterwards, outside it
# Texts per embedding call: the model's own batch, so the job moves with every batch at no cost in throughput (texts
# are sorted by length first, which is what a single large call would gain by).
EMBED_TEXTS = int(settings.EMBEDDING_BATCH_SIZE)
EMBED_WINDOW_NOTES = 2000  # written notes whose pending chunk texts are held in memory at once
PROGRESS_SECONDS = 0.1  # the job row is written at most this often; the page polls every 2 s
BATCH_BYTES = 64 * 1024 * 1024  # a batch of attachments is held in memory until written: keep it bounded
MISSING_FROM_SOURCE = "missing-from-source"
SOURCE_LABEL_CHARS = 150  # of an import's label, after its requester's name (ImportJob.source holds both)
IGNORED_DIRS = {".obsidian", ".trash", ".git", "__MACOSX", ".desirepath"}
# Written by the export beside the notes: which vault the zip came from.
EXPORT_MANIFEST = ".desirepath/export.json"
MAX_COMPRESSION_RATIO = 200
# A single note uploaded on its own, imported as a zip holding just it would be.
MARKDOWN_SUFFIXES = (".md",)
IMPORT_LOCK_KEY = 4242  # advisory lock namespace for imports (second key: the vault id)

logger = logging.getLogger(__name__)


class ImportRefused(Exception):
    """The job may not go on: its requester lost the right to write to the vault after queueing it."""


def _requester_may_still_write(job: ImportJob) -> None:
    # A job runs with its requester's rights as they are now: a role revoked after queueing stops the import.
    requester = job.created_by
    if requester is None or not user_may(requester, "contribute", job.vault):
        who = requester.get_username() if requester is not None else "its requester"
        raise ImportRefused(f"{who} may no longer write to this vault; the import stopped there")
    if Vault.objects.filter(pk=job.vault_id, archived_at__isnull=False).exists():
        raise ImportRefused("the vault was archived; the import stopped there (bring the vault back to import)")


@dataclass(frozen=True)
class SourceFile:
    path: str
    read: Callable[[int], bytes]  # at most this many bytes
    skip_reason: str = ""
    size: int = 0  # as the source declares it; a zip header can lie, so reads are capped too


def _unread(limit: int) -> bytes:
    return b""


def _file_reader(path: Path) -> Callable[[int], bytes]:
    def read(limit: int) -> bytes:
        with path.open("rb") as handle:
            return handle.read(limit)

    return read


Progress = Callable[[ImportJob], None]


class _Tracker:
    """A running job's progress: the caller's callback (the command's bar) sees every file and every embedding
    call; the job row, which the page and the API poll, is written in a short statement of its own (never inside
    a batch's transaction, where nobody would see it before the batch commits), at most every PROGRESS_SECONDS."""

    def __init__(self, job: ImportJob, callback: Progress | None) -> None:
        self.job, self.callback, self.saved_at = job, callback, 0.0

    def moved(self, *, force: bool = False, **changes: object) -> None:
        for field, value in changes.items():
            setattr(self.job, field, value)
        now = time.monotonic()
        if force or now - self.saved_at >= PROGRESS_SECONDS:
            job = self.job
            ImportJob.objects.filter(pk=job.pk).update(
                processed=job.processed,
                phase=job.phase,
                embed_total=job.embed_total,
                embed_done=job.embed_done,
                heartbeat_at=timezone.now(),
            )
            self.saved_at = now
        if self.callback:
            self.callback(self.job)


def export_manifest(vault: Vault) -> bytes:
    return json.dumps({"exported_from_vault": vault.pk}).encode("utf-8")


def _manifest_vault(raw: bytes | None) -> int | None:
    """The vault an export manifest names, or None."""
    try:
        vault_id = json.loads(raw or b"null")["exported_from_vault"]
    except (ValueError, TypeError, KeyError):
        return None
    return vault_id if isinstance(vault_id, int) else None


def _zip_manifest(zf: zipfile.ZipFile) -> bytes | None:
    """The export manifest under the zip's one top folder, when there is exactly one (and it is small)."""
    found = [info for info in zf.infolist() if info.filename.replace("\\", "/").endswith(EXPORT_MANIFEST)]
    return zf.read(found[0]) if len(found) == 1 and found[0].file_size <= 4096 else None


@transaction.atomic
def import_job_create(
    *,
    actor: User,
    vault: Vault,
    archive: bytes | None = None,
    folder: str | None = None,
    source: str = "",
    file_name: str = "",
) -> ImportJob:
    """Queue an import (contributors). A zip is checked and stored for the worker; the task runs after commit."""
    if not user_may(actor, "contribute", vault):
        raise PermissionDenied("your role on this vault does not allow importing notes")
    require_unarchived(vault)
    if (archive is None) == (folder is None):
        raise ValidationError({"detail": ["give a zip file or a folder"]})
    if archive is not None:
        if len(archive) > int(settings.IMPORT_MAX_UPLOAD_BYTES):
            raise ValidationError({"file": [f"the zip exceeds {int(settings.IMPORT_MAX_UPLOAD_BYTES) >> 20} MiB"]})
        if not zipfile.is_zipfile(io.BytesIO(archive)):
            raise ValidationError({"file": ["this is not a zip archive"]})
        try:
            with zipfile.ZipFile(io.BytesIO(archive)) as zf:
                count = len(zf.infolist())
                manifest = _zip_manifest(zf)
        except (zipfile.BadZipFile, OSError) as exc:
            raise ValidationError({"file": [f"the zip cannot be read: {exc}"]}) from exc
        if count > int(settings.IMPORT_MAX_FILES):
            raise ValidationError(
                {"file": [f"the zip holds {count} entries; the limit is {settings.IMPORT_MAX_FILES}"]}
            )
    if folder is not None and not Path(folder).is_dir():
        raise ValidationError({"folder": [f"{folder} is not a folder"]})
    # A source is one person's import of one vault: someone else's "export.zip" never moves these notes.
    label = (source or (Path(folder).name if folder else "upload")).strip()[:SOURCE_LABEL_CHARS] or "upload"
    label = f"{actor.get_username()}/{label}"
    if folder is not None:
        written = Path(folder) / EXPORT_MANIFEST
        manifest = written.read_bytes()[:4096] if written.is_file() else None
    own_export = _manifest_vault(manifest) == vault.pk
    job = ImportJob.objects.create(
        vault=vault,
        created_by=actor,
        source=label,
        own_export=own_export,
        folder=folder or "",
        archive=archive,
        file_name=file_name[:255],
    )
    audit_record(
        actor=actor,
        action="import.queue",
        object_type="import_job",
        object_id=job.pk,
        vault_id=vault.pk,
        changes={"source": label, "own_export": own_export},
    )
    return job


def import_job_from_upload(*, actor: User, vault: Vault, upload: UploadedFile | None, source: str = "") -> ImportJob:
    """An uploaded zip, or a single Markdown note (API or web page) → a queued job; the size is checked before the
    file is read. A note is imported as a zip holding just it, so it lands at the vault's top as its name."""
    if upload is None:
        raise ValidationError({"file": ["choose a .zip of your vault or a Markdown note (.md)"]})
    limit = int(settings.IMPORT_MAX_UPLOAD_BYTES)
    if upload.size and upload.size > limit:
        raise ValidationError({"file": [f"the file exceeds {limit >> 20} MiB"]})
    name = (upload.name or "upload").replace("\\", "/").rsplit("/", 1)[-1]
    raw = upload.read()
    label = name  # the notes' source: the same file uploaded again names it again, and so updates its notes
    if name.lower().endswith(MARKDOWN_SUFFIXES):
        archive = _single_note_zip(name, raw)
    elif zipfile.is_zipfile(io.BytesIO(raw)):
        archive, label = raw, zip_label(name)
    else:
        raise ValidationError({"file": [f"“{name}” is neither a zip of notes nor a Markdown note (.md)"]})
    job = import_job_create(actor=actor, vault=vault, archive=archive, source=source or label, file_name=name)
    import_job_enqueue(job)
    return job


def upload_label_is_its_name(label: str, file_name: str) -> bool:
    """Whether an upload's label is just its file's name (or the zip's name without `.zip`), as far as a label is
    kept: a page names such an upload once."""
    return label in (file_name[:SOURCE_LABEL_CHARS], zip_label(file_name)[:SOURCE_LABEL_CHARS])


def zip_label(file_name: str) -> str:
    """The source an uploaded zip's notes are filed under (after its uploader's name): its name without `.zip`,
    written in any case, so the vault uploaded again as `Vault.ZIP` updates the notes `Vault.zip` brought."""
    return file_name[: -len(".zip")] if file_name.lower().endswith(".zip") else file_name


def _single_note_zip(name: str, text: bytes) -> bytes:
    # stored, not deflated: a repetitive note would otherwise look like a zip bomb to the compression check
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr(name, text)
    return buffer.getvalue()


def import_job_enqueue(job: ImportJob) -> None:
    """Send the job to the worker after commit; if the queue is unreachable the job says so (nothing is lost)."""
    from apps.notes.tasks import import_run

    def send() -> None:
        try:
            import_run.delay(job.pk)
        except Exception as exc:  # noqa: BLE001 - reported on the job, which the user is polling
            ImportJob.objects.filter(pk=job.pk).update(
                status=ImportStatus.FAILED, error=f"the task queue is unreachable ({type(exc).__name__}); upload again"
            )

    transaction.on_commit(send)


def _folder_files(folder: Path) -> Iterator[SourceFile]:
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if any(part in IGNORED_DIRS for part in PurePosixPath(rel).parts):
            continue
        if path.is_symlink():
            yield SourceFile(rel, _unread, "symbolic link, not followed")
        elif path.is_file():
            yield SourceFile(rel, _file_reader(path), size=path.stat().st_size)


def _zip_parts(name: str) -> tuple[list[str], bool]:
    """Path parts of a zip entry name ('' and '.' dropped) and whether it is unsafe (absolute, '..', drive)."""
    name = name.replace("\\", "/")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    unsafe = name.startswith("/") or ".." in parts or bool(parts and ":" in parts[0])
    return parts, unsafe


def _top_folder(entries: list[list[str]]) -> int:
    """1 if every note-like entry sits in one top folder (an exported vault), else 0."""
    relevant = [p for p in entries if p and not any(x in IGNORED_DIRS for x in p) and not p[-1].startswith(".")]
    tops = {p[0] for p in relevant if len(p) > 1}
    return 1 if relevant and len(tops) == 1 and all(len(p) > 1 for p in relevant) else 0


def _zip_files(zf: zipfile.ZipFile) -> Iterator[SourceFile]:
    infos = [info for info in zf.infolist() if not info.is_dir()]
    entries = [_zip_parts(info.filename) for info in infos]
    strip = _top_folder([parts for parts, unsafe in entries if not unsafe])
    for info, (parts, unsafe) in zip(infos, entries, strict=True):
        if unsafe:
            yield SourceFile(info.filename[:1000], _unread, "unsafe path (absolute or '..'): not imported")
            continue
        rel_parts = parts[strip:] if len(parts) > strip else parts
        if not rel_parts or any(part in IGNORED_DIRS for part in rel_parts):
            continue
        rel = "/".join(rel_parts)
        if info.compress_size and info.file_size / info.compress_size > MAX_COMPRESSION_RATIO:
            yield SourceFile(rel, _unread, "suspicious compression ratio (zip bomb?): not imported")
        else:
            yield SourceFile(rel, _capped_reader(zf, info), size=info.file_size)


def _capped_reader(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> Callable[[int], bytes]:
    def read(limit: int) -> bytes:
        # The header's size can lie: the caller's cap holds whatever the entry expands to.
        with zf.open(info) as handle:
            return handle.read(limit)

    return read


@dataclass
class _Decision:
    path: str
    outcome: str = ""  # "" until decided against the database, under the batch's lock
    reason: str = ""
    parsed: ParsedNote | None = None
    note: Note | None = None
    draft: AttachmentDraft | None = None
    attachment: Attachment | None = None


@dataclass
class _Budget:
    """Bytes read so far against IMPORT_MAX_TOTAL_BYTES (what a zip expands to, not its size) and files stored
    against IMPORT_MAX_FILES, notes and attachments alike."""

    limit: int
    max_files: int
    used: int = 0
    files: int = 0


def _size_label(size: int) -> str:
    return f"{size / (1 << 20):g} MiB" if size >= 1 << 20 else f"{size // 1024} KiB"


def _unsupported(path: str) -> str:
    """Why a file that is not a note is not stored as an attachment either; "" when it is."""
    extension = extension_of(path)
    if extension in REFUSED_EXTENSIONS:
        return REFUSED_EXTENSIONS[extension]
    if extension not in ATTACHMENT_EXTENSIONS:
        kind = f".{extension}" if extension else "no extension"
        return f"not a Markdown note (.md) nor a known attachment type ({kind})"
    return ""


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _read(file: SourceFile, seen: set[str], budget: _Budget) -> _Decision:
    """File-level checks and parsing. Every path present in the source counts as seen, even when skipped,
    so a note whose file is merely bad this time is never taken for gone."""
    if "\x00" in file.path or not _is_utf8(file.path):  # a folder's non-UTF-8 name: lone surrogates
        shown = file.path.encode("utf-8", "replace").decode("utf-8").replace("\x00", "?")
        return _Decision(shown, FileOutcome.SKIPPED, "file name is not valid UTF-8 text")
    if file.path in seen:
        return _Decision(file.path, FileOutcome.SKIPPED, "duplicate path in this import")
    seen.add(file.path)
    if file.skip_reason:
        return _Decision(file.path, FileOutcome.SKIPPED, file.skip_reason)
    is_note = extension_of(file.path) == "md"
    if not is_note and (why := _unsupported(file.path)):
        return _Decision(file.path, FileOutcome.SKIPPED, why)
    if len(file.path) > 500:
        return _Decision(file.path, FileOutcome.SKIPPED, "path longer than 500 characters")
    limit = int(settings.NOTE_MAX_BYTES if is_note else settings.ATTACHMENT_MAX_BYTES)
    too_large = f"file is larger than the {_size_label(limit)} limit"
    if file.size > limit:
        return _Decision(file.path, FileOutcome.SKIPPED, too_large)
    if budget.used >= budget.limit:
        return _Decision(file.path, FileOutcome.SKIPPED, f"the import stopped at its {_size_label(budget.limit)} limit")
    if budget.files >= budget.max_files:
        return _Decision(file.path, FileOutcome.SKIPPED, f"the import stopped at its limit of {budget.max_files} files")
    try:
        raw = file.read(limit + 1)  # one byte over the limit tells a file that is too large
        budget.used += len(raw)
        budget.files += 1
        if not is_note:
            if len(raw) > limit:
                return _Decision(file.path, FileOutcome.SKIPPED, too_large)
            return _Decision(file.path, draft=AttachmentDraft.of(raw))
        parsed = parse_note(file.path, decode_note_bytes(raw, max_bytes=limit))
    except NoteFormatError as exc:
        return _Decision(file.path, FileOutcome.SKIPPED, str(exc))
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        return _Decision(file.path, FileOutcome.SKIPPED, f"unreadable: {exc}")
    return _Decision(file.path, parsed=parsed)


def _outcome(job: ImportJob, stored: Note | Attachment | None, content_hash: str) -> tuple[str, str]:
    """What a file read from the source does to the note or attachment now stored at its path (read under lock)."""
    noun = "a note" if isinstance(stored, Note) else "a file"
    if stored is None:
        return FileOutcome.CREATED, ""
    if stored.source != job.source and not job.own_export:
        why = "written in DesirePath" if not stored.source else f"imported from '{stored.source}'"
        return FileOutcome.SKIPPED, f"{noun} at this path was {why}; not overwritten"
    if stored.tier == Tier.COLD and stored.cold_reason != MISSING_FROM_SOURCE:
        return FileOutcome.SKIPPED, "deleted in DesirePath; a manager can restore it"
    if stored.content_hash == content_hash and stored.tier == Tier.HOT:
        return FileOutcome.UNCHANGED, ""
    return FileOutcome.UPDATED, ""


def _classify(job: ImportJob, decision: _Decision, note: Note | None) -> None:
    """Decide what a parsed file does to the note now stored at its path (read under lock)."""
    parsed = decision.parsed
    assert parsed is not None
    decision.note = note
    decision.outcome, decision.reason = _outcome(job, note, parsed.content_hash)
    if decision.outcome not in (FileOutcome.CREATED, FileOutcome.UPDATED):
        decision.parsed = None
    elif parsed.frontmatter_refused:
        decision.reason = f"{parsed.frontmatter_refused}; the note was imported without it"


def _write_attachments(job: ImportJob, decisions: list[_Decision]) -> None:
    pending = [d for d in decisions if d.draft is not None]
    current = attachments_locked(vault_id=job.vault_id, paths=[d.path for d in pending])
    writes = []
    for decision in pending:
        assert decision.draft is not None
        stored = current.get(decision.path)
        decision.outcome, decision.reason = _outcome(job, stored, decision.draft.content_hash)
        if decision.outcome in (FileOutcome.CREATED, FileOutcome.UPDATED):
            writes.append((decision, stored, decision.draft))
        decision.draft = None  # the bytes are not held past this batch
    saved = attachments_save(job=job, writes=[(d.path, stored, draft) for d, stored, draft in writes])
    for (decision, _, _), attachment in zip(writes, saved, strict=True):
        decision.attachment = attachment


def _lock_vault_imports(vault_id: int) -> None:
    # One import batch at a time per vault; rows are then re-read, so edits made meanwhile are respected.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [IMPORT_LOCK_KEY, vault_id])


@transaction.atomic
def _write_batch(job: ImportJob, decisions: list[_Decision]) -> list[int]:
    """Write a batch's notes, chunks (known texts keep their vectors, new ones wait for the embedding phase) and
    links, with each file's outcome; the ids of the notes written."""
    _lock_vault_imports(job.vault_id)
    _requester_may_still_write(job)
    pending = [d for d in decisions if d.parsed is not None]
    current = {
        n.path: n
        for n in Note.objects.select_for_update().filter(vault_id=job.vault_id, path__in=[d.path for d in pending])
    }
    for decision in pending:
        _classify(job, decision, current.get(decision.path))
    writes: list[tuple[Note, ParsedNote]] = []
    blocks: set[str] = set()  # the blocks the batch's notes declared or declare now
    for decision in decisions:
        if decision.parsed is None:
            continue
        note = decision.note or Note(vault_id=job.vault_id, created_by=job.created_by, source=job.source)
        blocks |= set(note.block_ids)
        apply_parsed(note, decision.parsed)
        blocks |= set(note.block_ids)
        note.tier, note.cold_reason = Tier.HOT, ""
        note.save()
        decision.note = note
        writes.append((note, decision.parsed))
    chunks_replace(vault_id=job.vault_id, notes=[(n, drafts_for(n)) for n, _ in writes], embed=False)
    for note, parsed in writes:
        links_replace(note, parsed)
    block_referrers_read_again(vault_id=job.vault_id, block_ids=blocks)
    _write_attachments(job, decisions)
    ImportFileResult.objects.bulk_create(_file_result(job, d.path, d.outcome, d.reason) for d in decisions)
    AuditEvent.objects.bulk_create(
        AuditEvent(
            actor=job.created_by,
            actor_label=f"import job {job.pk}",
            action=f"note.import.{d.outcome}",
            object_type="note",
            object_id=str(d.note.pk),
            vault_id=job.vault_id,
            changes={"path": d.path, "hash": d.note.content_hash},
        )
        for d in decisions
        if d.note is not None and d.outcome in (FileOutcome.CREATED, FileOutcome.UPDATED)
    )
    AuditEvent.objects.bulk_create(
        AuditEvent(
            actor=job.created_by,
            actor_label=f"import job {job.pk}",
            action=f"attachment.import.{d.outcome}",
            object_type="attachment",
            object_id=str(d.attachment.pk),
            vault_id=job.vault_id,
            changes={"path": d.path, "hash": d.attachment.content_hash, "media_type": d.attachment.media_type},
        )
        for d in decisions
        if d.attachment is not None
    )
    counts = dict(job.counts)
    for decision in decisions:
        counts[str(decision.outcome)] = counts.get(str(decision.outcome), 0) + 1
    job.counts = counts
    job.save(update_fields=["counts"])
    return [note.pk for note, _ in writes]


def _embed_written(job: ImportJob, note_ids: list[int], tracker: _Tracker) -> int:
    """Embed the new chunk texts of the notes this job wrote, each distinct text once, in large calls of texts of
    similar length; the job shows how many of them are done. Returns how many texts were embedded."""
    model = current_model()
    pending = chunks_without_vector(model).filter(vault_id=job.vault_id)
    windows = [note_ids[i : i + EMBED_WINDOW_NOTES] for i in range(0, len(note_ids), EMBED_WINDOW_NOTES)]
    total = sum(pending.filter(note_id__in=w).values("content_hash").distinct().count() for w in windows)
    tracker.moved(force=True, phase=ImportPhase.EMBEDDING, embed_total=total, embed_done=0)
    done = 0
    for window in windows:
        texts: dict[str, str] = {}
        rows = pending.filter(note_id__in=window).values_list("content_hash", "note__title", "heading", "text")
        for content_hash, title, heading, text in rows.order_by():
            texts.setdefault(content_hash, embed_input(title, heading, text))
        ordered = sorted(texts.items(), key=lambda item: len(item[1]))
        for start in range(0, len(ordered), EMBED_TEXTS):
            part = ordered[start : start + EMBED_TEXTS]
            vectors = embed_texts([text for _, text in part])
            chunks_store_vectors(
                vault_id=job.vault_id,
                note_ids=window,
                vectors=dict(zip([h for h, _ in part], vectors, strict=True)),
                model=model,
            )
            done += len(part)
            tracker.moved(embed_done=done, force=start + EMBED_TEXTS >= len(ordered))
    return done


def _file_result(job: ImportJob, path: str, outcome: str, reason: str) -> ImportFileResult:
    """One file's outcome, recorded for the job's current attempt."""
    return ImportFileResult(
        job=job, vault_id=job.vault_id, attempt=job.attempt, path=path[:1000], outcome=outcome, reason=reason
    )


@transaction.atomic
def _move_missing_to_cold(job: ImportJob, seen: set[str]) -> None:
    """Notes and attachments this source brought that it no longer holds move to the cold tier: kept, bytes and
    all, and back (updated) if the file returns."""
    _lock_vault_imports(job.vault_id)
    _requester_may_still_write(job)
    results = []
    for model, kind in ((Note, "note"), (Attachment, "attachment")):
        gone = model.objects.filter(vault_id=job.vault_id, source=job.source, tier=Tier.HOT).exclude(path__in=seen)
        for row in gone:
            row.tier, row.cold_reason = Tier.COLD, MISSING_FROM_SOURCE
            row.save(update_fields=["tier", "cold_reason", "updated_at"])
            if isinstance(row, Note):
                block_referrers_read_again(vault_id=job.vault_id, block_ids=row.block_ids)
            results.append(_file_result(job, row.path, FileOutcome.MOVED_TO_COLD, "gone from the source"))
            audit_record(
                actor=job.created_by,
                actor_label=f"import job {job.pk}",
                action=f"{kind}.cold",
                object_type=kind,
                object_id=row.pk,
                vault_id=job.vault_id,
                changes={"path": row.path, "reason": MISSING_FROM_SOURCE},
            )
    ImportFileResult.objects.bulk_create(results)
    if results:
        job.counts = {**job.counts, str(FileOutcome.MOVED_TO_COLD): len(results)}
        job.save(update_fields=["counts"])


def import_job_run(*, job_id: int, progress: Progress | None = None) -> ImportJob:
    """Run a queued import: files are read and written batch by batch (each commits on its own, so a failure keeps
    what was already imported), then their new chunk texts are embedded (what a failure leaves waits for the
    embedding sweep). The job shows each file read and each embedding call. A job the recovery sweep queued
    again after its worker was lost goes on after the files its earlier run wrote."""
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportStatus.QUEUED).update(
        status=ImportStatus.RUNNING, heartbeat_at=timezone.now()
    )
    job = ImportJob.objects.select_related("created_by", "vault").get(pk=job_id)
    if not claimed:
        return job  # idempotent: a redelivered task, or one whose job another run holds, does nothing
    resuming = job.resumes > 0 and job.started_at is not None
    if not resuming:  # a first run, or a retry's (its own attempt: the earlier attempts' outcomes stay)
        job.started_at, job.processed, job.counts = timezone.now(), 0, {}
    job.phase, job.embed_total, job.embed_done = ImportPhase.READING, 0, 0
    job.save(update_fields=["started_at", "processed", "counts", "phase", "embed_total", "embed_done"])
    try:
        _requester_may_still_write(job)
        _run(job, progress)
    except ImportRefused as exc:
        job.status, job.error, job.finished_at = ImportStatus.FAILED, str(exc), timezone.now()
        job.save(update_fields=["status", "error", "finished_at"])
        return job
    except Exception as exc:
        job.status, job.error, job.finished_at = ImportStatus.FAILED, f"{type(exc).__name__}: {exc}", timezone.now()
        job.save(update_fields=["status", "error", "finished_at"])
        raise
    job.status, job.finished_at, job.archive, job.phase = ImportStatus.SUCCEEDED, timezone.now(), None, ""
    job.save(update_fields=["status", "finished_at", "archive", "phase"])
    imported(vault_id=job.vault_id)
    if progress:
        progress(job)
    return job


def _written_before(job: ImportJob) -> tuple[set[str], list[int]]:
    """The paths an earlier run of this job decided (its batches committed) and the notes it wrote."""
    results = list(job.outcomes().values_list("path", "outcome"))
    written = [path for path, outcome in results if outcome in (FileOutcome.CREATED, FileOutcome.UPDATED)]
    notes = Note.objects.filter(vault_id=job.vault_id, source=job.source, path__in=written)
    return {path for path, _ in results}, list(notes.values_list("id", flat=True))


def _run(job: ImportJob, progress: Progress | None) -> None:
    zf = zipfile.ZipFile(io.BytesIO(bytes(job.archive))) if job.archive is not None else None
    files = list(_zip_files(zf) if zf is not None else _folder_files(Path(job.folder)))
    done, written = _written_before(job)
    job.total, job.processed = len(files), 0
    job.save(update_fields=["total"])
    tracker = _Tracker(job, progress)
    tracker.moved(force=True, phase=ImportPhase.READING)
    seen: set[str] = set()
    budget = _Budget(limit=int(settings.IMPORT_MAX_TOTAL_BYTES), max_files=int(settings.IMPORT_MAX_FILES))
    remaining = []
    for file in files:
        if file.path in done:  # written by the run the sweep resumed: still in the source, not read again
            seen.add(file.path)
            job.processed += 1
        else:
            remaining.append(file)
    for batch in _batches(remaining, seen, budget, read=lambda: tracker.moved(processed=job.processed + 1)):
        written += _write_batch(job, batch)
    # A note written before the block it shows was read with the reference as written: read again now, so the
    # import's embedding covers what it shows.
    written += sorted(set(vault_notes_reread(vault_id=job.vault_id)) - set(written))
    tracker.moved(force=True)
    embedded = _embed_written(job, written, tracker)
    job.counts = {**job.counts, "chunks_embedded": job.counts.get("chunks_embedded", 0) + embedded}
    job.save(update_fields=["counts"])
    tracker.moved(force=True, phase=ImportPhase.LINKING)
    _move_missing_to_cold(job, seen)
    _prune_blobs(job)
    links_resolve(vault_id=job.vault_id)


def import_source_available(job: ImportJob) -> bool:
    """Whether the job's files can still be read: an upload is kept until the job succeeds, a folder may go."""
    return job.archive is not None or bool(job.folder and Path(job.folder).is_dir())


@transaction.atomic
def _prune_blobs(job: ImportJob) -> None:
    _lock_vault_imports(job.vault_id)
    attachment_blobs_prune(vault_id=job.vault_id)


def _batches(
    files: list[SourceFile], seen: set[str], budget: _Budget, *, read: Callable[[], None]
) -> Iterator[list[_Decision]]:
    """Read decisions in batches of BATCH_FILES files, or fewer once they hold BATCH_BYTES of attachments; `read`
    is told of every file as it is read."""
    batch: list[_Decision] = []
    held = 0
    for file in files:
        decision = _read(file, seen, budget)
        read()
        batch.append(decision)
        held += len(decision.draft.data) if decision.draft is not None else 0
        if len(batch) >= BATCH_FILES or held >= BATCH_BYTES:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch
