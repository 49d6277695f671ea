"""Retrying later, shared by the watchdog and the outbox: the jittered exponential backoff,
and the one background task each of them runs."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Coroutine
from typing import Any

__all__ = ["LoopTask", "jittered_backoff"]


def jittered_backoff(attempt: int, base: float, cap: float) -> float:
    """Seconds to wait before try ``attempt + 1``: ``base`` doubling per attempt up to
    ``cap``, times a random factor in [0.5, 1] so retries of many things spread out."""
    delay: float = min(cap, base * 2.0 ** (attempt - 1))
    return delay * random.uniform(0.5, 1.0)


class LoopTask:
    """One background task, started once and cancelled on stop."""

    def __init__(self, loop: Callable[[], Coroutine[Any, Any, None]]) -> None:
        self._loop = loop
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
