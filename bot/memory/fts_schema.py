"""The schema of a persona's ``memory.db``, as numbered migrations, and how it is opened.

Tables:

* ``items``: one row per memory, never deleted (a ``BEFORE DELETE`` trigger refuses). ``status``
  is ``active``, ``superseded`` (its line left MEMORY.md/USER.md) or ``forgotten``.
* ``items_fts``: FTS5 over ``items.text`` with ``unicode61 remove_diacritics 2``; triggers keep
  it holding exactly the active items, so recall needs no status filter.
* ``vectors`` (v2): one float32 embedding per item, with the model that made it.
* ``item_events`` (v3): the history ``explain`` shows (created, reinforced, superseded, ...).
* ``mirror_lines`` (v3): which line of which file each mirrored item came from.
* ``items_vocab`` (v3): FTS5's own term statistics (documents per term) for query planning.

:class:`FtsStore` holds every SQL statement the backend runs, each write one transaction.

Corrupt files are refused, never repaired or replaced: :func:`open_database` raises
:class:`MemoryStoreError` naming the file, which stays untouched for a person to inspect.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiosqlite
import structlog

from bot.errors import MemoryStoreError
from bot.memory.base import Category, MemoryItem, format_citation
from bot.memory.scoring import Candidate
from bot.migrations import Migration, apply_migrations

__all__ = [
    "DF_CACHE_WRITES",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "FtsStore",
    "RecallRow",
    "describe_sqlite_error",
    "open_database",
]

log = structlog.get_logger(__name__)

DF_CACHE_WRITES = 500
"""Writes after which the cached document frequencies used for query planning are dropped."""

_V1 = (
    """
CREATE TABLE items (
    id INTEGER PRIMARY KEY,
    text TEXT NOT NULL,
    norm TEXT NOT NULL,
    category TEXT NOT NULL,
    source TEXT NOT NULL,
    confidence REAL NOT NULL,
    status TEXT NOT NULL DEFAULT 'active',
    created_at REAL NOT NULL,
    last_seen REAL NOT NULL,
    reinforced INTEGER NOT NULL DEFAULT 0,
    reason TEXT NOT NULL DEFAULT ''
);
CREATE INDEX items_norm ON items (norm, status);
CREATE INDEX items_source ON items (source, status);
CREATE INDEX items_created ON items (created_at);
CREATE VIRTUAL TABLE items_fts USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');
"""
    # Trigger bodies stay on one line: migrations split statements at ";" + newline.
    "CREATE TRIGGER items_fts_insert AFTER INSERT ON items WHEN new.status = 'active' BEGIN "
    "INSERT INTO items_fts (rowid, text) VALUES (new.id, new.text); END;\n"
    "CREATE TRIGGER items_fts_update AFTER UPDATE OF status, text ON items "
    "WHEN old.status IS NOT new.status OR old.text IS NOT new.text BEGIN "
    "DELETE FROM items_fts WHERE rowid = old.id AND old.status = 'active'; "
    "INSERT INTO items_fts (rowid, text) SELECT new.id, new.text WHERE new.status = 'active'; "
    "END;\n"
    "CREATE TRIGGER items_never_deleted BEFORE DELETE ON items BEGIN "
    "SELECT RAISE(ABORT, 'memory items are never deleted; mark them forgotten'); END;\n"
)

_V2 = """
CREATE TABLE vectors (
    item_id INTEGER PRIMARY KEY REFERENCES items (id),
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vec BLOB NOT NULL
);
"""

_V3 = (
    """
CREATE TABLE item_events (
    id INTEGER PRIMARY KEY,
    item_id INTEGER NOT NULL REFERENCES items (id),
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX item_events_item ON item_events (item_id);
CREATE VIRTUAL TABLE items_vocab USING fts5vocab (items_fts, row);
"""
    "CREATE TRIGGER items_created_event AFTER INSERT ON items BEGIN "
    "INSERT INTO item_events (item_id, at, kind, detail) "
    "VALUES (new.id, new.created_at, 'created', new.source || ': ' || new.reason); END;\n"
    """CREATE TABLE mirror_lines (
    filename TEXT NOT NULL,
    norm TEXT NOT NULL,
    item_id INTEGER NOT NULL REFERENCES items (id),
    present INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (filename, norm)
);
"""
)

MIGRATIONS: list[Migration] = [(1, _V1), (2, _V2), (3, _V3)]
SCHEMA_VERSION = max(version for version, _ in MIGRATIONS)


def describe_sqlite_error(path: Path, exc: sqlite3.Error) -> str:
    """One sentence a person can act on, for the usual ways a database file goes wrong."""
    text = str(exc).lower()
    code = str(getattr(exc, "sqlite_errorname", ""))
    if code.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or any(
        sign in text for sign in ("not a database", "malformed", "corrupt", "vtable constructor")
    ):
        return (
            f"memory database {path} is corrupt or not a SQLite file ({exc}); it was left "
            f"untouched: restore it from a backup, or move it aside (e.g. to "
            f"{path.name}.corrupt-<date>) to start this persona's memory afresh"
        )
    if "locked" in text or "busy" in text:
        return (
            f"memory database {path} is locked by another process ({exc}); close whatever "
            f"holds it (another personad, a sqlite3 shell) and try again"
        )
    if "readonly" in text or "unable to open" in text or "disk i/o" in text:
        return f"memory database {path} cannot be opened for writing ({exc})"
    return f"memory database {path} failed: {exc}"


async def open_database(
    path: Path, *, migrations: list[Migration] | None = None, busy_timeout: float = 5.0
) -> aiosqlite.Connection:
    """Open ``path`` in WAL mode and bring its schema up to date (or to ``migrations``)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MemoryStoreError(f"cannot create memory folder {path.parent}: {exc}") from exc
    db: aiosqlite.Connection | None = None
    try:
        db = await aiosqlite.connect(path, isolation_level=None, timeout=busy_timeout)
        await db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        async with db.execute("PRAGMA journal_mode = WAL") as cursor:
            await cursor.fetchone()
        # WAL + NORMAL: a crash of the process loses nothing; a power cut may lose the last
        # commits but never corrupts the file. FULL cost a third of the write rate.
        await db.execute("PRAGMA synchronous = NORMAL")
        await db.execute("PRAGMA foreign_keys = ON")
        await apply_migrations(db, MIGRATIONS if migrations is None else migrations)
    except sqlite3.Error as exc:
        if db is not None:
            await db.close()
        raise MemoryStoreError(
            describe_sqlite_error(path, exc),
            user_message="My memory store cannot be opened right now.",
        ) from exc
    return db


_ITEM_COLUMNS = (
    "i.id, i.text, i.category, i.source, i.confidence, i.status, i.created_at, i.last_seen,"
    " i.reinforced"
)


@dataclass(slots=True)
class RecallRow:
    """A recall candidate: its row, and the numbers scoring needs."""

    row: Sequence[Any]
    candidate: Candidate

    def item(self) -> MemoryItem:
        return _item(self.row)


def _item(row: Sequence[Any]) -> MemoryItem:
    return MemoryItem(
        id=str(row[0]),
        text=row[1],
        category=row[2],
        source=row[3],
        confidence=float(row[4]),
        created_at=datetime.fromtimestamp(row[6], UTC),
        status=row[5],
        reinforced=int(row[8]),
    )


def _recall_row(row: Sequence[Any], bm25_raw: float) -> RecallRow:
    return RecallRow(row, Candidate(int(row[0]), row[2], float(row[7]), bm25_raw=bm25_raw))


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


class FtsStore:
    """The SQL of ``memory.db``: every statement the backend runs, errors translated."""

    def __init__(self, path: Path, *, busy_timeout: float = 5.0) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self._db: aiosqlite.Connection | None = None
        self._df_cache: dict[str, int] = {}
        self._writes = 0

    async def open(self) -> None:
        if self._db is None:
            self._db = await open_database(self.path, busy_timeout=self.busy_timeout)

    async def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise MemoryStoreError(f"memory database {self.path} is not open")
        return self._db

    def _error(self, exc: sqlite3.Error) -> MemoryStoreError:
        return MemoryStoreError(
            describe_sqlite_error(self.path, exc),
            user_message="My memory store failed; nothing was changed.",
        )

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Sequence[Any]]:
        try:
            return list(await self.db.execute_fetchall(sql, params))
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction; rolled back whole on any error."""
        db = self.db
        try:
            await db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        try:
            yield db
            await db.execute("COMMIT")
        except BaseException as exc:
            try:
                await db.execute("ROLLBACK")
            except sqlite3.Error:
                log.warning("memory.rollback_failed", path=str(self.path))
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc) from exc
            raise

    @staticmethod
    async def _event(
        db: aiosqlite.Connection, rowid: int, at: float, kind: str, detail: str
    ) -> None:
        await db.execute(
            "INSERT INTO item_events (item_id, at, kind, detail) VALUES (?, ?, ?, ?)",
            (rowid, at, kind, detail),
        )

    # -- vectors ------------------------------------------------------------------------------

    async def vectors(self, model: str, dim: int) -> tuple[list[int], list[bytes], list[bool]]:
        rows = await self._all(
            "SELECT v.item_id, v.vec, i.status = 'active' FROM vectors v"
            " JOIN items i ON i.id = v.item_id WHERE v.model = ? AND v.dim = ? ORDER BY v.item_id",
            (model, dim),
        )
        return [r[0] for r in rows], [r[1] for r in rows], [bool(r[2]) for r in rows]

    async def items_without_vectors(self, model: str, dim: int) -> list[tuple[int, str]]:
        rows = await self._all(
            "SELECT id, text FROM items WHERE status = 'active' AND id NOT IN"
            " (SELECT item_id FROM vectors WHERE model = ? AND dim = ?) ORDER BY id",
            (model, dim),
        )
        return [(int(r[0]), str(r[1])) for r in rows]

    async def put_vectors(self, rowids: Sequence[int], vectors: Any, model: str) -> None:
        async with self._tx() as db:
            await db.executemany(
                "INSERT INTO vectors (item_id, model, dim, vec) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (item_id) DO UPDATE SET model = excluded.model,"
                " dim = excluded.dim, vec = excluded.vec",
                [
                    (rowid, model, int(vector.shape[0]), vector.astype("<f4").tobytes())
                    for rowid, vector in zip(rowids, vectors, strict=True)
                ],
            )

    # -- items --------------------------------------------------------------------------------

    async def active_by_norm(self, norm: str) -> tuple[int, Category, float] | None:
        rows = await self._all(
            "SELECT id, category, last_seen FROM items WHERE norm = ? AND status = 'active'"
            " ORDER BY id LIMIT 1",
            (norm,),
        )
        return (int(rows[0][0]), rows[0][1], float(rows[0][2])) if rows else None

    async def active_by_id(self, rowid: int) -> tuple[int, Category, float] | None:
        rows = await self._all(
            "SELECT id, category, last_seen FROM items WHERE id = ? AND status = 'active'",
            (rowid,),
        )
        return (int(rows[0][0]), rows[0][1], float(rows[0][2])) if rows else None

    async def is_active(self, rowid: int) -> bool:
        return await self.active_by_id(rowid) is not None

    async def insert_unless_known(
        self,
        text: str,
        norm: str,
        category: Category,
        source: str,
        confidence: float,
        at: float,
        reason: str,
    ) -> int | None:
        """Insert a new item unless an active one has the same normal form; its rowid or None.

        One statement (a trigger records the "created" event), so one round trip.
        """
        rows = await self._all(
            "INSERT INTO items (text, norm, category, source, confidence, created_at,"
            " last_seen, reason) SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS"
            " (SELECT 1 FROM items WHERE norm = ? AND status = 'active') RETURNING id",
            (text, norm, category, source, confidence, at, at, reason, norm),
        )
        self._wrote()
        return int(rows[0][0]) if rows else None

    async def reinforce(self, rowid: int, *, at: float, source: str) -> None:
        async with self._tx() as db:
            await db.execute(
                "UPDATE items SET reinforced = reinforced + 1,"
                " confidence = MIN(0.99, confidence + (1.0 - confidence) * 0.2),"
                " last_seen = MAX(last_seen, ?) WHERE id = ?",
                (at, rowid),
            )
            await self._event(db, rowid, at, "reinforced", source)

    async def forget(self, rowid: int, *, at: float) -> bool:
        async with self._tx() as db:
            cursor = await db.execute("SELECT status FROM items WHERE id = ?", (rowid,))
            row = await cursor.fetchone()
            if row is None:
                return False
            if row[0] != "forgotten":
                await db.execute("UPDATE items SET status = 'forgotten' WHERE id = ?", (rowid,))
                await self._event(db, rowid, at, "forgotten", f"was {row[0]}")
                self._wrote()
        return True

    # -- mirror bookkeeping --------------------------------------------------------------------

    async def mirror_state(self, filename: str) -> dict[str, tuple[int, bool]]:
        rows = await self._all(
            "SELECT norm, item_id, present FROM mirror_lines WHERE filename = ?", (filename,)
        )
        return {str(r[0]): (int(r[1]), bool(r[2])) for r in rows}

    async def mirror_record(self, filename: str, norm: str, rowid: int) -> None:
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO mirror_lines (filename, norm, item_id, present) VALUES (?, ?, ?, 1)"
                " ON CONFLICT (filename, norm) DO UPDATE SET item_id = excluded.item_id,"
                " present = 1",
                (filename, norm, rowid),
            )

    async def mirror_return(self, filename: str, norm: str, rowid: int, *, at: float) -> None:
        """A line came back to the file: its item, if superseded, is active again."""
        async with self._tx() as db:
            await db.execute(
                "UPDATE mirror_lines SET present = 1 WHERE filename = ? AND norm = ?",
                (filename, norm),
            )
            cursor = await db.execute(
                "UPDATE items SET status = 'active' WHERE id = ? AND status = 'superseded'",
                (rowid,),
            )
            if cursor.rowcount:
                await self._event(db, rowid, at, "reactivated", f"line back in {filename}")
                self._wrote()

    async def mirror_leave(self, filename: str, norm: str, rowid: int, *, at: float) -> bool:
        """A line left the file: its item, if it came from that file, is superseded."""
        async with self._tx() as db:
            await db.execute(
                "UPDATE mirror_lines SET present = 0 WHERE filename = ? AND norm = ?",
                (filename, norm),
            )
            cursor = await db.execute(
                "UPDATE items SET status = 'superseded'"
                " WHERE id = ? AND status = 'active' AND source = ?",
                (rowid, filename),
            )
            if cursor.rowcount:
                await self._event(db, rowid, at, "superseded", f"line removed from {filename}")
                self._wrote()
            return bool(cursor.rowcount)

    # -- recall --------------------------------------------------------------------------------

    async def match(self, query: str, limit: int, *, newest: int | None = None) -> list[RecallRow]:
        """The ``limit`` best BM25 matches (the FTS table holds only active items), ranked among
        the ``newest`` matching memories when given: one statement, one round trip."""
        window = ""
        params: tuple[Any, ...] = (query, limit)
        if newest is not None:
            window = (
                " AND rowid >= COALESCE((SELECT rowid FROM items_fts WHERE items_fts MATCH ?1"
                " ORDER BY rowid DESC LIMIT 1 OFFSET ?3), 0)"
            )
            params = (query, limit, max(0, newest - 1))
        rows = await self._all(
            f"SELECT {_ITEM_COLUMNS}, f.rank FROM (SELECT rowid, rank FROM items_fts"
            f" WHERE items_fts MATCH ?1{window} ORDER BY rank LIMIT ?2) f"
            " JOIN items i ON i.id = f.rowid",
            params,
        )
        return [_recall_row(row, float(row[9])) for row in rows]

    async def doc_frequencies(self, tokens: Sequence[str]) -> dict[str, int]:
        """How many active memories hold each token (tokens in indexed, folded form).

        FTS5 counts them by reading each word's whole posting list, so known counts are kept
        for :data:`DF_CACHE_WRITES` writes: they only steer query planning, where a count a
        little stale does no harm. Absent words are never cached, so a new word is found at once.
        """
        missing = [token for token in tokens if token not in self._df_cache]
        if missing:
            marks = ",".join("?" * len(missing))
            rows = await self._all(
                f"SELECT term, doc FROM items_vocab WHERE term IN ({marks})", missing
            )
            if len(self._df_cache) > 50_000:
                self._df_cache.clear()
            self._df_cache.update((str(term), int(doc)) for term, doc in rows)
        return {token: self._df_cache[token] for token in tokens if token in self._df_cache}

    def _wrote(self) -> None:
        self._writes += 1
        if self._writes >= DF_CACHE_WRITES:
            self._writes = 0
            self._df_cache.clear()

    async def rows_by_id(self, rowids: Sequence[int]) -> list[RecallRow]:
        if not rowids:
            return []
        marks = ",".join("?" * len(rowids))
        rows = await self._all(
            f"SELECT {_ITEM_COLUMNS} FROM items i WHERE i.id IN ({marks}) AND status = 'active'",
            list(rowids),
        )
        return [_recall_row(row, 0.0) for row in rows]

    async def standing_items(self, exclude_sources: Sequence[str], limit: int) -> list[MemoryItem]:
        """Preferences and decisions stated in conversation, most reinforced first."""
        marks = ",".join("?" * len(exclude_sources))
        rows = await self._all(
            f"SELECT {_ITEM_COLUMNS} FROM items i WHERE status = 'active'"
            f" AND category IN ('preference', 'decision') AND source NOT IN ({marks})"
            " ORDER BY reinforced DESC, confidence DESC, last_seen DESC LIMIT ?",
            [*exclude_sources, limit],
        )
        return [_item(row) for row in rows]

    # -- inspection -----------------------------------------------------------------------------

    async def list_items(self, *, include_inactive: bool, limit: int) -> list[MemoryItem]:
        where = "" if include_inactive else "WHERE status = 'active'"
        rows = await self._all(
            f"SELECT {_ITEM_COLUMNS} FROM items i {where} ORDER BY created_at DESC, id DESC"
            " LIMIT ?",
            (max(0, limit),),
        )
        return [_item(row) for row in rows]

    async def _details(self, where: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        rows = await self._all(f"SELECT {_ITEM_COLUMNS}, i.reason FROM items i {where}", params)
        return [
            {
                "id": str(r[0]),
                "text": r[1],
                "category": r[2],
                "source": r[3],
                "confidence": round(float(r[4]), 4),
                "status": r[5],
                "created": _iso(r[6]),
                "last_seen": _iso(r[7]),
                "reinforced": int(r[8]),
                "reason": r[9],
            }
            for r in rows
        ]

    async def explain(self, rowid: int) -> dict[str, Any]:
        found = await self._details("WHERE i.id = ?", (rowid,))
        if not found:
            return {}
        details = found[0]
        item = MemoryItem(
            details["id"],
            details["text"],
            details["category"],
            details["source"],
            details["confidence"],
            datetime.fromisoformat(details["created"]),
        )
        details["citation"] = format_citation(item)
        events = await self._all(
            "SELECT at, kind, detail FROM item_events WHERE item_id = ? ORDER BY id", (rowid,)
        )
        details["history"] = [{"at": _iso(e[0]), "kind": e[1], "detail": e[2]} for e in events]
        vectors = await self._all("SELECT model FROM vectors WHERE item_id = ?", (rowid,))
        details["vector_model"] = vectors[0][0] if vectors else None
        return details

    async def export(self) -> list[dict[str, Any]]:
        return await self._details("ORDER BY i.id", ())

    async def stats(self) -> dict[str, Any]:
        by_status = await self._all("SELECT status, COUNT(*) FROM items GROUP BY status")
        by_category = await self._all(
            "SELECT category, COUNT(*) FROM items WHERE status = 'active' GROUP BY category"
        )
        vectors = await self._all("SELECT COUNT(*) FROM vectors")
        version = await self._all("SELECT MAX(version) FROM schema_version")
        return {
            "path": str(self.path),
            "schema_version": int(version[0][0] or 0),
            "items": sum(int(r[1]) for r in by_status),
            "by_status": {str(r[0]): int(r[1]) for r in by_status},
            "by_category": {str(r[0]): int(r[1]) for r in by_category},
            "vectors_stored": int(vectors[0][0]),
            "size_bytes": self.path.stat().st_size if self.path.exists() else 0,
        }
