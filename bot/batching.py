"""Group commit: requests that arrive while the database is busy go in together.

A :class:`Batcher` holds the requests of one kind (claims of events, say). The first one
starts a drain task; while that task's batch is in the database, new requests queue, and the
next round takes them all in one statement. One at a time, this costs a task per request;
under load, it turns hundreds of trips to the database thread into a few.
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
        self._drain: asyncio.Task[None] | None = None

    async def submit(self, item: T) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._pending.append((item, future))
        if self._drain is None:
            self._drain = asyncio.create_task(self._drain_all())
        return await future

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
            self._drain = None
            for _item, future in self._pending:  # only if this task itself was cancelled
                if not future.done():
                    future.cancel()
            self._pending.clear()
