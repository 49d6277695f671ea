"""A few threads for the blocking file work of a turn: session-log appends, persona writes.

``asyncio.to_thread`` hands work over through ``concurrent.futures`` (a future with its own
condition variable, a context copy, a chained asyncio future); the session log appends on
every turn, and that hand-over cost about twice as much event-loop time as this one, which
puts ``(loop, future, function, args)`` on a queue and resolves the asyncio future with
``call_soon_threadsafe``. Several threads, so the fsyncs of different sessions overlap.
Like ``to_thread``, a cancelled caller does not stop work already handed over.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any, TypeVar

__all__ = ["DiskPool", "run_blocking"]

T = TypeVar("T")

_Job = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...]]


def _resolve(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class DiskPool:
    """Daemon threads, started on first use, that run blocking calls for coroutines."""

    def __init__(self, threads: int = 8) -> None:
        self.size = threads
        self._queue: SimpleQueue[_Job] = SimpleQueue()
        self._started = False
        self._lock = threading.Lock()

    def _start(self) -> None:
        with self._lock:
            if self._started:
                return
            for number in range(self.size):
                thread = threading.Thread(
                    target=self._work, name=f"personad-disk-{number}", daemon=True
                )
                thread.start()
            self._started = True

    def _work(self) -> None:
        while True:
            loop, future, function, args = self._queue.get()
            result: Any = None
            error: BaseException | None = None
            try:
                result = function(*args)
            except BaseException as exc:  # handed to the caller, as to_thread does
                error = exc
            try:
                loop.call_soon_threadsafe(_resolve, future, result, error)
            except RuntimeError:
                pass  # the loop closed while this ran: nobody is waiting any more
            del future, result, error

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in one of the threads."""
        if not self._started:
            self._start()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put((loop, future, function, args))
        return await future


_pool = DiskPool()


async def run_blocking(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in the shared disk pool."""
    return await _pool.run(function, *args)
