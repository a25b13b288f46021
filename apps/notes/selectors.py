from __future__ import annotations

import posixpath
from collections.abc import Iterable
from urllib.parse import unquote

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Count, F, Q, QuerySet
from django.db.models.functions import Length
from django.http import Http404
from django.urls import reverse

from apps.core.auth import Requester
from apps.notes.markdown import Link, LinkKind
from apps.notes.models import (
    Attachment,
    AttachmentBlob,
    Correction,
    CorrectionStatus,
    ExportJob,
    ImportJob,
    Note,
    NoteLink,
    NoteStepFailure,
    Provenance,
    Tier,
)
from apps.vaults.models import Vault
from apps.vaults.permissions import vaults_for
from apps.vaults.scope import readable_scope


def readable_notes(user: Requester) -> Q:
    """Notes in a vault the user reads that carry nothing from a vault they do not (`drawn_from`)."""
    scope = readable_scope(user)
    return scope.q() & Q(drawn_from__contained_by=list(scope.readable))


def readable_note_count(user: Requester) -> Count:
    """A vault's hot notes the user reads, as an annotation on vaults: a note drawn from a vault they no longer read
    is neither listed nor counted."""
    readable = list(readable_scope(user).readable)
    return Count("notes", filter=Q(notes__tier=Tier.HOT, notes__drawn_from__contained_by=readable))


def filed_note_count(user: Requester) -> Count:
    """A vault's hot notes the Librarian wrote from conversations that the user reads, as an annotation on vaults:
    how much of a personal vault was filed rather than written."""
    readable = list(readable_scope(user).readable)
    return Count(
        "notes",
        filter=Q(notes__tier=Tier.HOT, notes__provenance=Provenance.SUMMARY, notes__drawn_from__contained_by=readable),
    )


def note_list(*, user: Requester, vault: Vault, tier: str = Tier.HOT) -> QuerySet[Note]:
    """Notes of a vault the caller has already resolved with `vault_get`, without those drawn from a vault the
    user cannot read."""
    return Note.objects.filter(readable_notes(user), vault=vault, tier=tier).order_by("path")


def note_get(*, user: Requester, note_id: object) -> Note:
    """A note in a vault the user may read, drawn from none they cannot; 404 for missing and forbidden alike."""
    try:
        return Note.objects.select_related("vault").get(readable_notes(user), pk=int(str(note_id)))
    except (Note.DoesNotExist, ValueError) as exc:
        raise Http404("No note matches the given query.") from exc


def note_links(*, note: Note) -> QuerySet[NoteLink]:
    return NoteLink.objects.filter(source=note, vault_id=note.vault_id).select_related("target")


def notes_for_embedding(*, user: Requester, note_ids: Iterable[int]) -> dict[int, tuple[Note, list[NoteLink]]]:
    """Notes among `note_ids` in vaults the user may read, each with its own links (the ones its embeds follow);
    the others are simply absent."""
    notes = Note.objects.filter(readable_notes(user), pk__in=list(note_ids))
    found: dict[int, tuple[Note, list[NoteLink]]] = {note.pk: (note, []) for note in notes}
    for link in NoteLink.objects.filter(source_id__in=list(found), vault_id=F("source__vault_id")):
        found[link.source_id][1].append(link)
    return found


def note_backlinks(*, user: Requester, note: Note) -> QuerySet[Note]:
    """Live notes of the same vault that link here (those the user may read)."""
    return (
        Note.objects.filter(readable_notes(user), vault_id=note.vault_id, tier=Tier.HOT, outgoing_links__target=note)
        .exclude(pk=note.pk)
        .distinct()
        .order_by("path")
    )


def import_job_get(*, user: Requester, job_id: object) -> ImportJob:
    """An import job of a vault the user may read; 404 otherwise."""
    try:
        return ImportJob.objects.get(pk=int(str(job_id)), vault__in=vaults_for(user, "read"))
    except (ImportJob.DoesNotExist, ValueError) as exc:
        raise Http404("No import job matches the given query.") from exc


def note_metadata(*, note: Note) -> object | None:
    """The note's collision metadata (written by the Librarian), or None while it has none."""
    try:
        return note.metadata  # type: ignore[attr-defined]
    except ObjectDoesNotExist:
        return None


def correction_list(*, vault: Vault, status: str | None = None) -> QuerySet[Correction]:
    """Corrections of a vault the caller resolved with `vault_get(action="contribute")`."""
    rows = Correction.objects.filter(vault=vault).select_related("note", "successor", "proposed_by", "decided_by")
    return rows.filter(status=status) if status else rows


def correction_get(*, user: Requester, correction_id: object) -> Correction:
    """A correction in a vault the user may read (acting on it needs `contribute`); 404 otherwise."""
    try:
        return Correction.objects.select_related("note__vault").get(
            pk=int(str(correction_id)), vault__in=vaults_for(user, "read")
        )
    except (Correction.DoesNotExist, ValueError) as exc:
        raise Http404("No correction matches the given query.") from exc


def note_superseded(*, note: Note) -> list[dict[str, object]]:
    """The note's passages that applied corrections replaced, each with its successor (same vault)."""
    rows = Correction.objects.filter(note=note, vault_id=note.vault_id, status=CorrectionStatus.APPLIED)
    return [
        {"correction": c.pk, "passage": c.passage, "successor": {"id": c.successor_id, "path": c.successor.path}}
        for c in rows.select_related("successor")
        if c.successor is not None
    ]


def step_failure_list(*, user: Requester, vault_id: int) -> QuerySet[NoteStepFailure]:
    """The background steps that failed on notes of a vault the user may read (none otherwise), by step, newest
    failure first."""
    rows = NoteStepFailure.objects.filter(vault_id=vault_id, vault__in=vaults_for(user, "read"))
    return rows.select_related("note").order_by("step", "-failed_at", "id")


def attachment_list(*, user: Requester, vault_id: int, tier: str = Tier.HOT) -> QuerySet[Attachment]:
    """Attachments of a vault the user may read (none otherwise), by path."""
    rows = Attachment.objects.filter(vault_id=vault_id, vault__in=vaults_for(user, "read"), tier=tier)
    return rows.order_by("path")


def attachment_get(*, user: Requester, vault_id: object, path: str) -> Attachment:
    """The attachment at this path of a vault the user may read, hot or cold; 404 for missing and forbidden
    alike."""
    try:
        return Attachment.objects.get(vault_id=int(str(vault_id)), path=path, vault__in=vaults_for(user, "read"))
    except (Attachment.DoesNotExist, ValueError) as exc:
        raise Http404("No file matches the given query.") from exc


def attachment_data(*, attachment: Attachment) -> bytes:
    """The stored bytes of an attachment (read apart from its row, so listing and conditional requests never
    load them)."""
    data = AttachmentBlob.objects.filter(pk=attachment.blob_id, vault_id=attachment.vault_id).values_list(
        "data", flat=True
    )
    return bytes(data.get())


def attachment_for(*, vault_id: int, name: str, relative_to: str = "") -> Attachment | None:
    """The live attachment an embed or link in a note of this vault means, by Obsidian's rule: the exact path
    (case-insensitive), else the shortest path whose file name (or trailing folders and file name) matches, so
    `![[photo.png]]` finds `assets/photo.png`. `relative_to` is the linking note's path: a Markdown link such as
    `![](../img/photo.png)` is tried relative to the note's folder first. For a note already read with the
    permission check; None when nothing matches."""
    wanted = unquote(name.split("#", 1)[0].split("|", 1)[0]).strip().replace("\\", "/")
    if not wanted.strip("/"):
        return None
    live = Attachment.objects.filter(vault_id=vault_id, tier=Tier.HOT)
    tries = [wanted.lstrip("/")]
    if relative_to:
        tries.insert(0, posixpath.normpath(posixpath.join(posixpath.dirname(relative_to), wanted)))
    for path in tries:
        exact = live.filter(path=path).first() or live.filter(path__iexact=path).order_by("path").first()
        if exact is not None:
            return exact
    # `../assets/photo.png` and `./photo.png` name the file by their trailing folders and file name.
    tail = "/".join(part for part in wanted.lower().split("/") if part not in ("", ".", ".."))
    candidates = live.filter(name_key=tail.rsplit("/", 1)[-1])
    if "/" in tail:
        candidates = candidates.filter(path__iendswith=f"/{tail}")
    return candidates.order_by(Length("path"), "path").first()


def attachment_url(attachment: Attachment) -> str:
    """Where a reader's browser fetches the attachment's bytes (readers of its vault only)."""
    return reverse("attachment-file", kwargs={"vault_id": attachment.vault_id, "path": attachment.path})


def export_job_get(*, user: Requester, job_id: object) -> ExportJob:
    """An export of a vault the user manages; 404 otherwise (an export holds every note of its vault)."""
    try:
        return ExportJob.objects.select_related("vault").get(pk=int(str(job_id)), vault__in=vaults_for(user, "manage"))
    except (ExportJob.DoesNotExist, ValueError) as exc:
        raise Http404("No export matches the given query.") from exc


def draft_links(*, user: Requester, vault: Vault, note_id: int | None, links: Iterable[Link]) -> list[NoteLink]:
    """The links of a draft not yet saved (the editor's preview), each pointed at the live note of `vault` a save
    would point it at: by link key, or for a block reference by block id, the oldest note first. Unsaved rows
    (a new note has no id to be their source)."""
    links = list(links)
    names = sorted({link.target.lower() for link in links if link.target and link.kind != LinkKind.BLOCK})
    blocks = sorted({link.target for link in links if link.kind == LinkKind.BLOCK})
    by_name: dict[str, int] = {}
    by_block: dict[str, int] = {}
    if names or blocks:
        candidates = (
            Note.objects.filter(readable_notes(user), vault=vault, tier=Tier.HOT)
            .filter(Q(link_keys__overlap=names) | Q(block_ids__overlap=blocks))
            .order_by("pk")
            .values_list("pk", "link_keys", "block_ids")
        )
        for pk, keys, block_ids in candidates:
            for key in keys:
                by_name.setdefault(key, pk)
            for block_id in block_ids:
                by_block.setdefault(block_id, pk)
    rows = []
    for link in links:
        if link.kind == LinkKind.BLOCK:
            target = by_block.get(link.target)
        else:
            target = by_name.get(link.target.lower()) if link.target else note_id
        rows.append(
            NoteLink(
                vault_id=vault.pk,
                target_id=target,
                target_text=link.target,
                heading=link.heading,
                alias=link.alias,
                kind=link.kind,
                block_id=link.block_id,
            )
        )
    return rows
