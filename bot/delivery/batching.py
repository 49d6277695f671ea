"""Group commit: requests that arrive while the database is busy go in together.

A :class:`Batcher` holds the requests of one kind (claims of events, say). A request that
finds nothing under way goes to the database at once, alone; while it (or a batch) is there,
new requests queue, and a drain task then takes them all in one statement. One at a time it
costs nothing extra; under load it turns hundreds of trips to the database thread into a few.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["Batcher"]

T = TypeVar("T")
R = TypeVar("R")


class Batcher(Generic[T, R]):
    """``await batcher.submit(item)`` gives ``run(items)[i]`` for that item's batch."""

    def __init__(
        self, run: Callable[[list[T]], Awaitable[Sequence[R]]], *, max_batch: int = 256
    ) -> None:
        self._run = run
        self.max_batch = max_batch
        self._pending: list[tuple[T, asyncio.Future[R]]] = []
        self._busy = False
        self._drain: asyncio.Task[None] | None = None

    async def submit(self, item: T) -> R:
        if self._busy:  # a batch is in the database: go in the next one
            future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
            self._pending.append((item, future))
            return await future
        # nothing under way: run this one at once, without a task
        self._busy = True
        try:
            return (await self._run([item]))[0]
        finally:
            self._busy = False
            if self._pending:
                self._start_drain()

    def schedule(self, item: T) -> asyncio.Future[R]:
        """Queue ``item`` without waiting: the future gives its result (no task of its own,
        so a burst of them costs one drain task)."""
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        if not self._busy:
            self._start_drain()
        return future

    def _start_drain(self) -> None:
        self._busy = True
        self._drain = asyncio.create_task(self._drain_all())

    async def _drain_all(self) -> None:
        try:
            while self._pending:
                batch = self._pending[: self.max_batch]
                del self._pending[: self.max_batch]
                try:
                    results = await self._run([item for item, _future in batch])
                except Exception as exc:
                    for _item, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                except BaseException:  # cancelled: nobody in this batch waits forever
                    for _item, future in batch:
                        future.cancel()
                    raise
                for (_item, future), result in zip(batch, results, strict=True):
                    if not future.done():
                        future.set_result(result)
        finally:
            self._busy = False
            self._drain = None
            for _item, future in self._pending:  # only if this task itself was cancelled
                if not future.done():
                    future.cancel()
            self._pending.clear()
