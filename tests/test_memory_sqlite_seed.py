"""A new persona's memory.db is a copy of an empty, current one; an existing one is never
replaced."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from bot.daemon.errors import MemoryStoreError
from bot.memory.sqlite import seed
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.opening import open_database
from bot.memory.sqlite.schema import EPISODE_FILE_MIGRATIONS, SCHEMA_VERSION
from bot.memory.sqlite.seed import seed_database


def _schema(path: Path) -> list[tuple[str, str, str | None]]:
    with sqlite3.connect(path) as db:
        return sorted(db.execute("SELECT type, name, sql FROM sqlite_master").fetchall())


def _version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0])


async def test_a_seeded_database_has_the_schema_the_migrations_make(tmp_path: Path) -> None:
    built = tmp_path / "built.db"
    db = await open_database(built)
    await db.close()
    seeded = tmp_path / "persona" / "memory.db"
    assert await seed_database(seeded)
    assert [p.name for p in seeded.parent.iterdir()] == ["memory.db"]  # no spare left behind
    assert _schema(seeded) == _schema(built)
    assert _version(seeded) == SCHEMA_VERSION
    assert stat.S_IMODE(seeded.stat().st_mode) == 0o600


async def test_each_schema_gets_its_own_template(tmp_path: Path) -> None:
    """episodes.db (beside the holographic store) is seeded with its own tables, not
    memory.db's."""
    built = tmp_path / "built.db"
    db = await open_database(built, migrations=EPISODE_FILE_MIGRATIONS)
    await db.close()
    await seed_database(tmp_path / "memory.db")
    assert await seed_database(tmp_path / "episodes.db", EPISODE_FILE_MIGRATIONS)
    assert _schema(tmp_path / "episodes.db") == _schema(built)
    assert _schema(tmp_path / "memory.db") != _schema(built)


async def test_an_existing_database_is_never_replaced(tmp_path: Path) -> None:
    persona = tmp_path / "persona"
    persona.mkdir()
    async with SqliteFtsMemory(persona) as memory:
        await memory.add("Scott is allergic to peanuts", source="test")
    before = (persona / "memory.db").read_bytes()
    assert not await seed_database(persona / "memory.db")
    assert (persona / "memory.db").read_bytes() == before
    async with SqliteFtsMemory(persona) as memory:
        hits = await memory.search("peanut allergy")
    assert [hit.item.text for hit in hits][:1] == ["Scott is allergic to peanuts"]


async def test_a_file_made_meanwhile_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process creates memory.db between the check and the link: its file stays."""
    target = tmp_path / "memory.db"
    await seed_database(tmp_path / "warm.db")  # the template is built
    real_link = os.link

    def racing_link(source: str | Path, destination: str | Path) -> None:
        Path(destination).write_bytes(b"")
        os.chmod(destination, 0o600)
        real_link(source, destination)

    monkeypatch.setattr(seed.os, "link", racing_link)
    assert not await seed_database(target)
    assert target.read_bytes() == b""
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".new")] == []


async def test_a_link_in_place_of_memory_db_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.db"
    elsewhere.write_bytes(b"")
    persona = tmp_path / "persona"
    persona.mkdir()
    (persona / "memory.db").symlink_to(elsewhere)
    with pytest.raises(MemoryStoreError, match="cannot create memory database"):
        async with SqliteFtsMemory(persona):
            pass
    assert elsewhere.read_bytes() == b""


async def test_new_personas_each_get_a_working_store(tmp_path: Path) -> None:
    for name in ("ana", "rui"):
        folder = tmp_path / name
        folder.mkdir()
        async with SqliteFtsMemory(folder) as memory:
            await memory.add(f"{name.title()} keeps bees on the roof", source="test")
    for name in ("ana", "rui"):
        async with SqliteFtsMemory(tmp_path / name) as memory:
            texts = [hit.item.text for hit in await memory.search("bees roof")]
        assert texts == [f"{name.title()} keeps bees on the roof"]
