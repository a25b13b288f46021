"""Corrections of a passage someone was shown (the `correct` signal, DESIGN "Learning").

From a contributor the correction is applied at once: it becomes an authored note that supersedes the passage,
and the passage moves to the cold tier (no longer served; kept, with a pointer to its successor). From a reader it
waits as a proposal that the vault's contributors see and apply or decline."""

from __future__ import annotations

from pathlib import PurePosixPath

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from apps.audit.services import audit_record
from apps.notes.markdown import frontmatter_block
from apps.notes.models import Chunk, Correction, CorrectionStatus, Note, Tier
from apps.notes.services.notes import note_create, require, safe_name
from apps.vaults.permissions import user_may


def correction_submit(
    *, user: User, chunk: Chunk, text: str, feedback_id: int | None = None, propose: bool = False
) -> Correction:
    """Record a correction of `chunk`: applied when `user` contributes to its vault (unless they `propose` it for
    review), else proposed."""
    text = text.strip()
    if not text:
        raise ValidationError({"text": ["a correction needs the corrected text"]})
    with transaction.atomic():
        correction = Correction.objects.create(
            vault_id=chunk.vault_id,
            note_id=chunk.note_id,
            content_hash=chunk.content_hash,
            passage=chunk.text,
            text=text,
            proposed_by=user,
            feedback_id=feedback_id,
        )
        # In an archived vault a contributor's correction waits as a proposal, like a reader's.
        if not propose and user_may(user, "contribute", chunk.note.vault) and chunk.note.vault.archived_at is None:
            return correction_apply(actor=user, correction=correction)
        audit_record(
            actor=user,
            action="correction.propose",
            object_type="correction",
            object_id=correction.pk,
            vault_id=chunk.vault_id,
            changes={"note": chunk.note_id},
        )
    return correction


def _successor_path(note: Note, correction: Correction) -> str:
    stem = safe_name(PurePosixPath(note.path).stem) or "note"
    return f"corrections/{stem} (correction {correction.pk}).md"


def _successor_body(note: Note, correction: Correction, actor: User) -> str:
    who = {"corrected_by": actor.get_username()}
    if correction.proposed_by_id and correction.proposed_by_id != actor.pk:
        who["proposed_by"] = correction.proposed_by.get_username()  # type: ignore[union-attr]
    # What it replaces is a property (a link, as Obsidian shows one): a sentence saying so in the body would be a
    # passage, searched and quoted as if it were the correction.
    target = note.path.removesuffix(".md")
    return frontmatter_block({"supersedes": f"[[{target}]]", **who}) + (
        f"# Correction: {note.title}\n\n{correction.text}\n"
    )


@transaction.atomic
def correction_apply(*, actor: User, correction: Correction) -> Correction:
    """Write the successor note (authored by `actor`, a contributor) and move the passage to the cold tier."""
    correction = (
        Correction.objects.select_for_update(of=("self",))
        .select_related("note__vault", "proposed_by")
        .get(pk=correction.pk)
    )
    require(actor, "contribute", correction.note.vault)
    if correction.status != CorrectionStatus.PROPOSED:
        raise ValidationError({"detail": [f"this correction is {correction.status} already"]})
    note = Note.objects.select_for_update().select_related("vault").get(pk=correction.note_id)  # no re-chunk meanwhile
    if not Chunk.objects.filter(note=note, content_hash=correction.content_hash).exists():
        raise ValidationError({"detail": ["the passage has changed since it was shown; correct the note itself"]})
    successor = note_create(
        actor=actor,
        vault=note.vault,
        path=_successor_path(note, correction),
        body=_successor_body(note, correction, actor),
    )
    Chunk.objects.filter(note_id=note.pk, content_hash=correction.content_hash).update(tier=Tier.COLD)
    correction.status = CorrectionStatus.APPLIED
    correction.successor = successor
    correction.decided_by = actor
    correction.decided_at = timezone.now()
    correction.save(update_fields=["status", "successor", "decided_by", "decided_at"])
    audit_record(
        actor=actor,
        action="correction.apply",
        object_type="correction",
        object_id=correction.pk,
        vault_id=note.vault_id,
        changes={"note": note.pk, "successor": successor.pk},
    )
    return correction


@transaction.atomic
def correction_decline(*, actor: User, correction: Correction) -> Correction:
    correction = Correction.objects.select_for_update(of=("self",)).select_related("note__vault").get(pk=correction.pk)
    require(actor, "contribute", correction.note.vault)
    if correction.status != CorrectionStatus.PROPOSED:
        raise ValidationError({"detail": [f"this correction is {correction.status} already"]})
    return _decided(correction, actor=actor, status=CorrectionStatus.DECLINED, action="correction.decline")


@transaction.atomic
def correction_withdraw(*, actor: User, correction: Correction) -> Correction:
    """The proposer takes back a correction nobody has decided on yet (its vote was undone or replaced)."""
    correction = Correction.objects.select_for_update().get(pk=correction.pk)
    if correction.proposed_by_id != actor.pk:
        raise ValidationError({"detail": ["only its proposer withdraws a correction"]})
    if correction.status != CorrectionStatus.PROPOSED:
        raise ValidationError({"detail": [f"this correction is {correction.status} already"]})
    return _decided(correction, actor=actor, status=CorrectionStatus.WITHDRAWN, action="correction.withdraw")


def _decided(correction: Correction, *, actor: User, status: str, action: str) -> Correction:
    """A proposed correction closed without touching its note (declined, withdrawn); audited."""
    correction.status = status
    correction.decided_by = actor
    correction.decided_at = timezone.now()
    correction.save(update_fields=["status", "decided_by", "decided_at"])
    audit_record(
        actor=actor,
        action=action,
        object_type="correction",
        object_id=correction.pk,
        vault_id=correction.vault_id,
        changes={"note": correction.note_id},
    )
    return correction
