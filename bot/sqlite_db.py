"""Opening a SQLite database the way every store in personad does.

WAL journal, ``synchronous=NORMAL`` (a crash of the process loses nothing; a power cut may
lose the last commits but never corrupts the file), a busy timeout so a short lock is waited
out, and the store's numbered migrations applied. Any failure closes the connection and is
raised as the caller's error class, naming the file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite

from bot.errors import PersonadError
from bot.migrations import Migration, apply_migrations

__all__ = ["open_sqlite"]


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
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise error(f"cannot create the folder of {path}: {exc}") from exc
    try:
        if autocommit:
            db = await aiosqlite.connect(path, isolation_level=None, timeout=busy_timeout)
        else:
            db = await aiosqlite.connect(path, timeout=busy_timeout)
    except (sqlite3.Error, OSError) as exc:
        raise error(f"cannot open {path}: {exc}") from exc
    try:
        await db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
        await db.execute("PRAGMA journal_mode = WAL")
        await db.execute("PRAGMA synchronous = NORMAL")
        await apply_migrations(db, migrations)
    except (sqlite3.Error, ValueError) as exc:
        await db.close()
        raise error(f"cannot read {path}: {exc}") from exc
    return db
