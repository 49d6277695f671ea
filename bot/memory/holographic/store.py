"""The SQLite file of the holographic backend (``holographic.db``): items and their history.

Schema (numbered migrations, applied at open):

* ``items``   one row per stored sentence: its text and comparison form (``norm``), category,
  source, confidence, status (``active`` / ``superseded`` / ``forgotten``), how often it was
  reinforced, the parsed role structure (JSON) and its trace (little-endian float32 bytes),
  and (v2, renamed ``audience`` in v3) who may be shown it, an audience label
  (:mod:`bot.turn.audience`: ``direct``, ``shared``, ``room:PLATFORM:ID``); v2 recorded only the
  kind of room, so the items it called ``shared`` are ``direct`` from v3 on: private until the
  user shares them;
* ``events``  what happened to each item (created, reinforced, superseded, forgotten), in
  order, for ``explain``.

Nothing is ever deleted: forgetting and superseding are status changes. Every write is one
transaction; a failed one is rolled back and raised as :class:`MemoryStoreError`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import aiosqlite
import numpy as np

from bot.daemon.errors import MemoryStoreError
from bot.delivery.migrations import Migration
from bot.delivery.sqlite_db import SqliteFile
from bot.memory.base import MemoryItem
from bot.memory.holographic.hrr import Vector
from bot.memory.item_rows import ITEM_COLUMNS, item_from_row, item_history
from bot.memory.normal_form import SQL_FUNCTIONS
from bot.memory.reinforcement import audience_event

__all__ = ["MIGRATIONS", "HolographicStore", "StoredFact"]

MIGRATIONS: list[Migration] = [
    (
        1,
        """
        CREATE TABLE items (
            id TEXT PRIMARY KEY,
            text TEXT NOT NULL,
            norm TEXT NOT NULL,
            category TEXT NOT NULL,
            source TEXT NOT NULL,
            confidence REAL NOT NULL,
            status TEXT NOT NULL DEFAULT 'active',
            reinforced INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            structure TEXT NOT NULL,
            trace BLOB NOT NULL
        );
        CREATE INDEX items_norm ON items (norm, status);
        CREATE INDEX items_status ON items (status, created_at);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            item_id TEXT NOT NULL,
            at TEXT NOT NULL,
            event TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX events_item ON events (item_id, id);
        """,
    ),
    (
        2,
        """
        ALTER TABLE items ADD COLUMN room TEXT NOT NULL DEFAULT 'direct';
        UPDATE items SET room = 'shared' WHERE source LIKE 'file:%' OR source = 'cli';
        """,
    ),
    (
        3,
        """
        UPDATE items SET room = 'direct' WHERE room = 'shared';
        ALTER TABLE items RENAME COLUMN room TO audience;
        """,
    ),
    # one comparison form with the other stores', which keeps "A+" apart from "A-"
    (4, "UPDATE items SET norm = normal_form(text) WHERE norm IS NOT normal_form(text);"),
]


@dataclass(frozen=True, slots=True)
class StoredFact:
    """An active item as read back at open: the item, its role structure and its trace."""

    item: MemoryItem
    structure: dict[str, list[str]]
    trace: Vector


def _now() -> str:
    return datetime.now(UTC).isoformat()


class HolographicStore(SqliteFile):
    """One ``holographic.db``: open, read, and write items with their events."""

    migrations = MIGRATIONS
    functions = SQL_FUNCTIONS
    error = MemoryStoreError

    async def active(self) -> list[StoredFact]:
        """Every active item with its structure and stored trace (at the stored dimension)."""
        query = f"SELECT {ITEM_COLUMNS}, structure, trace FROM items WHERE status = 'active'"
        try:
            async with self.conn.execute(query) as cursor:
                return [
                    StoredFact(
                        item_from_row(row),
                        json.loads(row[9]),
                        np.frombuffer(row[10], dtype="<f4").astype(np.float64),
                    )
                    async for row in cursor
                ]
        except (aiosqlite.Error, ValueError) as exc:
            raise MemoryStoreError(f"cannot read {self.path}: {exc}") from exc

    # -- writes ----------------------------------------------------------------------------

    async def insert(
        self,
        item: MemoryItem,
        norm: str,
        structure: dict[str, list[str]],
        trace: Vector,
        reason: str,
        replaced: Sequence[str],
    ) -> None:
        """Store a new active item and mark the ids it ``replaced`` superseded, at once."""
        db = self.conn
        # in UTC whatever the zone of the clock: rows are ordered by this text
        stamp = item.created_at.astimezone(UTC).isoformat()
        try:
            await db.execute(
                "INSERT INTO items (id, text, norm, category, source, confidence, status,"
                " reinforced, created_at, updated_at, structure, trace, audience)"
                " VALUES (?, ?, ?, ?, ?, ?, 'active', 0, ?, ?, ?, ?, ?)",
                (
                    item.id,
                    item.text,
                    norm,
                    item.category,
                    item.source,
                    item.confidence,
                    stamp,
                    stamp,
                    json.dumps(structure, ensure_ascii=False),
                    trace.astype("<f4").tobytes(),
                    item.audience,
                ),
            )
            await self._event(item.id, "created", f"{item.source}: {reason}")
            for old in replaced:
                await db.execute(
                    "UPDATE items SET status = 'superseded', updated_at = ? WHERE id = ?",
                    (stamp, old),
                )
                await self._event(old, "superseded", f"by {item.id}")
                await self._event(item.id, "supersedes", old)
            await db.commit()
        except aiosqlite.Error as exc:
            await db.rollback()
            raise MemoryStoreError(f"cannot write {self.path}: {exc}") from exc

    async def reinforce(self, item_id: str, source: str) -> None:
        """Count one more time the item was said, by ``source``."""
        await self._write(
            "UPDATE items SET reinforced = reinforced + 1, updated_at = ? WHERE id = ?",
            (_now(), item_id),
            (item_id, "reinforced", source),
        )

    async def set_audience(self, item_id: str, label: str, detail: str) -> None:
        """Give the item the audience ``label``; the event says why (``detail``)."""
        await self._write(
            "UPDATE items SET audience = ?, updated_at = ? WHERE id = ?",
            (label, _now(), item_id),
            (item_id, audience_event(label), detail),
        )

    async def set_status(self, item_id: str, status: str, detail: str) -> None:
        """Mark the item ``superseded`` or ``forgotten``; the event is named after the status."""
        await self._write(
            "UPDATE items SET status = ?, updated_at = ? WHERE id = ?",
            (status, _now(), item_id),
            (item_id, status, detail),
        )

    async def _event(self, item_id: str, event: str, detail: str) -> None:
        await self.conn.execute(
            "INSERT INTO events (item_id, at, event, detail) VALUES (?, ?, ?, ?)",
            (item_id, _now(), event, detail),
        )

    async def _write(
        self, statement: str, params: Sequence[Any], event: tuple[str, str, str]
    ) -> None:
        db = self.conn
        try:
            await db.execute(statement, params)
            await self._event(*event)
            await db.commit()
        except aiosqlite.Error as exc:
            await db.rollback()
            raise MemoryStoreError(f"cannot write {self.path}: {exc}") from exc

    # -- reads -----------------------------------------------------------------------------

    async def status(self, item_id: str) -> tuple[str, str] | None:
        """The item's status and audience label, None when no item has this id."""
        query = "SELECT status, audience FROM items WHERE id = ?"
        async with self.conn.execute(query, (item_id,)) as cursor:
            row = await cursor.fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    async def items(self, *, include_inactive: bool, limit: int) -> list[MemoryItem]:
        """The newest items first (only active ones unless ``include_inactive``)."""
        where = "" if include_inactive else "WHERE status = 'active'"
        query = f"SELECT {ITEM_COLUMNS} FROM items {where} ORDER BY created_at DESC LIMIT ?"
        async with self.conn.execute(query, (limit,)) as cursor:
            return [item_from_row(row) async for row in cursor]

    async def detail(
        self, item_id: str
    ) -> tuple[MemoryItem, dict[str, list[str]], str, list[dict[str, Any]]] | None:
        """(item, structure, updated_at, history) of any item, None when the id is unknown."""
        db = self.conn
        query = f"SELECT {ITEM_COLUMNS}, structure, updated_at FROM items WHERE id = ?"
        async with db.execute(query, (item_id,)) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return None
        return item_from_row(row), json.loads(row[9]), row[10], await item_history(db, item_id)

    async def counts(self) -> tuple[dict[str, int], dict[str, int]]:
        """Items by status, and active items by category."""
        db = self.conn
        async with db.execute("SELECT status, COUNT(*) FROM items GROUP BY status") as cursor:
            by_status = {str(r[0]): int(r[1]) async for r in cursor}
        async with db.execute(
            "SELECT category, COUNT(*) FROM items WHERE status = 'active' GROUP BY category"
        ) as cursor:
            by_category = {str(r[0]): int(r[1]) async for r in cursor}
        return by_status, by_category

    async def export(self) -> list[dict[str, Any]]:
        """Every item, oldest first, as plain data (structure included, trace left out)."""
        query = f"SELECT {ITEM_COLUMNS}, structure, updated_at FROM items ORDER BY created_at"
        async with self.conn.execute(query) as cursor:
            rows = [row async for row in cursor]
        exported = []
        for row in rows:
            exported.append(
                {
                    **item_from_row(row).record(),
                    "updated_at": row[10],
                    "structure": json.loads(row[9]),
                }
            )
        return exported
