"""Pages of a vault's notes: the vault (notes, imports, proposed corrections), a note, an import; and the bytes of
a vault's attachments."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from csp.constants import SELF
from csp.decorators import csp_replace
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import get_conditional_response
from django.utils.http import content_disposition_header
from django.utils.safestring import mark_safe
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_POST, require_safe
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from apps.accounts.authentication import ApiTokenAuthentication
from apps.core.auth import actor
from apps.core.exceptions import messages_of
from apps.notes import selectors as note_selectors
from apps.notes.coverage import STATES, import_coverage
from apps.notes.followup import JobStatus, import_job_follow_up, job_progress
from apps.notes.markdown import opening_heading
from apps.notes.media import ATTACHMENT_EXTENSIONS, extension_of, shown_inline
from apps.notes.models import ImportJob, ImportStatus, LinkKind, NoteLink, NoteStepFailure, Tier
from apps.notes.rendering import RenderedNote, render_note
from apps.notes.rendering.embeds import note_body
from apps.notes.services.corrections import correction_apply, correction_decline
from apps.notes.services.embedding_switch import embedding_switches
from apps.notes.services.export import export_job_create, export_size
from apps.notes.services.ingest import (
    MARKDOWN_SUFFIXES,
    import_job_from_upload,
    import_source_available,
    upload_label_is_its_name,
)
from apps.notes.services.notes import note_restore
from apps.notes.services.recovery import import_job_retry
from apps.notes.syntax import prose_only
from apps.notes.text import readable_text
from apps.notes.tree import folder_tree
from apps.vaults.permissions import role_of, user_may
from apps.vaults.selectors import vault_get

NOTES_SHOWN = 2000  # a vault page lists this many notes at most; the filter finds the rest


@dataclass(frozen=True)
class ListedLink:
    target_id: int
    name: str  # as a reader knows the note (a Logseq page by its page name)
    heading: str


def _listed_links(links: list[NoteLink]) -> list[ListedLink]:
    """The notes a note links to, each (and each heading of it) once, by the name its page shows."""
    listed: dict[tuple[int, str], ListedLink] = {}
    for link in links:
        if link.target is not None and (link.target.pk, link.heading) not in listed:
            listed[(link.target.pk, link.heading)] = ListedLink(link.target.pk, link.target.title, link.heading)
    return list(listed.values())


@login_required
def note_page(request: HttpRequest, note_id: int) -> HttpResponse:
    note = note_selectors.note_get(user=request.user, note_id=note_id)
    links = list(note_selectors.note_links(note=note))
    rendered = render_note(note, links, reader=request.user)
    role = role_of(request.user, note.vault)
    body = note_body(note.body)
    name = note.title
    # A block reference names a block, not a page: one no note holds shows as such on the page, and is no page to write.
    unresolved = [
        link
        for link in links
        if link.target_id is None and link.kind != LinkKind.BLOCK and not _names_a_file(link, rendered)
    ]
    return render(
        request,
        "note.html",
        {
            "note": note,
            "page_name": name,
            "shows_title": not _opens_with(name, body),
            "body_html": mark_safe(rendered.html),  # noqa: S308 - markdown-it with raw HTML disabled
            "has_body": bool(rendered.html.strip()),
            "has_math": rendered.has_math,
            "has_diagrams": rendered.has_diagrams,
            "properties": rendered.properties,
            "links": _listed_links(links),
            "backlinks": note_selectors.note_backlinks(user=actor(request), note=note),
            "unresolved": [link for link in unresolved if not _is_file_name(link.target_text)],
            "missing_files": [link for link in unresolved if _is_file_name(link.target_text)],
            "metadata": _as_shown(note_selectors.note_metadata(note=note)),
            "superseded": note_selectors.note_superseded(note=note),
            # An archived vault is read-only for every role: its pages offer no change until it is brought back.
            "may_contribute": role in ("contributor", "manager") and note.vault.archived_at is None,
            "may_manage": role == "manager" and note.vault.archived_at is None,
        },
    )


def _as_shown(metadata: Any) -> Any:
    """The Librarian's metadata as the page shows it: its claim and tensions as text. What a model wrote, or an
    earlier Librarian stored, can hold Markdown the page would show as marks."""
    if metadata is None:
        return None
    shown = copy.copy(metadata)
    shown.core_claim = readable_text(metadata.core_claim)
    shown.tensions = [text for text in map(readable_text, metadata.tensions) if text]
    return shown


def _names_a_file(link: NoteLink, rendered: RenderedNote) -> bool:
    """A link to a file of the vault points at no note, yet it resolves."""
    return link.target_text.lower() in rendered.files


def _is_file_name(target: str) -> bool:
    """Whether a link names a file (`Places.base`, `x.canvas`, `photo.png`) rather than a note, by its extension as
    Obsidian decides: one that finds no file is a missing file, never a note someone could write."""
    return extension_of(target) in ATTACHMENT_EXTENSIONS


def _opens_with(name: str, body: str) -> bool:
    """Whether the note's text opens with a level-1 heading saying its name: the page then shows that heading as its
    title rather than a second one above it."""
    return " ".join(opening_heading(prose_only(body)).split()).casefold() == " ".join(name.split()).casefold()


@login_required
def vault_page(request: HttpRequest, vault_id: int) -> HttpResponse:
    """A vault's notes as a folder tree (`?filter=` narrows it by title or path, `?tier=cold` shows the notes deleted
    to the cold tier, which managers restore) and its imports; contributors upload a zip here (the import runs in
    the worker) and apply or decline the corrections readers proposed."""
    vault = vault_get(user=request.user, vault_id=vault_id)
    role = role_of(request.user, vault)
    error = ""
    tier = Tier.COLD if request.GET.get("tier") == "cold" else Tier.HOT
    shown = request.GET.get("filter", "").strip()[:200]
    if request.method == "POST":
        try:
            user = actor(request)
            if "restore" in request.POST:  # a manager brings a note back from the cold tier
                note = note_selectors.note_get(user=user, note_id=request.POST["restore"])
                if note.vault_id != vault.pk:
                    raise Http404("No note matches the given query.")
                note_restore(actor=user, note=note)
                return redirect(f"{reverse('vault-page', args=[vault.pk])}?tier=cold")
            if "correction" in request.POST:  # a contributor applies or declines a reader's proposal
                correction = note_selectors.correction_get(user=user, correction_id=request.POST["correction"])
                if correction.vault_id != vault.pk:
                    raise Http404("No correction matches the given query.")
                actions = {"apply": correction_apply, "decline": correction_decline}
                if request.POST.get("action") not in actions:
                    raise ValidationError({"action": ["apply or decline"]})
                actions[request.POST["action"]](actor=user, correction=correction)
                return redirect("vault-page", vault_id=vault.pk)
            job = import_job_from_upload(actor=user, vault=vault, upload=request.FILES.get("file"))
            return redirect("job-page", job_id=job.pk)
        except ValidationError as exc:
            error = messages_of(exc)
        except PermissionDenied as exc:
            error = str(exc)
    notes = note_selectors.note_list(user=actor(request), vault=vault, tier=tier)
    if shown:
        notes = notes.filter(Q(title__icontains=shown) | Q(path__icontains=shown))
    return render(
        request,
        "vault.html",
        {
            "vault": vault,
            "role": role,
            "error": error,
            "tree": folder_tree(notes[:NOTES_SHOWN], open_depth=99 if shown else 1),
            "shown_count": notes.count(),
            "filter": shown,
            "cold": tier == Tier.COLD,
            "hot_count": note_selectors.note_list(user=actor(request), vault=vault).count(),
            "cold_count": note_selectors.note_list(user=actor(request), vault=vault, tier=Tier.COLD).count(),
            "jobs": [
                (job, _source_name(job), import_job_follow_up(job).label)
                for job in vault.import_jobs.select_related("created_by")[:10]
            ],
            "failures": _failures_by_step(note_selectors.step_failure_list(user=actor(request), vault_id=vault.pk)),
            "embedding_models": embedding_switches(vault_id=vault.pk),
            "export_inline": role == "manager" and export_size(vault=vault) <= int(settings.EXPORT_INLINE_MAX_BYTES),
            "proposals": note_selectors.correction_list(vault=vault, status="proposed")[:50]
            if role != "reader"
            else [],
        },
    )


@login_required
@require_safe
def coverage_page(request: HttpRequest, vault_id: int) -> HttpResponse:
    """Every file the vault's imports read, with its state now and when it was last imported; `?state=` narrows."""
    vault = vault_get(user=request.user, vault_id=vault_id)
    coverage = import_coverage(user=request.user, vault_id=vault.pk)
    shown = request.GET.get("state", "")
    files = [f for f in coverage.files if f.state == shown] if shown in STATES else coverage.files
    return render(
        request,
        "coverage.html",
        {"vault": vault, "counts": coverage.counts, "files": files[:5000], "total": len(files), "state": shown},
    )


@login_required
@require_POST
def export_start(request: HttpRequest, vault_id: int) -> HttpResponse:
    """A manager exports the vault in the worker; the export's page follows it to its download."""
    vault = vault_get(user=request.user, vault_id=vault_id, action="manage")
    return redirect("export-page", export_id=export_job_create(actor=actor(request), vault=vault).pk)


@login_required
@require_safe
def export_page(request: HttpRequest, export_id: int) -> HttpResponse:
    """An export's status, refreshed while the worker builds it, then the link to its zip."""
    job = note_selectors.export_job_get(user=request.user, job_id=export_id)
    refresh = job.status in (ImportStatus.QUEUED, ImportStatus.RUNNING)
    return render(request, "export.html", {"job": job, "refresh": refresh, "ready": job.archive is not None})


# What each of an import's counts counts, as its page says it.
COUNT_WORDS = {
    "created": "Files created",
    "updated": "Files updated",
    "unchanged": "Files unchanged",
    "skipped": "Files skipped",
    "moved_to_cold": "Moved to the cold tier",
    "chunks_embedded": "Passages embedded",
}


def _counts_shown(counts: dict[str, int]) -> list[tuple[str, int]]:
    return [(COUNT_WORDS.get(key, key.replace("_", " ").capitalize()), value) for key, value in counts.items()]


def _source_name(job: ImportJob) -> str:
    """What an import read, as its requester named it: the uploaded file's name as uploaded, after the label an
    upload was given when it differs (`team notes (export.zip)`); a folder's label. A source is labelled with its
    requester's name first (`ingest.import_job_create`)."""
    requester = job.created_by.get_username() if job.created_by else ""
    label = job.source.removeprefix(f"{requester}/") if requester else job.source
    if job.file_name:
        return job.file_name if upload_label_is_its_name(label, job.file_name) else f"{label} ({job.file_name})"
    # a folder, or an upload whose file's name was not kept: its label is the zip's name without `.zip`
    return label if job.folder or label.lower().endswith((*MARKDOWN_SUFFIXES, ".zip")) else f"{label}.zip"


def _failures_by_step(rows: Iterable[NoteStepFailure]) -> list[dict[str, Any]]:
    """Failures grouped under their step's label, in the selector's order."""
    groups: dict[str, list[NoteStepFailure]] = {}
    for row in rows:
        groups.setdefault(row.get_step_display(), []).append(row)
    return [{"label": label, "count": len(items), "rows": items[:100]} for label, items in groups.items()]


@login_required
def job_page(request: HttpRequest, job_id: int) -> HttpResponse:
    """An import's progress and outcomes; a contributor retries a failed import whose files are still there."""
    job = note_selectors.import_job_get(user=request.user, job_id=job_id)
    error = ""
    if request.method == "POST" and "retry" in request.POST:
        try:
            import_job_retry(actor=actor(request), job=job)
            return redirect("job-page", job_id=job.pk)
        except ValidationError as exc:
            error = messages_of(exc)
        except PermissionDenied as exc:
            error = str(exc)
    follow_up = import_job_follow_up(job)
    return render(
        request,
        "job.html",
        {
            "job": job,
            "error": error,
            "retry": job.status == ImportStatus.FAILED
            and import_source_available(job)
            and user_may(request.user, "contribute", job.vault),  # type: ignore[arg-type]
            "follow_up": follow_up,
            "refresh": follow_up.status in (JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.FOLLOWING_UP),
            "percent": int(100 * job_progress(job)),
            "files": job.outcomes()[:2000],
            "source_name": _source_name(job),
            "counts": _counts_shown(job.counts),
        },
    )


# A file shown in place still may not run script, load anything or reach our origin's cookies (SVG, text).
DOWNLOAD_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox"


@require_safe
@xframe_options_sameorigin  # a note's page shows a PDF in a frame; no other site may
@csp_replace({"frame-ancestors": [SELF]})  # type: ignore[arg-type]  # django-csp types views as (request) only
def attachment_file(request: HttpRequest, vault_id: int, path: str) -> HttpResponseBase:
    """The bytes of an attachment, to readers of its vault only (404 for anyone else, as for a missing file),
    with the media type sniffed when it was stored. Images and PDFs are shown in place; anything else, SVG
    included, is downloaded. The ETag is the content hash, so a browser revalidates without the bytes."""
    user = _requester(request)
    if user is None:
        return redirect_to_login(request.get_full_path())
    attachment = note_selectors.attachment_get(user=user, vault_id=vault_id, path=path)
    etag = f'"{attachment.content_hash}"'
    response = get_conditional_response(request, etag=etag)
    if response is None:
        data = note_selectors.attachment_data(attachment=attachment)
        response = HttpResponse(data, content_type=attachment.media_type)
        inline = shown_inline(attachment.media_type)
        file_name = attachment.path.rsplit("/", 1)[-1]
        response["Content-Disposition"] = content_disposition_header(not inline, file_name) or "attachment"
        if not inline:
            response["Content-Security-Policy"] = DOWNLOAD_POLICY
    response["ETag"] = etag
    response["X-Content-Type-Options"] = "nosniff"
    # Readers only, and a share can be revoked: never from a shared cache, always revalidated.
    response["Cache-Control"] = "private, no-cache"
    return response


def _requester(request: HttpRequest) -> User | None:
    """The signed-in person, or an API client's token (the API lists attachments with this URL)."""
    if isinstance(request.user, User) and request.user.is_authenticated:
        return request.user
    try:
        found = ApiTokenAuthentication().authenticate(Request(request))
    except AuthenticationFailed:
        return None
    if found is None:
        return None
    request.user = found[0]  # what the database shows this request follows the token's person
    return found[0]
