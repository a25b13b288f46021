"""What notes let higher apps act on (see apps/core/hooks.py)."""

from apps.core.hooks import Hook

# The last step of every import (worker, command, bootstrap), inside the import; receivers take `vault_id=`. They
# queue the vault's follow-up steps (graph extraction, metadata) and never fail the import: a sweep catches up.
imported: Hook[..., object] = Hook("notes.imported")
# Notes of one vault (`vault_id`) were embedded after a write, or a sweep embedded every vault (`vault_id=None`).
embedded: Hook[..., object] = Hook("notes.embedded")
# How far a higher app's follow-up step is for some notes of a vault: receivers take `vault_id=` and `note_ids=`
# and return `(step, waiting)`, a `NoteStep` value and how many of those notes still wait for it (notes the step
# failed on are not waiting: their failure is recorded).
steps_waiting: Hook[..., tuple[str, int]] = Hook("notes.steps_waiting")
