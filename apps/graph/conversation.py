"""Conversation structure in the graph: who speaks in a passage (`Mention.said`) and which turn a turn answers
(`Reply`). A turn is a passage that opens with a speaker line in a note that is a conversation (`is_turn`).
Within a note each turn answers the turn before it; when every turn is a note of its own, a folder's notes in natural
order ("D1-2" before "D1-10") are the conversation. Anything that is not a turn breaks the thread."""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.db import transaction
from django.db.models import Q

from apps.graph.extract import key_of
from apps.graph.models import Entity, EntityKind, Reply
from apps.notes.models import Chunk, Note, Tier
from apps.notes.turns import SPEAKER, is_turn, speakers


def speakers_of(text: str, spoken_by: set[str]) -> set[str]:
    """The entity keys of everyone who speaks in a passage, given who speaks in its note (`speakers`)."""
    return {key_of(name) for name in SPEAKER.findall(text) if name in spoken_by}


def speakers_in(vault_ids: Iterable[int]) -> list[str]:
    """The names of the people who speak in these vaults' passages, as the graph recorded them."""
    people = Entity.objects.filter(vault_id__in=list(vault_ids), kind=EntityKind.PERSON, mentions__said=True)
    return sorted(set(people.values_list("name", flat=True)))


def folder_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _natural(path: str) -> list[tuple[int, int | str]]:
    return [(0, int(part)) if part.isdigit() else (1, part.lower()) for part in re.split(r"(\d+)", path)]


def neighbours_of(*, chunk_id: int, vault_id: int) -> list[tuple[int, str]]:
    """The live turns next to a turn in its conversation (the one it answers, the one that answers it), as the
    (note, content hash) a learned value is keyed by; only the vault's own."""
    pairs = Reply.objects.filter(vault_id=vault_id).filter(Q(chunk_id=chunk_id) | Q(answers_id=chunk_id))
    ids = {pk for pair in pairs.values_list("chunk_id", "answers_id") for pk in pair} - {chunk_id}
    live = Chunk.objects.filter(pk__in=ids, vault_id=vault_id, tier=Tier.HOT).order_by("id")
    return list(live.values_list("note_id", "content_hash"))


def replies_refresh(*, vault_id: int, folders: set[str]) -> int:
    """Recompute which turn answers which in these folders of a vault; returns the replies written."""
    notes = [
        (pk, path)
        for pk, path in Note.objects.filter(vault_id=vault_id, tier=Tier.HOT).values_list("id", "path")
        if folder_of(path) in folders
    ]
    chunks: dict[int, list[tuple[int, str]]] = {}
    rows = Chunk.objects.filter(note_id__in=[pk for pk, _ in notes], tier=Tier.HOT).order_by("note_id", "ordinal")
    for chunk, note, text in rows.values_list("id", "note_id", "text"):
        chunks.setdefault(note, []).append((chunk, text))
    replies: list[Reply] = []
    by_folder: dict[str, list[tuple[int, str]]] = {}
    for pk, path in notes:
        by_folder.setdefault(folder_of(path), []).append((pk, path))
    for members in by_folder.values():
        previous: int | None = None
        for pk, _ in sorted(members, key=lambda m: _natural(m[1])):
            spoken_by = speakers("\n".join(text for _, text in chunks.get(pk, [])))
            for chunk, text in chunks.get(pk, []):
                if not is_turn(text, spoken_by):
                    previous = None
                    continue
                if previous is not None:
                    replies.append(Reply(vault_id=vault_id, chunk_id=chunk, answers_id=previous))
                previous = chunk
    with transaction.atomic():
        Reply.objects.filter(vault_id=vault_id, chunk__note_id__in=[pk for pk, _ in notes]).delete()
        Reply.objects.bulk_create(replies, ignore_conflicts=True)
    return len(replies)
