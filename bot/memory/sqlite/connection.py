"""One connection to a persona's ``memory.db``: open, close, reads and write transactions.

:class:`FtsConnection` is the base of :class:`~bot.memory.sqlite.store.FtsStore`. It opens the
file through :func:`~bot.memory.sqlite.opening.open_database` (which brings the schema up to date)
and gives its subclasses two ways to reach it: :meth:`FtsConnection._all` for a statement
whose rows are wanted (word counts among them: :meth:`FtsConnection._vocabulary`), and
:meth:`FtsConnection._tx` for one write transaction, rolled back whole on any error.
The connection is one, and every coroutine of the persona (two rooms' turns, distillation, an
admin's ``forget``) shares it: a transaction holds it alone until it ends, so another's
``BEGIN`` never lands inside it ("cannot start a transaction within a transaction") and no
statement of another joins it (and is rolled back with it). Inside a ``_tx`` block, statements
go through the connection it gives, never through ``_all``, which would wait for it.
Every :class:`sqlite3.Error` becomes a :class:`~bot.daemon.errors.MemoryStoreError` naming the file.
A subclass that opens a file of another schema (:class:`~bot.memory.episodes.file.EpisodeFile`)
names its ``migrations``.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, ClassVar

import aiosqlite
import structlog

from bot.daemon.errors import MemoryStoreError
from bot.delivery.migrations import Migration
from bot.memory.sqlite.opening import describe_sqlite_error, open_database
from bot.memory.sqlite.seed import seed_database

__all__ = ["FtsConnection", "Labels", "labels_in"]

log = structlog.get_logger(__name__)


Labels = Sequence[str] | None
"""The audience labels a read may return (:attr:`bot.turn.audience.Audience.labels`; None: any)."""


def labels_in(column: str, labels: Labels, first: int) -> tuple[str, list[str]]:
    """`` AND column IN (?first, ...)`` and its parameters; nothing for ``labels`` None."""
    if labels is None:
        return "", []
    marks = ",".join(f"?{first + n}" for n in range(len(labels)))
    return f" AND {column} IN ({marks})", list(labels)


class FtsConnection:
    """The connection to ``memory.db`` and the two ways statements run on it."""

    #: the schema the file is brought up to (None: the whole of ``memory.db``'s)
    migrations: ClassVar[list[Migration] | None] = None

    def __init__(self, path: Path, *, busy_timeout: float = 5.0) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self._db: aiosqlite.Connection | None = None
        #: held by a transaction from BEGIN to its end, and by one statement of ``_all``
        self._turn = asyncio.Lock()

    async def open(self) -> None:
        if self._db is None:
            # created 0600 before SQLite opens it, which gives -wal and -shm the same mode
            try:
                await seed_database(self.path, self.migrations)
            except OSError as exc:
                raise MemoryStoreError(
                    f"cannot create memory database {self.path}: {exc}",
                    user_message="My memory store cannot be opened right now.",
                ) from exc
            self._db = await open_database(
                self.path, migrations=self.migrations, busy_timeout=self.busy_timeout
            )

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
        async with self._turn:
            try:
                return list(await self.db.execute_fetchall(sql, params))
            except sqlite3.Error as exc:
                raise self._error(exc) from exc

    async def _vocabulary(self, table: str, words: Sequence[str]) -> list[tuple[str, int]]:
        """``(word, documents holding it)`` from the fts5vocab ``table``, for the ``words``
        it holds."""
        marks = ",".join("?" * len(words))
        rows = await self._all(f"SELECT term, doc FROM {table} WHERE term IN ({marks})", words)
        return [(str(term), int(doc)) for term, doc in rows]

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction; rolled back whole on any error."""
        async with self._tx_in(self.db) as db:
            yield db

    @asynccontextmanager
    async def _tx_in(self, db: aiosqlite.Connection) -> AsyncIterator[aiosqlite.Connection]:
        async with self._turn:
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
