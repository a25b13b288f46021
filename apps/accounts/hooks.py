"""What accounts let higher apps act on (see apps/core/hooks.py)."""

from apps.core.hooks import Hook

# An account was created (over the API, the admin or a command); receivers take `user=`.
user_created: Hook[..., object] = Hook("accounts.user_created")
