"""Numbered schema migrations, applied in order at start inside one transaction each."""

from __future__ import annotations

import aiosqlite

__all__ = ["Migration", "apply_migrations"]

Migration = tuple[int, str]


async def apply_migrations(db: aiosqlite.Connection, migrations: list[Migration]) -> int:
    """Bring ``db`` up to the newest migration; return the schema version it ends at."""
    await db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    async with db.execute("SELECT MAX(version) FROM schema_version") as cursor:
        row = await cursor.fetchone()
    current = int(row[0]) if row and row[0] is not None else 0
    for version, script in sorted(migrations):
        if version <= current:
            continue
        await db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(script):
                await db.execute(statement)
            await db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
        except BaseException:
            await db.rollback()
            raise
        await db.commit()
        current = version
    return current


def _statements(script: str) -> list[str]:
    """Split on ``;`` at line ends; migrations keep one statement per ``;``-terminated block."""
    parts = [part.strip() for part in script.split(";\n")]
    return [part.rstrip(";") for part in parts if part.strip()]
