"""Opening a SQLite database the way every store in personad does.

WAL journal, ``synchronous=NORMAL`` (a crash of the process loses nothing; a power cut may
lose the last commits but never corrupts the file), a busy timeout so a short lock is waited
out, and the store's numbered migrations applied. The file is created 0600 (and tightened if
looser) before SQLite opens it: SQLite gives its ``-wal`` and ``-shm`` files the database's
mode, so they are private too. Any failure closes the connection and is raised as the
caller's error class, naming the file.

A store whose rows hold text that must not outlive them (``personad.db``) opens with
``secure_delete``: SQLite then zeroes what a delete or an update frees instead of leaving the
old bytes in the page's free space. The WAL still holds the pages as they were before, and an
ordinary checkpoint (SQLite's own, every 1000 pages) copies them back into the file but
leaves the WAL's bytes where they are, to be overwritten some time later; so after removing
such rows the store calls :meth:`SqliteFile.checkpoint_soon`, and within
:attr:`~SqliteFile.checkpoint_delay` a ``wal_checkpoint(TRUNCATE)`` copies the WAL into the
file and truncates it to nothing. (``journal_size_limit`` would not do: it trims the WAL
only when the next write starts it over, and only down to the limit.) The checkpoint runs
between statements, never inside a transaction: such stores commit every statement by
itself (``autocommit``).
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import ClassVar

import aiosqlite
import structlog

from bot.daemon.disk import run_blocking
from bot.daemon.errors import PersonadError
from bot.delivery.backoff import LoopTask
from bot.delivery.migrations import Migration, SqlFunction, apply_migrations
from bot.setup.permissions import create_private_file

__all__ = ["SqliteFile", "open_sqlite"]

log = structlog.get_logger(__name__)


async def open_sqlite(
    path: Path,
    migrations: list[Migration],
    *,
    error: type[PersonadError],
    busy_timeout: float = 5.0,
    autocommit: bool = False,
    secure_delete: bool = False,
    functions: Mapping[str, SqlFunction] | None = None,
) -> aiosqlite.Connection:
    """Open ``path`` (creating its folder) and bring its schema up to date (its migrations may
    call ``functions``)."""
    try:
        await run_blocking(create_private_file, path)
    except OSError as exc:
        raise error(f"cannot create {path}: {exc}") from exc
    try:
        if autocommit:
            db = await aiosqlite.connect(path, isolation_level=None, timeout=busy_timeout)
        else:
            db = await aiosqlite.connect(path, timeout=busy_timeout)
    except (sqlite3.Error, OSError) as exc:
        raise error(f"cannot open {path}: {exc}") from exc
    try:
        await apply_migrations(
            db,
            migrations,
            setup=f"PRAGMA busy_timeout = {int(busy_timeout * 1000)};"
            " PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
            # otherwise SQLite's build decides (Debian's zeroes, SQLite's own default does not)
            + (" PRAGMA secure_delete = ON;" if secure_delete else ""),
            functions=functions,
        )
    except (sqlite3.Error, ValueError) as exc:
        await db.close()
        raise error(f"cannot read {path}: {exc}") from exc
    return db


class SqliteFile:
    """One SQLite file a store owns: opened through :func:`open_sqlite` with the subclass's
    ``migrations``, closed, and reached through :attr:`conn` (the subclass's ``error`` when it
    is not open)."""

    migrations: ClassVar[list[Migration]] = []
    #: the SQL functions its connection has (its migrations may call them)
    functions: ClassVar[Mapping[str, SqlFunction]] = {}
    error: ClassVar[type[PersonadError]] = PersonadError
    #: every statement commits by itself (no implicit transactions)
    autocommit: ClassVar[bool] = False
    #: freed bytes are zeroed (``PRAGMA secure_delete``), whatever SQLite's build does
    secure_delete: ClassVar[bool] = False
    #: seconds from :meth:`checkpoint_soon` to the checkpoint (what else is removed meanwhile
    #: goes with it)
    checkpoint_delay: ClassVar[float] = 0.5

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: aiosqlite.Connection | None = None
        self._removed = asyncio.Event()
        self._checkpoints = LoopTask(self._checkpoint_when_removed)

    @property
    def is_open(self) -> bool:
        return self._db is not None

    async def open(self) -> None:
        """Connect and bring the schema up to date (the folder is created if needed)."""
        if self._db is None:
            self._db = await open_sqlite(
                self.path,
                self.migrations,
                error=self.error,
                autocommit=self.autocommit,
                secure_delete=self.secure_delete,
                functions=self.functions,
            )

    async def close(self) -> None:
        await self._checkpoints.stop()
        if self._db is not None:
            if self._removed.is_set():  # no old copy is left behind for the next start
                with contextlib.suppress(PersonadError):
                    await self.checkpoint()
            db, self._db = self._db, None
            await db.close()

    async def checkpoint(self) -> bool:
        """Copy every page the WAL holds into the file and truncate the WAL to nothing
        (``wal_checkpoint(TRUNCATE)``), so no older copy of a row stays in it. False when
        a reader on another connection held it off past the busy timeout: the WAL stays."""
        try:
            rows = list(await self.conn.execute_fetchall("PRAGMA wal_checkpoint(TRUNCATE)"))
        except sqlite3.Error as exc:
            raise self.error(f"cannot checkpoint {self.path.name}: {exc}") from exc
        return not (rows and rows[0][0])

    def checkpoint_soon(self) -> None:
        """Rows holding text were removed (or rewritten): the WAL, which still holds their
        old copies, is checkpointed away within :attr:`checkpoint_delay` seconds."""
        self._removed.set()
        self._checkpoints.start()

    async def _checkpoint_when_removed(self) -> None:
        while True:
            await self._removed.wait()
            await asyncio.sleep(self.checkpoint_delay)
            self._removed.clear()  # what is removed from here on waits for the next one
            try:
                done = await self.checkpoint()
            except PersonadError as exc:
                log.error("sqlite.checkpoint_failed", file=self.path.name, error=str(exc))
                continue
            if not done:
                log.warning("sqlite.checkpoint_busy", file=self.path.name)
                self._removed.set()  # tried again after the delay

    @property
    def conn(self) -> aiosqlite.Connection:
        if self._db is None:
            raise self.error(f"{self.path.name} is not open")
        return self._db
