"""An event loop for one request, run on the request's own thread.

The SDK's transport is async; the tools' work is Django's, which refuses to run on a thread whose event loop is
running. Rather than hand the exchange to a loop on another thread and each tool's work back to this one (what
`async_to_sync` and `sync_to_async` do: four thread hand-offs a call, each a wait for the CPU on a busy server),
the loop runs here and is stopped whenever a tool has work: the work runs on this thread, outside the loop, with the
request's database connection, and the loop goes on with its result."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
Work = tuple[Callable[[], Any], "asyncio.Future[Any]"]

# The queue of the loop now serving this request, for the tools it runs.
_WORK: contextvars.ContextVar[asyncio.Queue[Work]] = contextvars.ContextVar("mcp_request_work")


def run_here(exchange: Coroutine[Any, Any, T]) -> T:
    """Run `exchange` to its end on this thread, doing the work its tools send (`on_request_thread`) between turns
    of the loop."""
    loop = asyncio.new_event_loop()
    try:
        work: asyncio.Queue[Work] = asyncio.Queue()
        token = _WORK.set(work)
        try:
            task = loop.create_task(exchange)  # copies this context: the queue, and whatever the caller set
        finally:
            _WORK.reset(token)
        while True:
            waiting = loop.create_task(work.get())
            loop.run_until_complete(asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED))
            if not waiting.done():
                waiting.cancel()
                loop.run_until_complete(asyncio.gather(waiting, return_exceptions=True))
                return task.result()
            job, done = waiting.result()
            try:
                done.set_result(job())  # the loop is stopped: Django may run here
            except Exception as exc:  # noqa: BLE001 - handed to the tool that asked, which decides
                done.set_exception(exc)
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


async def on_request_thread(job: Callable[[], T]) -> T:
    """Have `job` run on the request's thread, outside the loop, and wait for its result."""
    done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    await _WORK.get().put((job, done))
    return await done
