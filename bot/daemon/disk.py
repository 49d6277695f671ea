"""Threads for the blocking work of a turn: session-log appends, persona reads and writes, and
the analysis of a very long message (:func:`run_on_text`).

``asyncio.to_thread`` hands work over through ``concurrent.futures`` (a future with its own
condition variable, a context copy, a chained asyncio future); the session log appends on
every turn, and that hand-over cost about twice as much event-loop time as this one, which
puts ``(loop, future, function, args)`` on a queue and resolves the asyncio future with
``call_soon_threadsafe``. Like ``to_thread``, a cancelled caller does not stop work already
under way (nor, unless the pool is made to skip it, work still queued).

The pool grows, one thread at a time up to :data:`MAX_THREADS`, only when every thread is
busy: a household's daemon keeps a few, a busy one many. Many is what a burst wants: each
session-log append ends in an fsync, and fsyncs waiting at the same time share the file
system's journal commits, so with a thousand sessions talking at once 64 threads handled a
third more turns a second than 8, with less event-loop time a turn
(``bench/turn_overhead.py``, on a virtual disk).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any, TypeVar

__all__ = ["INLINE_TEXT", "MAX_THREADS", "DiskPool", "run_blocking", "run_on_text"]

T = TypeVar("T")

_Job = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...]]


def _resolve(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


#: the most threads a pool grows to
MAX_THREADS = 64


class DiskPool:
    """Daemon threads, started as needed (up to ``threads``), that run blocking calls for
    coroutines."""

    def __init__(
        self,
        threads: int = MAX_THREADS,
        name: str = "personad-disk",
        *,
        skip_abandoned: bool = False,
    ) -> None:
        self.size = threads
        self.name = name
        #: whether a call whose caller stopped waiting while it was queued is left undone (a
        #: file its turn gave up on); the disk's writes are done whoever waits for them
        self.skip_abandoned = skip_abandoned
        self._queue: SimpleQueue[_Job] = SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0  # threads waiting for a job; a job that finds none starts one

    @property
    def threads(self) -> int:
        """How many threads the pool has started."""
        return self._threads

    @property
    def busy(self) -> int:
        """How many calls are running or waiting for a thread."""
        with self._lock:
            return self._threads - self._idle + self._queue.qsize()

    def _grow(self) -> None:
        with self._lock:
            if self._idle >= self._queue.qsize() or self._threads >= self.size:
                return
            self._threads += 1
            self._idle += 1  # counted before it starts, so a burst starts no more than needed
            number = self._threads
        thread = threading.Thread(target=self._work, name=f"{self.name}-{number}", daemon=True)
        thread.start()

    def _work(self) -> None:
        lock = self._lock
        while True:
            loop, future, function, args = self._queue.get()
            with lock:
                self._idle -= 1
            result: Any = None
            error: BaseException | None = None
            try:
                if not (self.skip_abandoned and future.cancelled()):
                    result = function(*args)
            except BaseException as exc:  # handed to the caller, as to_thread does
                error = exc
            with lock:  # free again before the caller hears back, so its next call finds it
                self._idle += 1
            try:
                loop.call_soon_threadsafe(_resolve, future, result, error)
            except RuntimeError:
                pass  # the loop closed while this ran: nobody is waiting any more
            # nothing of the job stays with an idle thread (a document's bytes, its loop)
            del loop, future, function, args, result, error

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in one of the threads."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put((loop, future, function, args))
        if self._idle < self._queue.qsize():  # nobody free to take it: one more thread
            self._grow()
        return await future


_pool = DiskPool()


async def run_blocking(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in the shared disk pool."""
    return await _pool.run(function, *args)


#: text up to this long is analysed on the event loop (well under a millisecond); a longer
#: message (``daemon.max_message_chars`` can be raised to a megabyte) goes to a pool thread
INLINE_TEXT = 4000


async def run_on_text(text: str, function: Callable[[str], T]) -> T:
    """``function(text)`` for CPU work over a user's message: on the event loop when the text
    is short, in the pool when it is long, so a long message never holds the loop for the
    other users' turns (regular expressions over a megabyte take most of a second)."""
    if len(text) <= INLINE_TEXT:
        return function(text)
    return await _pool.run(function, text)
