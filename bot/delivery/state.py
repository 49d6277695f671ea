"""The daemon's own durable state in SQLite: seen events, per-session settings, adapter state,
and the delivery ledger and outbox.

One file, ``DATA_DIR/personad.db``, opened through aiosqlite in WAL mode. It holds ids, flags
and adapter bookkeeping (sync tokens, update offsets); the only text it holds is an on-record
message until it is answered (:mod:`bot.delivery.inbox`) and an on-record answer waiting in the
outbox, each removed once its event is settled. Removed means gone from the disk: freed bytes are
zeroed (``secure_delete``) and, within a second of a removal, the WAL, which still holds the
old pages, is checkpointed and truncated
(:meth:`~bot.delivery.sqlite_db.SqliteFile.checkpoint_soon`). At start, before anything is served,
the same is done for what an earlier process left (a process killed between a removal and its
checkpoint leaves the old pages in the WAL).

An event is ``processing`` from its claim until its whole answer is delivered (``done``), or
``queued`` while the rest of its answer waits in the outbox: one statement puts the answer
there and marks the event (a trigger), and one removes it and marks the event done.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import structlog

from adapters.base import Incoming, KeyValueStore
from bot.daemon.errors import StoreError
from bot.delivery.batching import Batcher
from bot.delivery.inbox import INBOX_MIGRATION, Inbox, to_json
from bot.delivery.ledger import LEDGER_MIGRATION, REFUSALS_MIGRATION, DeliveryLedger
from bot.delivery.migrations import Migration
from bot.delivery.sqlite_db import SqliteFile

__all__ = ["AdapterState", "EventClaim", "StateStore"]

log = structlog.get_logger(__name__)

EventClaim = Literal["new", "retry", "duplicate"]

#: the kv key that asks the next start to rewrite the file (VACUUM)
_REWRITE = "personad.db:rewrite"

MIGRATIONS: list[Migration] = [
    (
        1,
        """
        CREATE TABLE events (
            platform TEXT NOT NULL,
            event_id TEXT NOT NULL,
            status TEXT NOT NULL,
            boot_id TEXT NOT NULL,
            received_at REAL NOT NULL,
            PRIMARY KEY (platform, event_id)
        );
        CREATE INDEX events_received ON events (received_at);
        CREATE TABLE session_state (
            user TEXT NOT NULL,
            persona TEXT NOT NULL,
            otr INTEGER NOT NULL DEFAULT 0,
            tier INTEGER,
            PRIMARY KEY (user, persona)
        );
        CREATE TABLE kv (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        """,
    ),
    (
        2,
        """
        CREATE TABLE active_persona (
            user TEXT PRIMARY KEY,
            persona TEXT NOT NULL
        );
        """,
    ),
    LEDGER_MIGRATION,
    (
        4,
        # Off The Record belongs to a user in a room (a row: on); a session's old flag
        # becomes "on in every room" until the user turns it off
        """
        CREATE TABLE otr_room (
            user TEXT NOT NULL,
            room TEXT NOT NULL,
            PRIMARY KEY (user, room)
        );
        INSERT OR IGNORE INTO otr_room (user, room)
            SELECT DISTINCT user, '*' FROM session_state WHERE otr = 1;
        """,
    ),
    INBOX_MIGRATION,
    REFUSALS_MIGRATION,
    (
        8,
        # the file of a version that did not zero freed bytes may still hold removed text in
        # its free space: it is rewritten once, at the next start (StateStore.open)
        f"INSERT OR REPLACE INTO kv (key, value) VALUES ('{_REWRITE}', '1');",
    ),
]


class StateStore(SqliteFile, DeliveryLedger, Inbox):
    """Async access to ``personad.db``. Use as ``async with StateStore(path) as state``."""

    migrations = MIGRATIONS
    error = StoreError
    autocommit = True
    secure_delete = True

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.boot_id = uuid.uuid4().hex
        # every turn claims and finishes an event: under load, in one statement each
        self._claims: Batcher[tuple[str, str], bool] = Batcher(self._insert_claims)
        self._finishes: Batcher[tuple[str, str], None] = Batcher(self._mark_done)
        #: every (platform, event id) the events table holds or is being given: one not
        #: here is new without asking the database (read at open; pruned with the table;
        #: a claim whose write failed is dropped)
        self._known: set[tuple[str, str]] = set()
        #: claims of new events on their way to the database, until the event is finished
        self._recording: dict[tuple[str, str], asyncio.Future[bool]] = {}
        #: events this process gave up unanswered (cancelled, failed): a redelivery retries
        #: them, with the claim they had
        self._released: dict[tuple[str, str], asyncio.Future[bool] | None] = {}
        #: the messages of new on-record events, kept with their claim until it is written
        self._keeping: dict[tuple[str, str], str] = {}

    async def open(self) -> None:
        try:
            await super().open()
        except StoreError as exc:
            raise StoreError(f"cannot open state database: {exc}") from exc
        await self._forget_what_was_left()
        rows = await self._all("SELECT platform, event_id FROM events", ())
        self._known = {(str(platform), str(event_id)) for platform, event_id in rows}

    async def _forget_what_was_left(self) -> None:
        """No text an earlier process removed stays on disk: a settled event's message is
        cleared (the trigger does it as the event settles; this catches a row left any other
        way), the file is rewritten once after an upgrade, and the WAL, where a killed
        process leaves the old copies of every page it changed, is checkpointed away."""
        await self._write(
            "UPDATE events SET incoming = NULL WHERE status != 'processing'"
            " AND incoming IS NOT NULL",
            (),
        )
        if await self.kv_get(_REWRITE) is not None:
            await self._write("VACUUM", ())
            await self._write("DELETE FROM kv WHERE key = ?", (_REWRITE,))
        if not await self.checkpoint():
            log.warning("state.checkpoint_busy")
            self.checkpoint_soon()

    async def close(self) -> None:
        if self._recording:  # claims still being written go in first
            await asyncio.wait(list(self._recording.values()))
        await super().close()

    async def __aenter__(self) -> StateStore:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _write(self, sql: str, params: tuple[object, ...]) -> int:
        try:
            cursor = await self.conn.execute(sql, params)
            return cursor.rowcount
        except sqlite3.Error as exc:
            raise StoreError(f"state database write failed: {exc}") from exc

    async def _all(self, sql: str, params: Sequence[object]) -> list[tuple[object, ...]]:
        try:
            return [tuple(row) for row in await self.conn.execute_fetchall(sql, params)]
        except sqlite3.Error as exc:
            raise StoreError(f"state database query failed: {exc}") from exc

    async def _one(self, sql: str, params: tuple[object, ...]) -> tuple[object, ...] | None:
        # one trip to the database thread (a cursor's execute, fetch and close are three)
        rows = await self._all(sql, params)
        return rows[0] if rows else None

    # -- events: exactly-once handling ------------------------------------------------------

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
        self._released[event] = self._recording.pop(event, None)

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

    # -- per-session settings -----------------------------------------------------------------

    async def session_tier(self, user: str, persona: str) -> int | None:
        """The session's tier (None: the default)."""
        row = await self._one(
            "SELECT tier FROM session_state WHERE user = ? AND persona = ?", (user, persona)
        )
        tier = row[0] if row else None
        return int(tier) if isinstance(tier, int) else None

    async def otr_rooms(self) -> list[tuple[str, str]]:
        """Every (user, room) that is Off The Record (room ``*``: every room)."""
        rows = await self._all("SELECT user, room FROM otr_room", ())
        return [(str(row[0]), str(row[1])) for row in rows]

    async def set_otr_room(self, user: str, room: str, on: bool) -> None:
        """Switch Off The Record for ``user`` in ``room``; off also ends an "every room"
        mode left from before modes belonged to rooms."""
        if on:
            await self._write(
                "INSERT OR IGNORE INTO otr_room (user, room) VALUES (?, ?)", (user, room)
            )
        else:
            await self._write(
                "DELETE FROM otr_room WHERE user = ? AND room IN (?, '*')", (user, room)
            )

    async def set_tier(self, user: str, persona: str, tier: int) -> None:
        await self._write(
            "INSERT INTO session_state (user, persona, tier) VALUES (?, ?, ?)"
            " ON CONFLICT (user, persona) DO UPDATE SET tier = excluded.tier",
            (user, persona, tier),
        )

    async def get_active_persona(self, user: str) -> str | None:
        row = await self._one("SELECT persona FROM active_persona WHERE user = ?", (user,))
        return str(row[0]) if row else None

    async def active_personas(self) -> dict[str, str]:
        """Every user's chosen persona (users who never chose are absent)."""
        rows = await self._all("SELECT user, persona FROM active_persona", ())
        return {str(row[0]): str(row[1]) for row in rows}

    async def set_active_persona(self, user: str, persona: str) -> None:
        await self._write(
            "INSERT INTO active_persona (user, persona) VALUES (?, ?)"
            " ON CONFLICT (user) DO UPDATE SET persona = excluded.persona",
            (user, persona),
        )

    # -- adapter key/value --------------------------------------------------------------------

    async def kv_get(self, key: str) -> str | None:
        row = await self._one("SELECT value FROM kv WHERE key = ?", (key,))
        return str(row[0]) if row else None

    async def kv_set(self, key: str, value: str) -> None:
        await self._write(
            "INSERT INTO kv (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def for_adapter(self, platform: str) -> AdapterState:
        return AdapterState(self, platform)


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


class AdapterState(KeyValueStore):
    """The key/value view one adapter gets, its keys prefixed by its platform name."""

    def __init__(self, store: StateStore, platform: str) -> None:
        self._store = store
        self._prefix = f"{platform}:"

    async def get(self, key: str) -> str | None:
        return await self._store.kv_get(self._prefix + key)

    async def set(self, key: str, value: str) -> None:
        await self._store.kv_set(self._prefix + key, value)
