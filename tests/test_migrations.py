"""Schema migrations: every missing one in one transaction, and each applied once even when
two processes (the daemon and ``personad memory``) open an old file at the same moment; a
file a newer version wrote is refused, untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import aiosqlite
import pytest

from bot.daemon.errors import MemoryStoreError
from bot.delivery.migrations import Migration, apply_migrations
from bot.memory.sqlite.opening import open_database
from bot.memory.sqlite.schema import SCHEMA_VERSION

__all__: list[str] = []

MIGRATIONS: list[Migration] = [
    (1, "CREATE TABLE notes (text TEXT NOT NULL);"),
    (2, "ALTER TABLE notes ADD COLUMN said REAL;"),
    (3, "CREATE INDEX notes_said ON notes (said);"),
]


async def _version(db: aiosqlite.Connection) -> list[int]:
    return [int(v) for (v,) in await db.execute_fetchall("SELECT version FROM schema_version")]


async def test_a_file_is_brought_up_to_the_newest_version_once(tmp_path: Path) -> None:
    async with aiosqlite.connect(tmp_path / "a.db", isolation_level=None) as db:
        assert await apply_migrations(db, MIGRATIONS[:1]) == 1
        assert await apply_migrations(db, MIGRATIONS) == 3
        assert await apply_migrations(db, MIGRATIONS) == 3
        assert await _version(db) == [1, 2, 3]


async def test_a_process_that_read_the_version_late_leaves_the_other_process_s_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both read version 1; the other process applies 2 and 3 first: this one's script is
    refused at its first version row and rolled back whole (its ALTER TABLE would fail on a
    column that is there now), and it reads the version again."""
    path = tmp_path / "a.db"
    async with (
        aiosqlite.connect(path, isolation_level=None) as late,
        aiosqlite.connect(path, isolation_level=None) as first,
    ):
        await apply_migrations(late, MIGRATIONS[:1])
        await late.execute("DROP TRIGGER schema_version_once")  # a file of an older version
        read = late.execute_fetchall
        reads: list[str] = []

        async def read_before_the_other(sql: str, *args: Any) -> Any:
            rows = await read(sql, *args)
            if "schema_version" in sql and not reads:
                reads.append(sql)
                assert await apply_migrations(first, MIGRATIONS) == 3  # meanwhile
            return rows

        monkeypatch.setattr(late, "execute_fetchall", read_before_the_other)
        assert await apply_migrations(late, MIGRATIONS) == 3
        monkeypatch.undo()
        assert await _version(late) == [1, 2, 3]
        columns = [row[1] for row in await late.execute_fetchall("PRAGMA table_info(notes)")]
        assert columns == ["text", "said"]


async def test_a_migration_that_fails_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    async with aiosqlite.connect(tmp_path / "a.db", isolation_level=None) as db:
        await apply_migrations(db, MIGRATIONS[:1])
        broken = [*MIGRATIONS[:2], (3, "CREATE INDEX nowhere ON missing (x);")]
        with pytest.raises(aiosqlite.OperationalError, match="missing"):
            await apply_migrations(db, broken)
        assert await _version(db) == [1]
        columns = [row[1] for row in await db.execute_fetchall("PRAGMA table_info(notes)")]
        assert columns == ["text"]


async def test_a_file_already_up_to_date_opens_while_another_process_writes(
    tmp_path: Path,
) -> None:
    """As a file an older version brought up to date, without the version table's guard."""
    path = tmp_path / "a.db"
    async with aiosqlite.connect(path, isolation_level=None) as db:
        await apply_migrations(db, MIGRATIONS)
        await db.execute("DROP TRIGGER schema_version_once")
    async with (
        aiosqlite.connect(path, isolation_level=None) as writer,
        aiosqlite.connect(path, isolation_level=None, timeout=0.05) as other,
    ):
        await writer.execute("BEGIN IMMEDIATE")
        await writer.execute("INSERT INTO notes (text) VALUES ('held')")
        assert await apply_migrations(other, MIGRATIONS) == 3
        await writer.execute("COMMIT")


async def test_a_file_a_newer_version_wrote_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    async with aiosqlite.connect(tmp_path / "a.db", isolation_level=None) as db:
        await apply_migrations(db, MIGRATIONS)
        with pytest.raises(sqlite3.DatabaseError, match=r"version 3, newer than .* knows \(2\)"):
            await apply_migrations(db, MIGRATIONS[:2])
        assert await _version(db) == [1, 2, 3]


async def test_a_memory_store_a_newer_version_wrote_says_so(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    db = await open_database(path)
    await db.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION + 1,))
    await db.close()
    with pytest.raises(MemoryStoreError, match="newer than this personad knows"):
        await open_database(path)
