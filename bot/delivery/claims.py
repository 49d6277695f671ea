"""Exactly-once handling: the claims of events in ``personad.db``'s ``events`` table (a part of
:class:`~bot.delivery.state.StateStore`).

An event is ``processing`` from its claim until its whole answer is delivered (``done``), or
``queued`` while the rest of its answer waits in the outbox: one statement puts the answer
there and marks the event (a trigger), and one removes it and marks the event done.

The store knows every event its table holds, so a new one is claimed at once and its row is
written while the turn runs (:meth:`EventClaims.event_recorded` waits for it); claims and
finishes that arrive together go to the database in one statement each
(:mod:`bot.delivery.batching`). Finished events are pruned after a month (the default of
:meth:`EventClaims.prune_events`), with their ledger rows and the refusals as old.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Literal

import aiosqlite

from adapters.base import Incoming
from bot.daemon.errors import StoreError
from bot.delivery.batching import Batcher
from bot.delivery.inbox import to_json

__all__ = ["EventClaim", "EventClaims"]

EventClaim = Literal["new", "retry", "duplicate"]


class EventClaims:
    """The claims of events (a part of :class:`~bot.delivery.state.StateStore`)."""

    # what it uses of the store
    boot_id: str
    _claims: Batcher[tuple[str, str], bool]
    _finishes: Batcher[tuple[str, str], None]
    _known: set[tuple[str, str]]
    _recording: dict[tuple[str, str], asyncio.Future[bool]]
    _released: dict[tuple[str, str], asyncio.Future[bool] | None]
    _keeping: dict[tuple[str, str], str]
    _write: Callable[[str, tuple[object, ...]], Awaitable[int]]
    _all: Callable[[str, Sequence[object]], Awaitable[list[tuple[object, ...]]]]
    _one: Callable[[str, tuple[object, ...]], Awaitable[tuple[object, ...] | None]]
    checkpoint_soon: Callable[[], None]

    if TYPE_CHECKING:

        @property
        def conn(self) -> aiosqlite.Connection: ...

    async def claim_event(
        self, platform: str, event_id: str, keep: Incoming | None = None
    ) -> EventClaim:
        """Record that this process is handling an event (with ``keep``, the message itself
        until it is answered, so a restart can answer it: :mod:`bot.delivery.inbox`).

        ``new``: first time seen. ``retry``: an earlier process claimed it and died before
        finishing, so it was never answered. ``duplicate``: handled (or being handled) already.

        An event the database has never held is ``new`` at once; its record is written while
        the turn runs, and :meth:`event_recorded` waits for it: call that before anything
        about the event reaches the outside world, so a restart never answers it twice.
        """
        event = (platform, event_id)
        if event in self._recording:
            return "duplicate"  # this process is handling it right now
        if event in self._released:
            recording = self._released.pop(event)
            if recording is not None and recording.done() and _failed(recording):
                # its claim's write failed after the turn let it go: claimed afresh below
                self._known.discard(event)
            else:
                if recording is not None:
                    self._recording[event] = recording
                return "retry"
        if event not in self._known:
            self._known.add(event)
            if keep is not None:
                self._keeping[event] = to_json(keep)
            self._recording[event] = self._claims.schedule(event)
            return "new"
        row = await self._one(
            "SELECT status, boot_id FROM events WHERE platform = ? AND event_id = ?",
            (platform, event_id),
        )
        if row and row[0] == "processing" and row[1] != self.boot_id:
            retaken = await self._write(
                "UPDATE events SET boot_id = ? WHERE platform = ? AND event_id = ?"
                " AND status = 'processing' AND boot_id = ?",
                (self.boot_id, platform, event_id, row[1]),
            )
            if retaken:
                return "retry"
        return "duplicate"

    async def event_recorded(self, platform: str, event_id: str) -> None:
        """Wait until the claim of an event is in the database; StoreError if it is not."""
        recording = self._recording.get((platform, event_id))
        if recording is not None:
            problem = await _unwritten(recording)
            if problem is not None:
                raise problem

    async def finish_event(self, platform: str, event_id: str) -> None:
        """Mark a claimed event handled (after its claim, if that is still being written)."""
        event = (platform, event_id)
        recording = self._recording.pop(event, None)
        if recording is not None and await _unwritten(recording) is not None:
            # never recorded as this process's claim: nothing to finish, and a redelivery
            # is claimed afresh
            self._known.discard(event)
            return
        await self._finishes.submit(event)

    def release_event(self, platform: str, event_id: str) -> None:
        """Give up a claimed event unanswered (its turn was cancelled or failed): it stays
        unfinished, so a redelivery, in this process or the next, answers it."""
        event = (platform, event_id)
        recording = self._recording.pop(event, None)
        if recording is not None and recording.done() and _failed(recording):
            # its claim never reached the database (disk full, locked): a redelivery is
            # claimed afresh, not given the failed write again
            self._known.discard(event)
            self._released.pop(event, None)
            return
        self._released[event] = recording

    def event_queued(self, platform: str, event_id: str) -> None:
        """The rest of the event's answer went to the durable outbox, whose row marks the
        event ``queued``: a redelivery is a duplicate; its removal finishes the event."""
        self._recording.pop((platform, event_id), None)

    async def _insert_claims(self, events: list[tuple[str, str]]) -> list[bool]:
        """Insert the events not seen before; for each, whether this call inserted it."""
        now = time.time()
        kept = [self._keeping.pop(event, None) for event in events]
        params = [
            v
            for (platform, event_id), message in zip(events, kept, strict=True)
            for v in (platform, event_id, self.boot_id, now, message)
        ]
        rows = ", ".join(["(?, ?, 'processing', ?, ?, ?)"] * len(events))
        inserted = {
            (str(row[0]), str(row[1]))
            for row in await self._all(
                "INSERT OR IGNORE INTO events (platform, event_id, status, boot_id,"
                f" received_at, incoming) VALUES {rows} RETURNING platform, event_id",
                params,
            )
        }
        result = []
        for event in events:  # the same event twice in one batch: only the first is new
            result.append(event in inserted)
            inserted.discard(event)
        return result

    async def _mark_done(self, events: list[tuple[str, str]]) -> list[None]:
        # one statement per event, by its key: SQLite reads a row-value IN (VALUES ...) list
        # by scanning the whole table, a month of events on every turn
        try:
            await self.conn.executemany(
                "UPDATE events SET status = 'done' WHERE platform = ? AND event_id = ?", events
            )
        except sqlite3.Error as exc:
            raise StoreError(f"state database write failed: {exc}") from exc
        self.checkpoint_soon()  # the trigger cleared their messages
        return [None] * len(events)

    async def prune_events(self, older_than_days: float = 30.0) -> int:
        cutoff = time.time() - older_than_days * 86400
        rows = await self._all(
            "DELETE FROM events WHERE status = 'done' AND received_at < ?"
            " RETURNING platform, event_id",
            (cutoff,),
        )
        for platform, event_id in rows:
            self._known.discard((str(platform), str(event_id)))
        await self._write(
            "DELETE FROM deliveries WHERE NOT EXISTS (SELECT 1 FROM events e"
            " WHERE e.platform = deliveries.platform AND e.event_id = deliveries.event_id)",
            (),
        )
        await self._write("DELETE FROM undelivered WHERE failed_at < ?", (cutoff,))
        return len(rows)


def _failed(recording: asyncio.Future[bool]) -> bool:
    """Whether a finished claim's write failed (not: was cut off by a stop, which may have
    written it, or found the event already there)."""
    return not recording.cancelled() and recording.exception() is not None


async def _unwritten(recording: asyncio.Future[bool]) -> BaseException | None:
    """Wait for a claim's write (a cancelled caller does not cancel it); None when it put this
    process's row in the database, else why it did not."""
    if not recording.done():
        await asyncio.wait([recording])
    if recording.cancelled():
        return StoreError("the claim of the event was not written: stopping")
    error = recording.exception()
    if error is not None:
        return error
    if not recording.result():  # the database had it after all: whoever wrote it handles it
        return StoreError("the event is already being handled")
    return None
