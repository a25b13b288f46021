"""The note that holds a summary node's text: written once under a free path, rewritten only when its text
changes (so a daily run that changes nothing writes nothing), and left alone once its owner deleted it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from apps.librarian.filing import unique_path
from apps.librarian.sources import note_sources_set
from apps.notes.markdown import frontmatter_block, parse_note
from apps.notes.models import LIBRARIAN_SOURCE, Note, Provenance, Tier
from apps.notes.services.notes import note_create, note_update, safe_name
from apps.vaults.models import Vault

FOLDER = "Librarian/Summaries"
NOTICE = "written by the DesirePath Librarian: a summary, not a person's record."


def free_path(vault: Vault, name: str) -> str:
    return unique_path(vault, name, folder=FOLDER, untitled="Summary")


def link_to(note: Note, title: str) -> str:
    return f"[[{note.path.removesuffix('.md')}|{safe_name(title) or 'summary'}]]"


def when(moment: datetime, fmt: str = "%Y-%m-%d %H:%M") -> str:
    return timezone.localtime(moment).strftime(fmt)


def frontmatter(fields: dict[str, Any]) -> str:
    return frontmatter_block(fields)


def summary_note_write(
    *, owner: User, vault: Vault, note: Note | None, name: str, body: str, drawn_from: list[int]
) -> Note:
    """The node's note, created under a free path or rewritten when its text changed. A note its owner moved to
    the cold tier stays there as they left it: the node and its pointers still grow. `drawn_from`: the vaults
    whose content the summary carries (kept current whatever happens to the text)."""
    if note is None:
        path = free_path(vault, name)
        return note_create(
            actor=owner,
            vault=vault,
            path=path,
            body=body,
            provenance=Provenance.SUMMARY,
            source=LIBRARIAN_SOURCE,
            drawn_from=drawn_from,
        )
    note_sources_set(note, sorted(set(drawn_from) - {vault.pk}))
    if note.tier == Tier.COLD or parse_note(note.path, body).content_hash == note.content_hash:
        return note
    return note_update(actor=owner, note=note, body=body)


def summary_lock(key: str) -> None:
    """Serialise the writers of one node for this transaction, without locking rows a chat turn updates."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"librarian.summary:{key}"])
