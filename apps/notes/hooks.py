"""What notes let higher apps act on (see apps/core/hooks.py)."""

from apps.core.hooks import Hook

# The last step of every import (worker, command, bootstrap), inside the import; receivers take `vault_id=`.
# The import stands whatever a receiver does: receivers catch their own failures and leave them to a sweep.
imported: Hook[..., object] = Hook("notes.imported")
# A sweep embedded notes of one vault (`vault_id=`) or of every vault (`vault_id=None`).
embedded: Hook[..., object] = Hook("notes.embedded")
