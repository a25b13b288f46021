"""A model named `local/…` is one the project runs itself (a packaged model, or a model-free implementation of a slot),
never a provider's: it costs nothing and needs no key."""

from __future__ import annotations

LOCAL_PREFIX = "local/"


def is_local(name: str) -> bool:
    return name.startswith(LOCAL_PREFIX)
