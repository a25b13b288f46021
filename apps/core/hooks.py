"""Hooks: how a lower app lets a higher one act without importing it.

The apps form layers (docs/architecture.md); an app imports only the apps below it. When something in a lower app
must set off work in a higher one (an import queues graph extraction, a search teaches chat's learning), the lower
app declares a hook in its `hooks.py` and calls it; the higher app subscribes in its `AppConfig.ready`.

A hook holds its receivers strongly and in subscription order, and a receiver's error reaches the caller: unlike a
Django signal, nothing is silently dropped or garbage-collected.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Generic, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class Hook(Generic[P, R]):
    """A named point that higher apps subscribe to; calling it calls each receiver in turn."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._receivers: list[Callable[P, R]] = []
        self._muted: ContextVar[bool] = ContextVar(f"{name} muted", default=False)

    def subscribe(self, receiver: Callable[P, R]) -> Callable[P, R]:
        """Add `receiver` (once: an app's `ready` may run twice in tests); usable as a decorator."""
        if receiver not in self._receivers:
            self._receivers.append(receiver)
        return receiver

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> list[R]:
        if self._muted.get():
            return []
        return [receiver(*args, **kwargs) for receiver in self._receivers]

    @contextmanager
    def muted(self) -> Iterator[None]:
        """Calls inside the block (in this thread or task) reach no receiver: for a command that does the receivers'
        work itself, or needs none of it."""
        token = self._muted.set(True)
        try:
            yield
        finally:
            self._muted.reset(token)

    def __iter__(self) -> Iterator[Callable[P, R]]:
        return iter(list(self._receivers))

    def __repr__(self) -> str:
        return f"<Hook {self.name}: {len(self._receivers)} receiver(s)>"
