"""A few personas' ``memory.db`` at work at once, however many are open.

Each open ``memory.db`` has its own aiosqlite thread, and a statement crosses to it and back;
the sqlite3 module also lets go of the GIL around every step of a statement. With a thousand
personas talking at once, a thousand threads fight for the GIL: a trivial statement cost
290 microseconds of CPU instead of 50, and a turn with memory on spent 25 ms of CPU in
those threads (``bench/turn_overhead.py --memory sqlite-fts5``). Letting :data:`WIDTH`
connections work at a time, and the others wait their turn on the event loop (which costs
nothing), keeps a statement near its uncontended cost.

A coroutine that already holds a slot does not take a second one (a transaction's own reads,
an open inside a recall): nesting could otherwise wait on itself.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar

__all__ = ["WIDTH", "sqlite_slot"]

#: how many memory databases run statements at the same time
WIDTH = min(4, max(2, os.cpu_count() or 2))

_holding: ContextVar[bool] = ContextVar("personad_sqlite_slot", default=False)
_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


@asynccontextmanager
async def sqlite_slot() -> AsyncIterator[None]:
    """Wait for one of the :data:`WIDTH` slots and hold it for the ``async with`` body."""
    if _holding.get():
        yield
        return
    loop = asyncio.get_running_loop()
    slots = _slots.get(loop)
    if slots is None:
        slots = _slots[loop] = asyncio.Semaphore(WIDTH)
    async with slots:
        token = _holding.set(True)
        try:
            yield
        finally:
            _holding.reset(token)
