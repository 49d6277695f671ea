"""Numbered schema migrations, applied in order at open, all the missing ones in one
transaction (all or none).

Every SQLite file of the daemon (``personad.db``, each persona's ``memory.db``,
``holographic.db``, ``honcho.db``, ``episodes.db``) is brought up to date here, in three
trips to the connection's thread at most: the connection's set-up with the version table, the
version read, and the missing scripts with their version rows as one script. A new persona's
first turn used to wait for some fifty statements, one trip each.
"""

from __future__ import annotations

import contextlib
import sqlite3

import aiosqlite

__all__ = ["Migration", "apply_migrations"]

Migration = tuple[int, str]


async def apply_migrations(
    db: aiosqlite.Connection, migrations: list[Migration], *, setup: str = ""
) -> int:
    """Run ``setup`` (pragmas: a script), then bring ``db`` up to the newest migration; return
    the schema version it ends at."""
    await db.executescript(
        f"{setup}\nCREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);"
    )
    rows = list(await db.execute_fetchall("SELECT MAX(version) FROM schema_version"))
    current = int(rows[0][0] or 0) if rows else 0
    pending = sorted((v, script) for v, script in migrations if v > current)
    if not pending:
        return current
    body = "\n".join(
        f"{script.strip()}\n;\nINSERT INTO schema_version (version) VALUES ({int(v)});"
        for v, script in pending
    )
    try:
        await db.executescript(f"BEGIN IMMEDIATE;\n{body}\nCOMMIT;")
    except BaseException:
        # the script stops at the failing statement with its transaction still open
        with contextlib.suppress(sqlite3.Error):
            await db.execute("ROLLBACK")
        raise
    return pending[-1][0]
