"""The delivery ledger and the outbox in ``personad.db`` (part of
:class:`~bot.delivery.state.StateStore`).

``deliveries`` holds, per event, the first message its answer put in the room, so a later
attempt edits it instead of sending another. ``outbox`` holds on-record answers the platform
has not taken yet, as their remaining steps (JSON). Inserting an outbox row marks its event
``queued`` and deleting it marks the event ``done``: triggers, so each is one statement.

``undelivered`` records the answers a platform refused for good (the bot was kicked or
blocked, the room is gone): who and where, the platform's reason, never the text. Setting an
outbox row's ``failed`` reason moves it there and finishes its event, in one statement; rows
older than the events kept are pruned with them.

Every statement that takes text out of a row (an answer delivered, refused or partly sent, an
event settled and its message cleared) asks for a checkpoint soon, so the WAL keeps no old copy
of it (:meth:`~bot.delivery.sqlite_db.SqliteFile.checkpoint_soon`).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence

from bot.delivery.migrations import Migration

__all__ = [
    "LEDGER_MIGRATION",
    "PRIVATE_ANSWERS_MIGRATION",
    "REFUSALS_MIGRATION",
    "DeliveryLedger",
    "OutboxRow",
    "RefusalRow",
]

LEDGER_MIGRATION: Migration = (
    3,
    """
        CREATE TABLE deliveries (
            platform TEXT NOT NULL,
            event_id TEXT NOT NULL,
            room TEXT NOT NULL,
            message_id TEXT NOT NULL,
            PRIMARY KEY (platform, event_id)
        );
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            platform TEXT NOT NULL,
            event_id TEXT NOT NULL,
            user TEXT NOT NULL,
            persona TEXT NOT NULL,
            steps TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            created_at REAL NOT NULL,
            next_at REAL NOT NULL
        );
        CREATE TRIGGER outbox_queued AFTER INSERT ON outbox BEGIN
            UPDATE events SET status = 'queued'
            WHERE platform = NEW.platform AND event_id = NEW.event_id; END;
        CREATE TRIGGER outbox_delivered AFTER DELETE ON outbox BEGIN
            UPDATE events SET status = 'done'
            WHERE platform = OLD.platform AND event_id = OLD.event_id; END;
        """,
)

REFUSALS_MIGRATION: Migration = (
    7,
    """
        CREATE TABLE undelivered (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            platform TEXT NOT NULL,
            event_id TEXT NOT NULL,
            user TEXT NOT NULL,
            persona TEXT NOT NULL,
            room TEXT NOT NULL,
            reason TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            created_at REAL NOT NULL,
            failed_at REAL NOT NULL
        );
        CREATE INDEX undelivered_failed ON undelivered (failed_at);
        ALTER TABLE outbox ADD COLUMN room TEXT NOT NULL DEFAULT '';
        ALTER TABLE outbox ADD COLUMN failed TEXT;
        UPDATE outbox SET room = COALESCE(json_extract(steps, '$[0].room'), '');
        CREATE TRIGGER outbox_refused AFTER UPDATE OF failed ON outbox
            WHEN NEW.failed IS NOT NULL BEGIN
            INSERT INTO undelivered (platform, event_id, user, persona, room, reason, attempts,
                created_at, failed_at)
            VALUES (NEW.platform, NEW.event_id, NEW.user, NEW.persona, NEW.room, NEW.failed,
                NEW.attempts, NEW.created_at, (julianday('now') - 2440587.5) * 86400.0); DELETE
            FROM outbox WHERE id = NEW.id; END;
        """,
)

PRIVATE_ANSWERS_MIGRATION: Migration = (
    9,
    # an answer written for a direct conversation (its prompt read the user's private
    # files): not delivered as it is to a room that became a group while it waited; one
    # queued before this version may have been, so it counts as one
    """
        ALTER TABLE outbox ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
        UPDATE outbox SET private = 1;
    """,
)

#: one refused answer: platform, event id, user, persona, room, reason, attempts, created at
#: and failed at (both ``time.time()``)
RefusalRow = tuple[str, str, str, str, str, str, int, float, float]

#: one outbox row: id, platform, event id, user, persona, steps (JSON), attempts, created
#: at and next try at (both ``time.time()``), and whether it was written for a direct room
OutboxRow = tuple[int, str, str, str, str, str, int, float, float, bool]


class DeliveryLedger(ABC):
    """The ledger's and the outbox's queries, over the store's own query helpers."""

    @abstractmethod
    async def _write(self, sql: str, params: tuple[object, ...]) -> int: ...

    @abstractmethod
    async def _all(self, sql: str, params: Sequence[object]) -> list[tuple[object, ...]]: ...

    @abstractmethod
    async def _one(self, sql: str, params: tuple[object, ...]) -> tuple[object, ...] | None: ...

    @abstractmethod
    def checkpoint_soon(self) -> None:
        """Text left a row: the WAL's old copies of it are to go soon."""

    async def record_message(
        self, platform: str, event_id: str, room: str, message_id: str
    ) -> None:
        """The first message of an event's answer is in the room as ``message_id``."""
        await self._write(
            "INSERT OR REPLACE INTO deliveries (platform, event_id, room, message_id)"
            " VALUES (?, ?, ?, ?)",
            (platform, event_id, room, message_id),
        )

    async def first_message(self, platform: str, event_id: str) -> str | None:
        """The message an earlier attempt at answering the event put in the room, if any."""
        row = await self._one(
            "SELECT message_id FROM deliveries WHERE platform = ? AND event_id = ?",
            (platform, event_id),
        )
        return str(row[0]) if row else None

    async def outbox_add(
        self,
        platform: str,
        event_id: str,
        user: str,
        persona: str,
        steps: str,
        next_at: float,
        room: str = "",
        *,
        private: bool = False,
    ) -> int:
        """Put an answer in the outbox (the event becomes ``queued``); returns its row id.
        ``private``: written for a direct conversation."""
        row = await self._one(
            "INSERT INTO outbox (platform, event_id, user, persona, room, steps, created_at,"
            " next_at, private) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (platform, event_id, user, persona, room, steps, time.time(), next_at, int(private)),
        )
        assert row is not None
        self.checkpoint_soon()  # the event, settled, let go of its message
        return int(str(row[0]))

    async def outbox_update(self, row: int, steps: str, attempts: int, next_at: float) -> None:
        await self._write(
            "UPDATE outbox SET steps = ?, attempts = ?, next_at = ? WHERE id = ?",
            (steps, attempts, next_at, row),
        )
        self.checkpoint_soon()  # the steps already taken are gone from it

    async def outbox_remove(self, row: int) -> None:
        """The answer was delivered: remove it (the event becomes ``done``)."""
        await self._write("DELETE FROM outbox WHERE id = ?", (row,))
        self.checkpoint_soon()

    async def outbox_refused(self, row: int, reason: str, attempts: int) -> None:
        """The platform refused the answer for good: it moves to ``undelivered`` with
        ``reason`` and leaves the outbox (the event becomes ``done``), in one statement."""
        await self._write(
            "UPDATE outbox SET failed = ?, attempts = ? WHERE id = ?", (reason, attempts, row)
        )
        self.checkpoint_soon()

    async def undelivered_add(self, refusal: RefusalRow) -> None:
        """Record an answer refused for good at its first attempt (never in the outbox)."""
        await self._write(
            "INSERT INTO undelivered (platform, event_id, user, persona, room, reason,"
            " attempts, created_at, failed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            refusal,
        )

    async def undelivered_rows(self, since: float) -> list[RefusalRow]:
        """The answers refused for good at or after ``since``, oldest first."""
        rows = await self._all(
            "SELECT platform, event_id, user, persona, room, reason, attempts, created_at,"
            " failed_at FROM undelivered WHERE failed_at >= ? ORDER BY failed_at, id",
            (since,),
        )
        return [
            (
                str(r[0]),
                str(r[1]),
                str(r[2]),
                str(r[3]),
                str(r[4]),
                str(r[5]),
                int(str(r[6])),
                float(str(r[7])),
                float(str(r[8])),
            )
            for r in rows
        ]

    async def outbox_rows(self) -> list[OutboxRow]:
        rows = await self._all(
            "SELECT id, platform, event_id, user, persona, steps, attempts, created_at,"
            " next_at, private FROM outbox ORDER BY id",
            (),
        )
        return [
            (
                int(str(r[0])),
                str(r[1]),
                str(r[2]),
                str(r[3]),
                str(r[4]),
                str(r[5]),
                int(str(r[6])),
                float(str(r[7])),
                float(str(r[8])),
                bool(r[9]),
            )
            for r in rows
        ]
