"""What accounts let higher apps act on (see apps/core/hooks.py)."""

from apps.core.hooks import Hook

# An account was created, whatever made it (fired when Django first saves it); receivers take `user=`.
user_created: Hook[..., object] = Hook("accounts.user_created")

# Which vaults may a token of `user` be limited to: receivers (the vault layer) return (id, name) pairs of the vaults
# `user` may read. Tokens live below the vaults, so they ask rather than import.
token_vault_choices: Hook[..., list[tuple[int, str]]] = Hook("accounts.token_vault_choices")

# Someone left a team or was removed from it (inside that transaction); receivers take `user=` and `actor=`. A vault
# role a team held because of them may rest on the membership that just ended.
team_membership_ended: Hook[..., object] = Hook("accounts.team_membership_ended")
