"""The note editor in the browser: contributors write a new note or rewrite one (its path, its Markdown, a preview
drawn by the note page's renderer) and delete a note to the cold tier; managers restore it.

A save names the version of the note the writer loaded: a note changed meanwhile is never overwritten. The save is
refused, the writer's text stays in the editor and the current text is shown beside it."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_http_methods, require_POST

from apps.core.auth import actor
from apps.core.exceptions import Conflict, messages_of
from apps.notes import selectors as note_selectors
from apps.notes.models import Note, Tier
from apps.notes.rendering import RenderedNote, render_note
from apps.notes.services.notes import (
    NoteChanged,
    normalize_path,
    note_create,
    note_delete,
    note_restore,
    note_update,
    note_version,
    parse_or_400,
)
from apps.vaults.models import Vault
from apps.vaults.permissions import require_unarchived, user_may
from apps.vaults.selectors import vault_get

TITLES_OFFERED = 5000  # wikilink completion offers at most this many of the vault's titles


@dataclass(frozen=True)
class Draft:
    """What the editor holds: the path and text being written, and the version of the note they were loaded from
    ("" for a new note)."""

    path: str
    body: str
    version: str = ""


def _draft_posted(request: HttpRequest) -> Draft:
    # A browser sends a textarea's line breaks as CRLF; notes keep the LF they were written with.
    body = request.POST.get("body", "").replace("\r\n", "\n")
    return Draft(path=request.POST.get("path", ""), body=body, version=request.POST.get("version", ""))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def note_new_page(request: HttpRequest, vault_id: int) -> HttpResponse:
    """A new note in the vault (contributors); `?path=` fills in its path."""
    user = actor(request)
    vault = vault_get(user=user, vault_id=vault_id, action="contribute")
    if request.method != "POST":
        require_unarchived(vault)
        return _editor(request, vault=vault, note=None, draft=Draft(path=request.GET.get("path", "")[:500], body=""))
    draft = _draft_posted(request)
    if request.POST.get("action") == "preview":
        return _editor(request, vault=vault, note=None, draft=draft, preview=True)
    try:
        note = note_create(actor=user, vault=vault, path=draft.path, body=draft.body)
    except ValidationError as exc:
        return _editor(request, vault=vault, note=None, draft=draft, error=messages_of(exc), status=_status(exc))
    return redirect("note-page", note_id=note.pk)


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def note_edit_page(request: HttpRequest, note_id: int) -> HttpResponse:
    """A note rewritten or moved (a new path; links to it follow) by a contributor, with the version they loaded."""
    user = actor(request)
    note = note_selectors.note_get(user=user, note_id=note_id)
    if not user_may(user, "contribute", note.vault):
        raise PermissionDenied("your role on this vault does not allow 'contribute'")
    if request.method != "POST":
        require_unarchived(note.vault)
        draft = Draft(path=note.path, body=note.body, version=note_version(note))
        return _editor(request, vault=note.vault, note=note, draft=draft)
    draft = _draft_posted(request)
    if request.POST.get("action") == "preview":
        return _editor(request, vault=note.vault, note=note, draft=draft, preview=True)
    try:
        path = normalize_path(draft.path)  # an empty path is an error here, never "keep the old one"
        note = note_update(actor=user, note=note, path=path, body=draft.body, if_version={draft.version})
    except NoteChanged as conflict:
        current = conflict.current
        if current.tier == Tier.COLD:
            message = "Not saved: this note was deleted to the cold tier meanwhile. Your text is still here."
            return _editor(request, vault=current.vault, note=current, draft=draft, error=message, current=current)
        # Having seen the current text, the writer may save again on purpose: that save replaces this version.
        message = (
            "Not saved: someone changed this note since you opened it. Your text is still in the editor, with the "
            "note as it is now beside it; take what you need from it, then save again to replace it."
        )
        draft = replace(draft, version=note_version(current))
        return _editor(request, vault=current.vault, note=current, draft=draft, error=message, current=current)
    except ValidationError as exc:
        return _editor(request, vault=note.vault, note=note, draft=draft, error=messages_of(exc), status=_status(exc))
    return redirect("note-page", note_id=note.pk)


def _status(refusal: ValidationError) -> int:
    # The draft comes back in the editor either way; a refusal by the vault's state says so in its status.
    return 409 if isinstance(refusal, Conflict) else 200


@login_required
@require_POST
def note_delete_page(request: HttpRequest, note_id: int) -> HttpResponse:
    """A contributor moves a note to the cold tier; its page then says so, and a manager can restore it there."""
    user = actor(request)
    note = note_delete(actor=user, note=note_selectors.note_get(user=user, note_id=note_id))
    return redirect("note-page", note_id=note.pk)


@login_required
@require_POST
def note_restore_page(request: HttpRequest, note_id: int) -> HttpResponse:
    """A manager brings a note back from the cold tier."""
    user = actor(request)
    note = note_restore(actor=user, note=note_selectors.note_get(user=user, note_id=note_id))
    return redirect("note-page", note_id=note.pk)


def _editor(
    request: HttpRequest,
    *,
    vault: Vault,
    note: Note | None,
    draft: Draft,
    error: str = "",
    preview: bool = False,
    current: Note | None = None,
    status: int = 200,
) -> HttpResponse:
    rendered = None
    if preview:
        try:
            rendered = _preview(request, vault=vault, note=note, draft=draft)
        except ValidationError as exc:
            error = messages_of(exc)
    user = actor(request)
    titles = note_selectors.note_list(user=user, vault=vault).order_by("title").values_list("title", flat=True)
    return render(
        request,
        "note_edit.html",
        {
            "vault": vault,
            "note": note,
            "draft": draft,
            "error": error,
            "current": current,
            "preview_html": mark_safe(rendered.html) if rendered else "",  # noqa: S308 - raw HTML disabled
            "has_math": rendered is not None and rendered.has_math,
            "has_diagrams": rendered is not None and rendered.has_diagrams,
            "titles": list(dict.fromkeys(titles[:TITLES_OFFERED])),
            "may_manage": note is not None and note.tier == Tier.COLD and user_may(user, "manage", vault),
        },
        status=status,
    )


def _preview(request: HttpRequest, *, vault: Vault, note: Note | None, draft: Draft) -> RenderedNote:
    """The draft as its page would show it once saved, links resolved in the vault as a save resolves them."""
    parsed = parse_or_400(normalize_path(draft.path), draft.body)
    note_id = note.pk if note is not None else None
    unsaved = Note(pk=note_id, vault=vault, path=parsed.path, body=parsed.body)
    links = note_selectors.draft_links(user=actor(request), vault=vault, note_id=note_id, links=parsed.links)
    return render_note(unsaved, links, reader=actor(request))
