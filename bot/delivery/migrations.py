"""Numbered schema migrations, applied in order at open, all the missing ones in one
transaction (all or none).

Every SQLite file of the daemon (``personad.db``, each persona's ``memory.db``,
``holographic.db``, ``honcho.db``, ``episodes.db``) is brought up to date here, in three
trips to the connection's thread at most: the connection's set-up with the version table, the
version read, and the missing scripts with their version rows as one script. A new persona's
first turn used to wait for some fifty statements, one trip each. Two processes opening an old
file at once apply each migration once (the version table's guard, :data:`_ONCE`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Mapping

import aiosqlite

__all__ = ["Migration", "SqlFunction", "apply_migrations"]

Migration = tuple[int, str]

SqlFunction = Callable[[str], str]
"""A function of one text a store's migrations may call (SQLite's ``create_function``)."""


#: what the version table's guard says when another process applied a migration first
_APPLIED = "schema version already applied"

#: refuses a version row at or below the newest: a migration is applied once, even when two
#: processes (the daemon and ``personad memory``) open an old file at the same moment and both
#: read its version before either takes the write lock
_ONCE = (
    "CREATE TRIGGER IF NOT EXISTS schema_version_once BEFORE INSERT ON schema_version"
    " WHEN EXISTS (SELECT 1 FROM schema_version WHERE version >= NEW.version)"
    f" BEGIN SELECT RAISE(ABORT, '{_APPLIED}'); END;"
)


def _refuse_newer(version: int, migrations: list[Migration]) -> None:
    """Refuse a file of a schema newer than ``migrations`` know: a newer personad wrote it,
    and this one would write rows that its newer code reads otherwise."""
    newest = max((v for v, _ in migrations), default=0)
    if version > newest:
        raise sqlite3.DatabaseError(
            f"its schema is version {version}, newer than this personad knows ({newest}):"
            " a newer personad wrote it; upgrade again, or restore a copy from before"
        )


async def apply_migrations(
    db: aiosqlite.Connection,
    migrations: list[Migration],
    *,
    setup: str = "",
    functions: Mapping[str, SqlFunction] | None = None,
) -> int:
    """Give ``db`` the SQL ``functions`` (name: function of one text), run ``setup`` (pragmas:
    a script), then bring ``db`` up to the newest migration; return the schema version it
    ends at (a file of a newer schema is refused). Each missing migration's version row goes
    in first, under
    the write lock: if another process got there first the guard refuses it, the whole script
    rolls back, and the version is read again."""
    for name, function in (functions or {}).items():
        await db.create_function(name, 1, function, deterministic=True)
    await db.executescript(
        f"{setup}\nCREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);"
    )
    retried = False
    while True:
        rows = list(await db.execute_fetchall("SELECT MAX(version) FROM schema_version"))
        current = int(rows[0][0] or 0) if rows else 0
        _refuse_newer(current, migrations)
        pending = sorted((v, script) for v, script in migrations if v > current)
        if not pending:
            return current
        body = "\n".join(
            f"INSERT INTO schema_version (version) VALUES ({int(v)});\n{script.strip()}\n;"
            for v, script in pending
        )
        try:
            # the guard is made with the first migration it guards: a file already up to date
            # is opened without the write lock
            await db.executescript(f"BEGIN IMMEDIATE;\n{_ONCE}\n{body}\nCOMMIT;")
        except BaseException as exc:
            # the script stops at the failing statement with its transaction still open
            with contextlib.suppress(sqlite3.Error):
                await db.execute("ROLLBACK")
            first_there = isinstance(exc, sqlite3.IntegrityError) and _APPLIED in str(exc)
            if retried or not first_there:
                raise
            retried = True  # another process applied them: read the version again
            continue
        return pending[-1][0]
