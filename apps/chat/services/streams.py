"""Slots for requests that wait on an answer (a streamed answer, or the API waiting for one to finish).

Each such request holds a web thread while it waits, so without a bound one person opening many of them would
leave no thread for anybody else. Two bounds apply: a person holds at most CHAT_WAITS_PER_USER slots across every
web process (counted in Redis, each slot a lease that lapses on its own if a process dies holding it), and one
process lends at most CHAT_WAITS_PER_PROCESS of its threads to waiting, keeping the rest for everything else.
A request that gets no slot does not wait: the answer is still written by a worker and shows in the
conversation when done."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from apps.core.redis_connection import redis_client

# Adds a lease if fewer than the limit are live; the same script drops lapsed ones first, so the count is atomic
# across processes.
_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""

ANSWERED_LATER = "The answer is still written, and shows in this conversation when it is done."

_process_lock = threading.Lock()
_process_waits = 0


class NoWaitSlot(Exception):
    """Every slot this person or this process may hold is taken."""


def _key(user_id: int) -> str:
    return f"desirepath:waits:{user_id}"


def _lease_seconds() -> int:
    return int(settings.CHAT_WAIT_SECONDS) + 60


def _take_process_slot() -> bool:
    global _process_waits
    with _process_lock:
        if _process_waits >= settings.CHAT_WAITS_PER_PROCESS:
            return False
        _process_waits += 1
        return True


def _give_process_slot() -> None:
    global _process_waits
    with _process_lock:
        _process_waits -= 1


@dataclass
class WaitSlot:
    user_id: int
    member: str = field(default_factory=lambda: uuid.uuid4().hex)
    released: bool = False

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        _give_process_slot()
        with contextlib.suppress(Exception):  # Redis down: the lease lapses on its own
            redis_client().zrem(_key(self.user_id), self.member)


def wait_slot_take(*, user_id: int) -> WaitSlot:
    """A slot for one waiting request, or NoWaitSlot. Release it when the request ends (`WaitSlot.release`)."""
    if not _take_process_slot():
        raise NoWaitSlot("this server is busy with other answers")
    slot = WaitSlot(user_id=user_id)
    now = time.time()
    try:
        taken = redis_client().eval(
            _TAKE,
            1,
            _key(user_id),
            now,
            now + _lease_seconds(),
            settings.CHAT_WAITS_PER_USER,
            slot.member,
            _lease_seconds(),
        )
    except Exception:
        _give_process_slot()
        raise
    if not taken:
        _give_process_slot()
        raise NoWaitSlot(f"you already have {settings.CHAT_WAITS_PER_USER} answers streaming")
    return slot


def wait_slots_held(*, user_id: int) -> int:
    client, key = redis_client(), _key(user_id)
    client.zremrangebyscore(key, "-inf", time.time())
    return int(client.zcard(key))


class Held(Iterator[Any]):
    """Iterates `items` while holding `slot`, and gives the slot back when closed: the web server closes a
    streamed response when it ends or when the client has gone, even if it was never iterated."""

    def __init__(self, items: Iterator[Any], slot: WaitSlot) -> None:
        self.items, self.slot = items, slot

    def __next__(self) -> Any:
        try:
            return next(self.items)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        try:
            close = getattr(self.items, "close", None)
            if close is not None:
                close()
        finally:
            self.slot.release()
