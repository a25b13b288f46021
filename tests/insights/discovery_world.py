"""A small vault for collisions and cards: ten notes on baking (close to each other in meaning) and one on
deploying software (far from all of them), with collision metadata written as the Librarian stores it."""

from __future__ import annotations

from django.utils import timezone

from apps.librarian.models import NoteMetadata
from apps.notes.models import Note
from apps.vaults.models import Vault
from tests.factories import make_note

BAKING = [
    ("Starter", "Feed the sourdough starter flour and water every morning so it stays lively."),
    ("Proofing", "Dough proofs faster in a warm kitchen, so shorten the rise on summer days."),
    ("Hydration", "Wetter dough gives an open crumb but needs stronger folding to hold its shape."),
    ("Scoring", "A deep slash with a razor lets the loaf expand in the oven without tearing."),
    ("Baking stone", "A preheated baking stone gives the bread a crisp bottom crust."),
    ("Salt", "Salt tightens gluten and slows fermentation, so add it after the autolyse."),
    ("Rye", "Rye flour ferments quickly and makes a dense, sour loaf."),
    ("Steam", "Steam in the first minutes of baking keeps the crust soft while the loaf rises."),
    ("Cooling", "Let the bread cool for an hour, or the crumb turns gummy when sliced."),
    ("Flour", "Strong bread flour with more protein builds the gluten a tall loaf needs."),
]
DEPLOY = ("Canary deploys", "Canary releases expose regressions to a handful of customers before everyone.")
DOMAIN = "quality control"


def metadata(note: Note, claim: str, domains: list[str], tensions: list[str] | None = None) -> None:
    """Collision metadata for the note, as the Librarian writes it (its own table, never the note's row)."""
    NoteMetadata.objects.update_or_create(
        note=note,
        defaults={
            "vault_id": note.vault_id,
            "core_claim": claim,
            "bridging_domains": domains,
            "tensions": tensions or [],
            "model": "test",
            "content_hash": note.content_hash,
            "written_at": timezone.now(),
        },
    )


def baking_and_deploys(vault: Vault) -> tuple[list[Note], Note]:
    """The ten baking notes and the deploy note, every one given the shared bridging domain."""
    baking = []
    for title, claim in BAKING:
        note = make_note(vault, f"baking/{title}.md", f"# {title}\n\n{claim}\n", embed=False)
        metadata(note, claim, [DOMAIN, "cooking and food"])
        baking.append(note)
    title, claim = DEPLOY
    deploy = make_note(vault, f"ops/{title}.md", f"# {title}\n\n{claim}\n", embed=True)  # embeds all pending
    metadata(deploy, claim, [DOMAIN, "software architecture"])
    return baking, deploy
