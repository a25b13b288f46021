"""An event loop for each request thread, run on that thread.

The SDK's transport is async; the tools' work is Django's, which refuses to run on a thread whose event loop is
running. Rather than hand the exchange to a loop on another thread and each tool's work back to this one (what
`async_to_sync` and `sync_to_async` do: four thread hand-offs a call, each a wait for the CPU on a busy server),
the loop runs here and is stopped whenever a tool has work: the work runs on this thread, outside the loop, with the
request's database connection, and the loop goes on with its result.

The loop lasts as long as its thread, so what an exchange needs that outlives one request (the SDK's session
manager, which is meant to be started once and serve every request) is started on it once (`held_open`) and waits
there, idle, between requests. A request ends only once every task it started has ended: nothing of one caller's
exchange is left to run during the next one's. gunicorn's threads serve for their worker's life, so a loop is made
once per thread; one that ended would leave its loop unclosed to the garbage collector."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar

T = TypeVar("T")
Work = tuple[Callable[[], Any], "asyncio.Future[Any]"]

# The queue of the loop now serving this request, for the tools it runs.
_WORK: contextvars.ContextVar[asyncio.Queue[Work]] = contextvars.ContextVar("mcp_request_work")
# How long tasks an exchange started may go on after it has answered: the transport's end within a few turns.
LEFT_TO_END_SECONDS = 5.0


class _ThreadLoop(threading.local):
    """This thread's loop and what is held open on it, each with the task that holds it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.held: dict[str, tuple[Any, asyncio.Task[None]]] = {}


_THREAD = _ThreadLoop()


def held_open(name: str, opened: Callable[[], AbstractAsyncContextManager[T]]) -> T:
    """The value of `opened()`, entered once on this thread's loop and held open while the thread lives (entered
    again should it have closed). Entered in an empty context: nothing of the request that first needs it (the
    caller, its queue of work) is inherited by the task that holds it."""
    loop = _THREAD.loop
    found = _THREAD.held.get(name)
    if found is not None and not found[1].done():
        return found[0]
    ready: asyncio.Future[T] = loop.create_future()

    async def hold() -> None:
        async with opened() as value:
            ready.set_result(value)
            await asyncio.Event().wait()  # until the loop goes with its thread

    holder = loop.create_task(hold(), context=contextvars.Context())
    opening: set[asyncio.Future[Any]] = {ready, holder}
    loop.run_until_complete(asyncio.wait(opening, return_when=asyncio.FIRST_COMPLETED))
    if not ready.done():
        holder.result()  # raises what stopped it from opening
        raise RuntimeError(f"{name} closed as it opened")
    _THREAD.held[name] = (ready.result(), holder)
    return ready.result()


def run_here(exchange: Coroutine[Any, Any, T]) -> T:
    """Run `exchange` to its end on this thread, doing the work its tools send (`on_request_thread`) between turns
    of the loop; then let the tasks it started end (the transport's, winding down after the answer), cancelling
    any still running a moment later."""
    loop = _THREAD.loop
    resident = {holder for _, holder in _THREAD.held.values()}
    work: asyncio.Queue[Work] = asyncio.Queue()
    token = _WORK.set(work)
    try:
        task = loop.create_task(exchange)  # copies this context: the queue, and whatever the caller set
    finally:
        _WORK.reset(token)
    waiting = loop.create_task(work.get())
    while not task.done():
        loop.run_until_complete(asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED))
        if waiting.done():
            job, done = waiting.result()
            try:
                done.set_result(job())  # the loop is stopped: Django may run here
            except Exception as exc:  # noqa: BLE001 - handed to the tool that asked, which decides
                done.set_exception(exc)
            waiting = loop.create_task(work.get())
    waiting.cancel()
    left = asyncio.all_tasks(loop) - resident
    if left:
        loop.run_until_complete(asyncio.wait(left, timeout=LEFT_TO_END_SECONDS))
        for unended in left:
            unended.cancel()
        loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
    return task.result()


async def on_request_thread(job: Callable[[], T]) -> T:
    """Have `job` run on the request's thread, outside the loop, and wait for its result."""
    done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    await _WORK.get().put((job, done))
    return await done
