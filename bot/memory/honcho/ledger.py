"""The local ledger of the ``honcho`` backend (``honcho.db``): what was written, and the outbox.

Honcho cannot mark a conclusion forgotten, so the ledger keeps every item personad wrote (or
was asked to forget) with its Honcho id, category, source, confidence, status and history.
Tables (numbered migrations, applied at open):

* ``items``       one row per conclusion (``kind = 'conclusion'``) or per remote conclusion or
  message entered only to be marked (``honcho`` / ``message``), with ``honcho_id`` once sent,
  and (v2, renamed ``audience`` in v3) who may be shown it, an audience label
  (:mod:`bot.turn.audience`); v2 recorded only the kind of room, so what it called ``shared`` is
  ``direct`` from v3 on: private until the user shares it;
* ``events``      what happened to each item (created, reinforced, sent, forgotten …);
* ``outbox``      writes waiting for the server, delivered in ``seq`` order;
* ``deliveries``  the Honcho ids of every message batch that was sent;
* ``sessions`` (v3) the audience label of each day session a turn was queued for: a shared
  room's session is named by a digest of its label (a Honcho name cannot hold a room id), so
  recall reads here whose a session is.

Writes that belong together are committed together. The ``outbox`` and ``deliveries`` tables
are written by :mod:`bot.memory.honcho.outbox`, which commits once per delivered batch.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bot.daemon.errors import MemoryStoreError
from bot.delivery.migrations import Migration
from bot.delivery.sqlite_db import SqliteFile
from bot.memory.base import MemoryItem
from bot.memory.item_rows import ITEM_COLUMNS, item_from_row, item_history
from bot.memory.normal_form import SQL_FUNCTIONS, normalise_text
from bot.memory.reinforcement import audience_event, twin_labels
from bot.turn.audience import DIRECT, describe

__all__ = ["MIGRATIONS", "HonchoLedger"]

MIGRATIONS: list[Migration] = [
    (
        1,
        """
        CREATE TABLE items (
            id TEXT PRIMARY KEY,
            honcho_id TEXT,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            norm TEXT NOT NULL,
            category TEXT NOT NULL,
            source TEXT NOT NULL,
            confidence REAL NOT NULL,
            status TEXT NOT NULL DEFAULT 'active',
            reinforced INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX items_honcho ON items (honcho_id) WHERE honcho_id IS NOT NULL;
        CREATE INDEX items_norm ON items (norm, status);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            item_id TEXT NOT NULL,
            at TEXT NOT NULL,
            event TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX events_item ON events (item_id, id);
        CREATE TABLE outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            item_id TEXT,
            session_id TEXT,
            payload TEXT NOT NULL,
            created_at TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE deliveries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,
            session_id TEXT NOT NULL,
            honcho_ids TEXT NOT NULL
        );
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
        CREATE TABLE sessions (session_id TEXT PRIMARY KEY, audience TEXT NOT NULL);
        """,
    ),
    # one comparison form with the other stores', which keeps "A+" apart from "A-"
    (4, "UPDATE items SET norm = normal_form(text) WHERE norm IS NOT normal_form(text);"),
]


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _marks(count: int) -> str:
    return ",".join("?" * count)


def _record(row: Sequence[Any]) -> dict[str, Any]:
    """A ledger row (``ITEM_COLUMNS, honcho_id, kind, updated_at``) as a plain dict."""
    return {
        **item_from_row(row).record(),
        "updated_at": row[11],
        "honcho_id": row[9],
        "kind": row[10],
    }


class HonchoLedger(SqliteFile):
    """One ``honcho.db``: items, their history, and the outbox of writes for the server."""

    migrations = MIGRATIONS
    functions = SQL_FUNCTIONS
    error = MemoryStoreError

    async def commit(self) -> None:
        await self.conn.commit()

    # -- items -----------------------------------------------------------------------------

    async def event(self, item_id: str, event: str, detail: str) -> None:
        await self.conn.execute(
            "INSERT INTO events (item_id, at, event, detail) VALUES (?, ?, ?, ?)",
            (item_id, _now(), event, detail),
        )

    async def add_conclusion(
        self,
        item_id: str,
        text: str,
        category: str,
        source: str,
        confidence: float,
        why: str,
        audience: str = DIRECT,
    ) -> None:
        """Enter a new conclusion and queue it for the server, in one commit."""
        stamp = _now()
        db = self.conn
        await db.execute(
            "INSERT INTO items (id, honcho_id, kind, text, norm, category, source, confidence,"
            " created_at, updated_at, audience)"
            " VALUES (?, NULL, 'conclusion', ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                item_id,
                text,
                normalise_text(text),
                category,
                source,
                confidence,
                stamp,
                stamp,
                audience,
            ),
        )
        await db.execute(
            "INSERT INTO outbox (kind, item_id, payload, created_at) VALUES (?, ?, ?, ?)",
            ("conclusion", item_id, json.dumps({"content": text}), stamp),
        )
        await self.event(item_id, "created", why)
        await db.commit()

    async def add_reference(self, item_id: str, remote_id: str, kind: str, text: str) -> None:
        """Enter a conclusion or message known only to the server, so it can be marked."""
        stamp = _now()
        await self.conn.execute(
            "INSERT INTO items (id, honcho_id, kind, text, norm, category, source,"
            " confidence, status, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, 'fact', 'honcho', 0, 'active', ?, ?)",
            (item_id, remote_id, kind, text, normalise_text(text), stamp, stamp),
        )

    async def mark(
        self, item_id: str, event: str, detail: str, *, status: str = "", reinforce: bool = False
    ) -> None:
        """Record ``event``, set ``status`` (unless empty), count a reinforcement; commit."""
        db = self.conn
        await db.execute(
            "UPDATE items SET status = COALESCE(NULLIF(?, ''), status),"
            " reinforced = reinforced + ?, updated_at = ? WHERE id = ?",
            (status, int(reinforce), _now(), item_id),
        )
        await self.event(item_id, event, detail)
        await db.commit()

    async def set_audience(self, item_id: str, label: str, why: str) -> None:
        """Give the item the audience ``label`` (``why``: what the event says); commit."""
        db = self.conn
        await db.execute(
            "UPDATE items SET audience = ?, updated_at = ? WHERE id = ?", (label, _now(), item_id)
        )
        await self.event(item_id, audience_event(label), f"{describe(label)}: {why}")
        await db.commit()

    async def status(self, item_id: str) -> tuple[str, str] | None:
        """The item's status and audience label, None when the ledger does not know the id."""
        query = "SELECT status, audience FROM items WHERE id = ?"
        async with self.conn.execute(query, (item_id,)) as cur:
            row = await cur.fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    async def active_by_norm(self, norm: str, label: str) -> MemoryItem | None:
        """The active item that says ``norm``, of those a statement recorded as ``label`` may
        repeat (:func:`~bot.memory.reinforcement.twin_labels`)."""
        twins = twin_labels(label)
        scope = "" if twins is None else f" AND audience IN ({_marks(len(twins))})"
        query = (
            f"SELECT {ITEM_COLUMNS} FROM items WHERE norm = ? AND status = 'active'{scope}"
            " ORDER BY created_at LIMIT 1"
        )
        async with self.conn.execute(query, (norm, *(twins or ()))) as cursor:
            row = await cursor.fetchone()
        return None if row is None else item_from_row(row)

    async def session_audiences(self) -> dict[str, str]:
        """The audience label of every day session a turn was queued for, by session id."""
        async with self.conn.execute("SELECT session_id, audience FROM sessions") as cursor:
            return {str(row[0]): str(row[1]) for row in await cursor.fetchall()}

    async def active_from(self, source: str) -> list[tuple[str, str]]:
        """(id, norm) of the active items of ``source``."""
        query = "SELECT id, norm FROM items WHERE source = ? AND status = 'active'"
        async with self.conn.execute(query, (source,)) as cursor:
            return [(str(row[0]), row[1]) for row in await cursor.fetchall()]

    async def inactive(self, honcho_ids: Sequence[str]) -> set[str]:
        """Which of these Honcho ids the ledger marks forgotten or superseded."""
        if not honcho_ids:
            return set()
        query = (
            "SELECT honcho_id FROM items WHERE status != 'active'"
            f" AND honcho_id IN ({_marks(len(honcho_ids))})"
        )
        async with self.conn.execute(query, tuple(honcho_ids)) as cursor:
            return {str(row[0]) for row in await cursor.fetchall()}

    async def by_honcho(self, honcho_ids: Sequence[str]) -> dict[str, MemoryItem]:
        """The ledger's items for these Honcho ids, by Honcho id."""
        if not honcho_ids:
            return {}
        marks = _marks(len(honcho_ids))
        query = f"SELECT {ITEM_COLUMNS}, honcho_id FROM items WHERE honcho_id IN ({marks})"
        async with self.conn.execute(query, tuple(honcho_ids)) as cursor:
            return {str(row[9]): item_from_row(row) for row in await cursor.fetchall()}

    async def hidden_norms(self) -> set[str]:
        """Comparison forms of sentences marked inactive and not also said by an active item."""
        query = "SELECT norm, status FROM items"
        async with self.conn.execute(query) as cursor:
            rows = await cursor.fetchall()
        active = {str(norm) for norm, status in rows if status == "active"}
        return {str(norm) for norm, status in rows if status != "active"} - active - {""}

    # -- inspection ------------------------------------------------------------------------

    async def items(self, *, include_inactive: bool, limit: int) -> list[MemoryItem]:
        """The newest conclusions first (only active ones unless ``include_inactive``)."""
        where = "kind != 'message'" + ("" if include_inactive else " AND status = 'active'")
        query = f"SELECT {ITEM_COLUMNS} FROM items WHERE {where} ORDER BY created_at DESC LIMIT ?"
        async with self.conn.execute(query, (limit,)) as cursor:
            return [item_from_row(row) for row in await cursor.fetchall()]

    async def detail(
        self, item_id: str
    ) -> tuple[MemoryItem, dict[str, Any], list[dict[str, Any]]] | None:
        """(item, record, history) of a ledger item, None when the id is unknown."""
        db = self.conn
        query = f"SELECT {ITEM_COLUMNS}, honcho_id, kind, updated_at FROM items WHERE id = ?"
        async with db.execute(query, (item_id,)) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return None
        return item_from_row(row), _record(row), await item_history(db, item_id)

    async def counts(self) -> tuple[dict[str, int], dict[str, int]]:
        """Items by status, and active conclusions by category."""
        db = self.conn
        async with db.execute("SELECT status, COUNT(*) FROM items GROUP BY status") as cursor:
            by_status = {str(r[0]): int(r[1]) for r in await cursor.fetchall()}
        async with db.execute(
            "SELECT category, COUNT(*) FROM items WHERE status = 'active' AND kind = 'conclusion'"
            " GROUP BY category"
        ) as cursor:
            by_category = {str(r[0]): int(r[1]) for r in await cursor.fetchall()}
        return by_status, by_category

    async def export(self) -> list[dict[str, Any]]:
        query = f"SELECT {ITEM_COLUMNS}, honcho_id, kind, updated_at FROM items ORDER BY created_at"
        async with self.conn.execute(query) as cursor:
            rows = await cursor.fetchall()
        return [_record(row) for row in rows]

    # -- delivery bookkeeping --------------------------------------------------------------

    async def active_ids(self, item_ids: Sequence[str]) -> set[str]:
        """Which of these item ids are still active."""
        query = f"SELECT id FROM items WHERE status = 'active' AND id IN ({_marks(len(item_ids))})"
        async with self.conn.execute(query, list(item_ids)) as cursor:
            return {str(row[0]) for row in await cursor.fetchall()}

    async def sent(self, item_id: str, honcho_id: str) -> None:
        """A conclusion reached the server as ``honcho_id`` (committed with its batch)."""
        await self.conn.execute(
            "UPDATE items SET honcho_id = ?, updated_at = ? WHERE id = ?",
            (honcho_id, _now(), item_id),
        )
        await self.event(item_id, "sent", f"conclusion {honcho_id}")
