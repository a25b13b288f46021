"""Writes to notes through the API: create, update, delete (to the cold tier), restore, purge."""

from __future__ import annotations

import re
from collections.abc import Collection
from hashlib import sha256
from pathlib import PurePosixPath

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404

from apps.audit.services import audit_record
from apps.core.queue import queue_after_commit
from apps.notes.markdown import READING_VERSION, NoteFormatError, ParsedNote, parse_note, storable_text
from apps.notes.models import Note, NoteLink, Provenance, Tier
from apps.notes.services.chunks import (
    block_referrers_read_again,
    chunks_replace,
    drafts_for,
    links_resolve,
    names_of,
)
from apps.vaults.models import Vault
from apps.vaults.permissions import require_unarchived, user_may

# What no file name may hold where vaults are synced and opened: Windows refuses these, and so Obsidian does
# everywhere (a note so named could not be exported, synced or opened there). Control characters likewise.
NOT_IN_FILE_NAMES = re.compile(r'[<>:"|?*\x00-\x1f]')
# Also what would end or split a [[wikilink]] to the note: what the project names notes by never holds them.
_NOT_IN_NAMES_WRITTEN = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')


def normalize_path(raw: str) -> str:
    """A vault-relative POSIX path ending in .md; refuses absolute paths, '..' and characters no file name may
    hold."""
    path = raw.strip().replace("\\", "/")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or path.startswith("/") or any(p == ".." for p in parts):
        raise ValidationError({"path": ["give a relative path inside the vault, such as 'ideas/Note.md'"]})
    if found := sorted(set(NOT_IN_FILE_NAMES.findall(path))):
        shown = " ".join(c if c.isprintable() else repr(c) for c in found)
        raise ValidationError(
            {"path": [f"a file name may not hold {shown}: Windows, and Obsidian anywhere, refuse it"]}
        )
    clean = "/".join(parts)
    if PurePosixPath(clean).suffix.lower() != ".md":
        clean += ".md"
    if len(clean) > 500:
        raise ValidationError({"path": ["a path may have at most 500 characters"]})
    return clean


def safe_name(text: str) -> str:
    """Text usable as a file name and inside a [[wikilink]]: what neither may hold becomes a space."""
    return re.sub(r"\s+", " ", _NOT_IN_NAMES_WRITTEN.sub(" ", text)).strip()[:80]


def free_path(vault: Vault, title: str, *, folder: str, untitled: str) -> str:
    """A free path for a note the project writes: `folder/title.md`, numbered when taken."""
    base = f"{folder}/{safe_name(title) or untitled}"
    path, n = f"{base}.md", 1
    while Note.objects.filter(vault=vault, path=path).exists():
        n += 1
        path = f"{base} ({n}).md"
    return path


def parse_or_400(path: str, body: str) -> ParsedNote:
    """The note `body` makes, or a 400 saying why it cannot be stored. Frontmatter an import would drop as too
    large is refused here instead: the writer is present to fix it."""
    try:
        body = storable_text(body, where="the note")
        encoded = body.encode("utf-8")
    except NoteFormatError as exc:
        raise ValidationError({"body": [str(exc)]}) from exc
    if len(encoded) > int(settings.NOTE_MAX_BYTES):
        raise ValidationError({"body": [f"a note may hold at most {int(settings.NOTE_MAX_BYTES) // 1024} KiB"]})
    try:
        parsed = parse_note(path, body)
    except NoteFormatError as exc:
        raise ValidationError({"body": [str(exc)]}) from exc
    if parsed.frontmatter_refused:
        raise ValidationError({"body": [parsed.frontmatter_refused]})
    return parsed


def apply_parsed(note: Note, parsed: ParsedNote) -> None:
    note.path = parsed.path
    note.title = parsed.title
    note.body = parsed.body
    note.frontmatter = parsed.frontmatter
    note.tags = parsed.tags
    note.aliases = parsed.aliases
    note.link_keys = parsed.link_keys
    note.block_ids = parsed.block_ids
    note.content_hash = parsed.content_hash
    note.read_with = READING_VERSION


def links_replace(note: Note, parsed: ParsedNote) -> None:
    NoteLink.objects.filter(source=note).delete()
    NoteLink.objects.bulk_create(
        NoteLink(
            vault_id=note.vault_id,
            source=note,
            target_text=link.target[:500],
            heading=link.heading[:500],
            alias=link.alias[:500],
            kind=link.kind,
            block_id=link.block_id[:200],
            ordinal=i,
        )
        for i, link in enumerate(parsed.links)
    )


def embed_later(vault_id: int) -> None:
    from apps.notes.tasks import embed_pending

    queue_after_commit(embed_pending, vault_id, fallback="the periodic sweep embeds it")


def require(actor: User, action: str, vault: Vault) -> None:
    """`actor` may do `action` to the vault, and a change (any action but read) finds the vault open."""
    if not user_may(actor, action, vault):  # type: ignore[arg-type]
        raise PermissionDenied(f"your role on this vault does not allow '{action}'")
    if action != "read":
        require_unarchived(vault)


@transaction.atomic
def note_create(
    *,
    actor: User,
    vault: Vault,
    path: str,
    body: str,
    provenance: str = Provenance.AUTHORED,
    source: str = "",
    drawn_from: list[int] | None = None,
) -> Note:
    """Write a new note (contributors); its chunks are embedded by a Celery task after commit. `drawn_from`: the
    other vaults whose content it carries (it is withheld from anyone who cannot read them all)."""
    require(actor, "contribute", vault)
    clean = normalize_path(path)
    existing = Note.objects.filter(vault=vault, path=clean).first()
    if existing is not None:
        where = "in the cold tier (restore or purge it first)" if existing.tier == Tier.COLD else "already"
        raise ValidationError({"path": [f"a note with this path exists {where}"]})
    parsed = parse_or_400(clean, body)
    note = Note(vault=vault, created_by=actor, source=source, provenance=provenance)
    note.drawn_from = sorted(set(drawn_from or []) - {vault.pk})
    apply_parsed(note, parsed)
    note.save()
    chunks_replace(vault_id=vault.pk, notes=[(note, drafts_for(note))], embed=False)
    links_replace(note, parsed)
    links_resolve(vault_id=vault.pk, names=names_of(note), source_ids=[note.pk])
    block_referrers_read_again(vault_id=vault.pk, block_ids=note.block_ids, written=[note.pk])
    audit_record(
        actor=actor,
        action="note.create",
        object_type="note",
        object_id=note.pk,
        vault_id=vault.pk,
        changes={"path": note.path, "hash": note.content_hash, "provenance": note.provenance},
    )
    embed_later(vault.pk)
    note.refresh_from_db()
    return note


def note_version(note: Note) -> str:
    """What a writer edited: the note's path and text. The API sends it as the ETag and takes it back in If-Match."""
    return sha256(f"{note.path}\n{note.content_hash}".encode()).hexdigest()[:32]


class NoteChanged(Exception):
    """The note is no longer the one the writer edited: another write changed it, or it was deleted meanwhile."""

    def __init__(self, message: str, *, current: Note) -> None:
        super().__init__(message)
        self.current = current


def _locked(note: Note) -> Note:
    # Every write compares and saves the row as it is under the lock, never the copy loaded before it: a copy
    # saved back would undo what another request committed in between (a delete, another edit's chunks).
    current = Note.objects.select_for_update(of=("self",)).select_related("vault").filter(pk=note.pk).first()
    if current is None:
        raise Http404("No note matches the given query.")
    return current


@transaction.atomic
def note_update(
    *,
    actor: User,
    note: Note,
    body: str | None = None,
    path: str | None = None,
    if_version: Collection[str] | None = None,
) -> Note:
    """Rewrite a note (a body or path left out stays). With `if_version` (the versions the writer loaded; None
    for any), a note that has changed since raises `NoteChanged`. A deleted note is never brought back by an
    edit. An imported note edited here leaves its import source, so re-imports never undo it."""
    require(actor, "contribute", note.vault)
    note = _locked(note)
    if note.tier == Tier.COLD:
        raise NoteChanged("this note was deleted to the cold tier; a manager can restore it first", current=note)
    if if_version is not None and note_version(note) not in if_version:
        raise NoteChanged("this note changed since you loaded it; its current version is attached", current=note)
    clean = normalize_path(path) if path else note.path
    if clean != note.path and Note.objects.filter(vault_id=note.vault_id, path=clean).exists():
        raise ValidationError({"path": ["a note with this path exists already"]})
    parsed = parse_or_400(clean, note.body if body is None else body)
    before = {"path": note.path, "hash": note.content_hash, "source": note.source}
    changed = parsed.content_hash != note.content_hash or clean != note.path
    names_before, blocks_before = names_of(note), set(note.block_ids)
    apply_parsed(note, parsed)
    note.source = ""
    note.save()
    if changed:
        chunks_replace(vault_id=note.vault_id, notes=[(note, drafts_for(note))], embed=False)
        links_replace(note, parsed)
        # A link naming the note by a name it kept resolves as before: only names gained or lost can move links.
        moved = names_before ^ names_of(note)
        links_resolve(vault_id=note.vault_id, names=moved, source_ids=[note.pk])
        blocks = blocks_before | set(note.block_ids)
        block_referrers_read_again(vault_id=note.vault_id, block_ids=blocks, written=[note.pk])
        embed_later(note.vault_id)
    audit_record(
        actor=actor,
        action="note.update",
        object_type="note",
        object_id=note.pk,
        vault_id=note.vault_id,
        changes={"before": before, "after": {"path": note.path, "hash": note.content_hash}},
    )
    note.refresh_from_db()
    return note


def note_set_tier(*, note: Note, tier: str, reason: str) -> None:
    note.tier = tier
    note.cold_reason = reason if tier == Tier.COLD else ""
    note.save(update_fields=["tier", "cold_reason", "updated_at"])
    block_referrers_read_again(vault_id=note.vault_id, block_ids=note.block_ids)


@transaction.atomic
def note_delete(*, actor: User, note: Note) -> Note:
    """DELETE never destroys: the note moves to the cold tier, where a manager can restore or purge it."""
    require(actor, "contribute", note.vault)
    note = _locked(note)
    if note.tier != Tier.COLD:
        note_set_tier(note=note, tier=Tier.COLD, reason="deleted")
        links_resolve(vault_id=note.vault_id, names=names_of(note))
        audit_record(
            actor=actor,
            action="note.delete",
            object_type="note",
            object_id=note.pk,
            vault_id=note.vault_id,
            changes={"path": note.path, "to": "cold"},
        )
    return note


@transaction.atomic
def note_restore(*, actor: User, note: Note) -> Note:
    require(actor, "manage", note.vault)
    note = _locked(note)
    if note.tier != Tier.HOT:
        note_set_tier(note=note, tier=Tier.HOT, reason="")
        links_resolve(vault_id=note.vault_id, names=names_of(note))
        audit_record(
            actor=actor,
            action="note.restore",
            object_type="note",
            object_id=note.pk,
            vault_id=note.vault_id,
            changes={"path": note.path},
        )
    return note


@transaction.atomic
def note_purge(*, actor: User, note: Note) -> None:
    """Remove a cold note for good (managers only; logged). Live notes must be deleted first."""
    require(actor, "manage", note.vault)
    note = _locked(note)
    if note.tier != Tier.COLD:
        raise ValidationError({"detail": ["only a note in the cold tier can be purged; delete it first"]})
    audit_record(
        actor=actor,
        action="note.purge",
        object_type="note",
        object_id=note.pk,
        vault_id=note.vault_id,
        changes={"path": note.path, "hash": note.content_hash, "title": note.title},
    )
    vault_id, names = note.vault_id, names_of(note)
    note.delete()
    links_resolve(vault_id=vault_id, names=names)
