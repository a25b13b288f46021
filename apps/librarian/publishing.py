"""Publishing a filed note (or a blend, which stays a proposal): its owner, a contributor of a shared vault, copies
it there; the audit log records it.
Filed notes stay in the personal vault until someone chooses to share them. The copy carries the vaults its
original drew on, so it follows their permissions in the shared vault too, and publishing re-checks that the
publisher still reads every one of them (a note they can no longer read is the 404 of a missing one)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404

from apps.audit.services import audit_record
from apps.librarian.filing import unique_path
from apps.notes.models import LIBRARIAN_SOURCE, Note, Provenance
from apps.notes.references import links_within_its_vault_as_text
from apps.notes.services.notes import note_create
from apps.vaults.models import Vault
from apps.vaults.permissions import user_may, vault_ids_for


@transaction.atomic
def note_publish(*, actor: User, note: Note, vault: Vault) -> Note:
    if note.vault.owner_id != actor.pk or not note.vault.is_personal:
        raise PermissionDenied("only notes filed in your own personal vault can be published")
    if note.provenance not in (Provenance.SUMMARY, Provenance.PROPOSAL):
        raise ValidationError({"note": ["only notes the Librarian filed or DesirePath blended are published this way"]})
    if vault.is_personal:
        raise ValidationError({"vault": ["publish into a shared vault"]})
    if not user_may(actor, "contribute", vault):
        raise PermissionDenied("your role on that vault does not allow writing notes")
    # read now, in this transaction: a role lost since the note was fetched stops the copy
    if not set(note.drawn_from) <= set(vault_ids_for(actor, "read")):
        raise Http404("No note matches the given query.")
    title = note.title or note.path.rsplit("/", 1)[-1].removesuffix(".md")
    copy = note_create(
        actor=actor,
        vault=vault,
        path=unique_path(vault, title),
        body=links_within_its_vault_as_text(note),  # the personal vault's notes are not where the copy goes
        provenance=note.provenance,  # a published blend is still a proposal
        source=LIBRARIAN_SOURCE,
        drawn_from=note.drawn_from,
    )
    audit_record(
        actor=actor,
        action="note.publish",
        object_type="note",
        object_id=copy.pk,
        vault_id=vault.pk,
        changes={
            "from_note": note.pk,
            "from_vault": note.vault_id,
            "path": copy.path,
            "drawn_from": copy.drawn_from,
        },
    )
    return copy
