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

This module opens and closes the file and holds its schema; :class:`StateStore` is built from
parts, a module each, by what the tables hold: the claims of events
(:mod:`bot.delivery.claims`), the delivery ledger and the outbox (:mod:`bot.delivery.ledger`),
the messages kept until answered (:mod:`bot.delivery.inbox`), what users chose
(:mod:`bot.delivery.user_settings`) and the small values kept between runs, adapters' state
among them (:mod:`bot.delivery.key_values`).
"""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import Sequence
from pathlib import Path

import structlog

from bot.daemon.errors import StoreError
from bot.delivery.batching import Batcher
from bot.delivery.claims import EventClaims
from bot.delivery.inbox import INBOX_MIGRATION, Inbox
from bot.delivery.key_values import KeyValues
from bot.delivery.ledger import (
    LEDGER_MIGRATION,
    PRIVATE_ANSWERS_MIGRATION,
    REFUSALS_MIGRATION,
    DeliveryLedger,
)
from bot.delivery.migrations import Migration
from bot.delivery.sqlite_db import SqliteFile
from bot.delivery.user_settings import UserSettings

__all__ = ["MIGRATIONS", "StateStore"]

log = structlog.get_logger(__name__)

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
    PRIVATE_ANSWERS_MIGRATION,
]


class StateStore(SqliteFile, EventClaims, DeliveryLedger, Inbox, UserSettings, KeyValues):
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
