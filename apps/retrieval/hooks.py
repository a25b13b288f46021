"""What retrieval lets higher apps act on (see apps/core/hooks.py)."""

from apps.core.hooks import Hook

# A person searched (the search page or the API; not the searches an answer makes): `user_id=`, `query=`.
searched: Hook[..., object] = Hook("retrieval.searched")
