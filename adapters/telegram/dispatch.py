"""Handing events to the core: concurrently across chats, in order within one chat.

The core's handler runs a whole turn before it returns, which can take a minute. Each event
therefore gets its own task, so one person's long answer does not hold up another chat. The
tasks start in the order they are made, so the core sees a chat's messages in order, before
it awaits anything, and keeps that order from there (:mod:`bot.turn.burst`): messages that
arrive while a turn runs are answered together by the next one, not one turn each. The
dispatcher knows which updates are still in flight, which is what the poller needs to
decide how far the update offset may move.
"""

from __future__ import annotations

import asyncio

import structlog

from adapters.base import Handler, Incoming

__all__ = ["Dispatcher"]

log = structlog.get_logger(__name__)


class Dispatcher:
    """Runs ``handler(event)`` in tasks, started in order, tracking update ids in flight."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self._tasks: dict[asyncio.Task[None], int | None] = {}
        #: update ids whose handling was cancelled by a stop: they must be fetched again
        self.unfinished: set[int] = set()

    def submit(self, event: Incoming, update_id: int | None = None) -> None:
        task = asyncio.create_task(self._run(event, update_id))
        self._tasks[task] = update_id
        task.add_done_callback(self._forget)

    def _forget(self, task: asyncio.Task[None]) -> None:
        self._tasks.pop(task, None)

    async def _run(self, event: Incoming, update_id: int | None) -> None:
        try:
            await self.handler(event)
        except asyncio.CancelledError:
            if update_id is not None:
                self.unfinished.add(update_id)
            raise
        except Exception as exc:  # the core's handler should not raise; if it does, go on
            log.exception("telegram.handler_failed", event_id=event.event_id, error=str(exc))

    def in_flight(self) -> set[int]:
        """Update ids submitted and not yet finished (cancelled ones included)."""
        return {uid for uid in self._tasks.values() if uid is not None} | self.unfinished

    @property
    def busy(self) -> bool:
        return bool(self._tasks)

    async def wait_any(self, longest: float) -> None:
        """Return when some event finishes, or after ``longest`` seconds."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=longest, return_when="FIRST_COMPLETED")
        else:
            await asyncio.sleep(longest)

    async def drain(self, grace: float) -> None:
        """Let events in flight finish for up to ``grace`` seconds, then cancel the rest."""
        tasks = list(self._tasks)
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=grace)
        for task in pending:
            task.cancel()
        if pending:
            log.warning("telegram.drain_cancelled", events=len(pending))
            await asyncio.gather(*pending, return_exceptions=True)
