"""Which vaults a note the Librarian writes carries content from (`Note.drawn_from`).

An answer is written from the context that passed the gate, so what is filed or summarised from it carries those
passages' vaults, and, when a passage was itself a derived note, that note's own sources. The note's home vault is
left out: reading the note already requires it. Readers lose the note when they lose any of these vaults."""

from __future__ import annotations

from collections.abc import Iterable

from apps.chat.models import ContextItem, Message
from apps.notes.models import Note


def drawn_from_messages(messages: Iterable[Message], *, home: int) -> list[int]:
    """The vaults the answers among `messages` drew on (survived, non-speculative context and its sources)."""
    items = ContextItem.objects.filter(message__in=[m.pk for m in messages], survived=True, speculative=False)
    vaults: set[int] = set()
    notes: set[int] = set()
    for vault_id, note_id, sources in items.values_list("vault_id", "note_id", "sources"):
        vaults.add(vault_id)
        if note_id is not None:
            notes.add(note_id)
        for source in sources or []:
            if isinstance(source, dict) and isinstance(source.get("vault"), int):
                vaults.add(source["vault"])
            if isinstance(source, dict) and isinstance(source.get("note"), int):
                notes.add(source["note"])
    for carried in Note.objects.filter(pk__in=notes).exclude(drawn_from=[]).values_list("drawn_from", flat=True):
        vaults.update(carried)
    vaults.discard(home)
    return sorted(vaults)


def drawn_from_notes(notes: Iterable[Note], *, home: int) -> list[int]:
    """The union of the notes' own sources (a summary of summaries carries all of theirs)."""
    vaults = {v for note in notes for v in note.drawn_from}
    vaults.discard(home)
    return sorted(vaults)


def note_sources_set(note: Note, vaults: list[int]) -> Note:
    """Record what a Librarian note carries; an UPDATE of this column alone never moves its content time."""
    if sorted(note.drawn_from) != vaults:
        Note.objects.filter(pk=note.pk).update(drawn_from=vaults)
        note.drawn_from = vaults
    return note
