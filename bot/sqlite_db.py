"""Opening a SQLite database the way every store in personad does.

WAL journal, ``synchronous=NORMAL`` (a crash of the process loses nothing; a power cut may
lose the last commits but never corrupts the file), a busy timeout so a short lock is waited
out, and the store's numbered migrations applied. The file is created 0600 (and tightened if
looser) before SQLite opens it: SQLite gives its ``-wal`` and ``-shm`` files the database's
mode, so they are private too. Any failure closes the connection and is raised as the
caller's error class, naming the file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import ClassVar

import aiosqlite

from bot.disk import run_blocking
from bot.errors import PersonadError
from bot.migrations import Migration, apply_migrations
from bot.permissions import create_private_file

__all__ = ["SqliteFile", "open_sqlite"]


async def open_sqlite(
    path: Path,
    migrations: list[Migration],
    *,
    error: type[PersonadError],
    busy_timeout: float = 5.0,
    autocommit: bool = False,
) -> aiosqlite.Connection:
    """Open ``path`` (creating its folder) and bring its schema up to date."""
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
            " PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;",
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
    error: ClassVar[type[PersonadError]] = PersonadError
    #: every statement commits by itself (no implicit transactions)
    autocommit: ClassVar[bool] = False

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: aiosqlite.Connection | None = None

    @property
    def is_open(self) -> bool:
        return self._db is not None

    async def open(self) -> None:
        """Connect and bring the schema up to date (the folder is created if needed)."""
        if self._db is None:
            self._db = await open_sqlite(
                self.path, self.migrations, error=self.error, autocommit=self.autocommit
            )

    async def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()

    @property
    def conn(self) -> aiosqlite.Connection:
        if self._db is None:
            raise self.error(f"{self.path.name} is not open")
        return self._db
