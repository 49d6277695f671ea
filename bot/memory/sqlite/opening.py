"""How a persona's ``memory.db`` is opened: in WAL mode, with the SQL functions its migrations
call, and brought up to date by the numbered migrations of :mod:`bot.memory.sqlite.schema` (or
by the ``migrations`` a file of another schema names, as ``episodes.db`` does).

Corrupt files are refused, never repaired or replaced: :func:`open_database` raises
:class:`MemoryStoreError` naming the file, which stays untouched for a person to inspect.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite

from bot.daemon.errors import MemoryStoreError
from bot.delivery.migrations import Migration, apply_migrations
from bot.memory.normal_form import SQL_FUNCTIONS
from bot.memory.sqlite.schema import MIGRATIONS

__all__ = ["describe_sqlite_error", "open_database"]


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


# WAL + NORMAL: a crash of the process loses nothing; a power cut may lose the last commits
# but never corrupts the file. FULL cost a third of the write rate.
_SETUP = (
    "PRAGMA busy_timeout = {ms}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
    " PRAGMA foreign_keys = ON;"
)


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
        await apply_migrations(
            db,
            MIGRATIONS if migrations is None else migrations,
            setup=_SETUP.format(ms=int(busy_timeout * 1000)),
            functions=SQL_FUNCTIONS,
        )
    except sqlite3.Error as exc:
        if db is not None:
            await db.close()
        raise MemoryStoreError(
            describe_sqlite_error(path, exc),
            user_message="My memory store cannot be opened right now.",
        ) from exc
    return db
