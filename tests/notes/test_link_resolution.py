"""A write re-resolves the links it can move: links naming a note follow it as it is created, renamed, retitled,
aliased, deleted, restored and purged, and links naming other notes stay where they point."""

from __future__ import annotations

import pytest

from apps.notes.models import Note, NoteLink
from apps.notes.services.notes import note_create, note_delete, note_purge, note_restore, note_update

pytestmark = pytest.mark.django_db

BLOCK = "64a1c2d3-0000-4000-8000-00000000abcd"


def targets(vault) -> dict[str, str | None]:
    """Each link's target text → the path of the note it resolves to (None: unresolved)."""
    links = NoteLink.objects.filter(vault=vault).select_related("target")
    return {link.target_text: link.target.path if link.target else None for link in links}


def test_links_follow_a_note_through_every_write(vault):
    owner = vault.owner
    write = lambda path, body: note_create(actor=owner, vault=vault, path=path, body=body)  # noqa: E731
    write("Hub.md", f"[[Draft]] [[Final]] [[Plan]] [[Other]] [[Nickname]] [[Spare]] (({BLOCK}))")
    other = write("Other.md", "# Other\n")
    assert targets(vault) == {
        "Draft": None,
        "Final": None,
        "Plan": None,
        "Other": "Other.md",
        "Nickname": None,
        "Spare": None,
        BLOCK: None,
    }

    draft = write("Draft.md", f"# Plan\n- a block\n  id:: {BLOCK}\n")  # named by its path, its title and a block
    assert targets(vault) == {
        "Draft": "Draft.md",
        "Final": None,
        "Plan": "Draft.md",
        "Other": "Other.md",
        "Nickname": None,
        "Spare": None,
        BLOCK: "Draft.md",
    }

    draft = note_update(actor=owner, note=draft, body="---\naliases: [Nickname]\n---\n# Spare\n", path="Final.md")
    assert targets(vault) == {
        "Draft": None,  # its old path, title and block no longer name it
        "Final": "Final.md",
        "Plan": None,
        "Other": "Other.md",
        "Nickname": "Final.md",
        "Spare": "Final.md",
        BLOCK: None,
    }

    # A second note taking a name keeps links where they were: the note that held it first still does.
    second = write("Second.md", "---\naliases: [Spare, Plan]\n---\nsecond\n")
    assert targets(vault)["Spare"] == "Final.md" and targets(vault)["Plan"] == "Second.md"

    note_delete(actor=owner, note=draft)
    assert targets(vault)["Final"] is None and targets(vault)["Nickname"] is None
    assert targets(vault)["Spare"] == "Second.md"  # the next note with the name
    note_restore(actor=owner, note=Note.objects.get(pk=draft.pk))
    assert targets(vault)["Final"] == "Final.md" and targets(vault)["Spare"] == "Final.md"

    note_delete(actor=owner, note=Note.objects.get(pk=draft.pk))
    note_purge(actor=owner, note=Note.objects.get(pk=draft.pk))
    assert targets(vault)["Final"] is None and targets(vault)["Spare"] == "Second.md"
    assert targets(vault)["Other"] == "Other.md" and other.pk == NoteLink.objects.get(target_text="Other").target_id

    # The note's own links are resolved on every write, including those naming itself.
    note_update(actor=owner, note=second, body="---\naliases: [Spare, Plan]\n---\n[[Second]] [[Other]] [[#Top]]\n")
    own = {link.target_text: link.target_id for link in NoteLink.objects.filter(source=second)}
    assert own == {"Second": second.pk, "Other": other.pk, "": second.pk}
