"""The sqlite-fts5 backend's file: migrations, corrupt and locked databases, and its tools."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.daemon.errors import MemoryStoreError
from bot.memory.normal_form import normalise_text
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.opening import open_database
from bot.memory.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from bot.memory.sqlite.stemming import index_terms
from bot.tools.registry import ToolFailed, ToolRegistry

__all__: list[str] = []

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as backend:
        yield backend


async def test_fresh_database_gets_every_migration(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path) as memory:
        stats = await memory.stats()
    assert stats["schema_version"] == SCHEMA_VERSION == 13
    with sqlite3.connect(tmp_path / "memory.db") as db:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert {"items", "items_fts", "vectors", "item_events", "mirror_lines"} <= names


async def test_version_one_database_upgrades_and_keeps_its_items(tmp_path: Path) -> None:
    db = await open_database(tmp_path / "memory.db", migrations=MIGRATIONS[:1])
    await db.execute(
        "INSERT INTO items (text, norm, category, source, confidence, created_at, last_seen)"
        " VALUES ('Prefiro café sem açúcar.', 'prefiro cafe sem acucar', 'preference',"
        " 'telegram 2025-01-01', 0.8, 1735732800, 1735732800)"
    )
    await db.close()
    with sqlite3.connect(tmp_path / "memory.db") as raw:
        assert raw.execute("SELECT MAX(version) FROM schema_version").fetchone() == (1,)
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        assert (await memory.stats())["schema_version"] == SCHEMA_VERSION
        hits = await memory.search("cafe acucar")
        assert [hit.item.text for hit in hits] == ["Prefiro café sem açúcar."]
        details = await memory.explain(hits[0].item.id)
        assert details["created"] == "2025-01-01T12:00:00+00:00" and details["history"] == []
        await memory.mirror("MEMORY.md", "- I live in Porto.")
        assert await memory.forget(hits[0].item.id)
        assert (await memory.explain(hits[0].item.id))["history"][0]["kind"] == "forgotten"


async def test_version_six_facts_find_the_message_they_were_told_in(tmp_path: Path) -> None:
    """v7 links each older fact to the user's episode said when it was stated whose words
    hold it; a fact no message said (a mirrored line) cites none."""
    db = await open_database(tmp_path / "memory.db", migrations=MIGRATIONS[:6])
    # a message long enough that its fact is searched beside it
    said = (
        "Hi. Sorry I went quiet, the move took every evening for three weeks and the boxes"
        " are still everywhere. I live in Porto now."
    )
    await db.execute(
        "INSERT INTO episodes (at, speaker, audience, platform, text, norm, terms, last_seen)"
        " VALUES (1735732800, 'user', 'direct', 'telegram', ?, ?, ?, 1735732800)",
        (said, normalise_text(said), index_terms(said)),
    )
    for text, norm, at in (
        ("I live in Porto now.", "i live in porto now", 1735732800),
        ("I like tea.", "i like tea", 1735732800),
        ("My sister lives in Porto.", "my sister lives in porto", 1735740000),
    ):
        await db.execute(
            "INSERT INTO items (text, norm, category, source, confidence, created_at, last_seen)"
            " VALUES (?, ?, 'fact', 'telegram 2025-01-01', 0.6, ?, ?)",
            (text, norm, at, at),
        )
    await db.close()
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        assert [(await memory.explain(i))["episode"] for i in ("1", "2", "3")] == [
            "e1",
            None,
            None,
        ]
        hits = await memory.search("live Porto now", limit=5)
        contexts = {hit.item.id: hit.item.context for hit in hits}
        assert contexts["1"] == said and contexts["3"] == ""
        assert "e1" not in contexts  # the episode is its fact's hit


async def test_a_failing_migration_changes_nothing(tmp_path: Path) -> None:
    """All pending migrations are one transaction: one that fails leaves the file at the
    version it had, with none of the others half applied, and a later open upgrades it."""
    path = tmp_path / "memory.db"
    db = await open_database(path, migrations=MIGRATIONS[:1])
    await db.close()
    broken = [*MIGRATIONS[1:3], (99, "CREATE TABLE later (x INTEGER);\nNOT SQL AT ALL;")]
    with pytest.raises(MemoryStoreError, match=r"memory\.db"):
        await open_database(path, migrations=[*MIGRATIONS[:1], *broken])
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT MAX(version) FROM schema_version").fetchone() == (1,)
        names = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    assert "later" not in names
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        assert (await memory.stats())["schema_version"] == SCHEMA_VERSION
        assert (await memory.add("I live in Porto.", source="cli", force=True)).stored


async def test_reopening_keeps_everything(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path) as memory:
        await memory.add("My sister Ana lives in Porto.", source="cli")
    async with SqliteFtsMemory(tmp_path) as memory:
        assert [hit.item.text for hit in await memory.search("Ana")] == [
            "My sister Ana lives in Porto."
        ]


async def test_garbage_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    garbage = b"this is not a database at all\x00\xff" * 200
    (tmp_path / "memory.db").write_bytes(garbage)
    memory = SqliteFtsMemory(tmp_path)
    with pytest.raises(MemoryStoreError, match="corrupt or not a SQLite file") as caught:
        await memory.open()
    assert str(tmp_path / "memory.db") in str(caught.value)
    assert (tmp_path / "memory.db").read_bytes() == garbage
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.db"]


async def test_damaged_pages_surface_as_a_clear_error(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path) as memory:
        for n in range(300):
            await memory.add(
                f"Fact number {n}: the blue kettle holds {n} cups.", source="t", force=True
            )
    path = tmp_path / "memory.db"
    data = bytearray(path.read_bytes())
    data[8192:] = b"\xde\xad\xbe\xef" * ((len(data) - 8192) // 4)  # keep header, ruin pages
    path.write_bytes(bytes(data))
    for side in tmp_path.glob("memory.db-*"):
        side.unlink()
    with pytest.raises(MemoryStoreError, match=r"corrupt|malformed"):
        async with SqliteFtsMemory(tmp_path) as memory:
            await memory.search("kettle")
            await memory.add("My kettle is blue and holds two litres.", source="t")
    assert path.read_bytes() == bytes(data)


def _hold_write_lock(path: Path, seconds: float, ready: threading.Event) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    ready.set()
    time.sleep(seconds)
    db.execute("COMMIT")
    db.close()


async def test_locked_database_raises_a_clear_error(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, busy_timeout=0.2) as memory:
        ready = threading.Event()
        holder = threading.Thread(target=_hold_write_lock, args=(memory.path, 1.5, ready))
        holder.start()
        ready.wait()
        try:
            with pytest.raises(MemoryStoreError, match="locked by another process"):
                await memory.add("We decided to sell the car.", source="cli")
        finally:
            holder.join()
        result = await memory.add("We decided to sell the car.", source="cli")
        assert result.stored and result.duplicate_of is None


async def test_a_short_lock_is_waited_out(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, busy_timeout=5.0) as memory:
        ready = threading.Event()
        holder = threading.Thread(target=_hold_write_lock, args=(memory.path, 0.3, ready))
        holder.start()
        ready.wait()
        result = await memory.add("We decided to sell the car.", source="cli")
        holder.join()
        assert result.stored


async def test_calls_before_open_fail_clearly(tmp_path: Path) -> None:
    memory = SqliteFtsMemory(tmp_path)
    with pytest.raises(MemoryStoreError, match="not open"):
        await memory.search("anything")


async def test_tools_search_add_forget(memory: SqliteFtsMemory) -> None:
    registry = ToolRegistry(memory.tools())
    assert {spec.name for spec in registry.specs} == {
        "memory_search",
        "memory_add",
        "memory_forget",
    }
    add = registry.get("memory_add")
    search = registry.get("memory_search")
    forget = registry.get("memory_forget")
    assert add and search and forget
    assert add.input_schema["required"] == ["text"]
    assert "decision" in add.input_schema["properties"]["category"]["enum"]

    stored = await add.handler({"text": "We decided to paint the kitchen green."})
    assert stored == "Stored as decision (id 1)."
    again = await add.handler({"text": "We decided to paint the kitchen green."})
    assert again == "Already known (id 1); it was reinforced."
    refused = await add.handler({"text": "my password is hunter2"})
    assert refused.startswith("Not stored: rejected: secret")

    found = await search.handler({"query": "kitchen paint"})
    assert found.startswith("- We decided to paint the kitchen green. [decision · assistant ")
    assert "2026-11-29 · " in found and found.endswith("(id 1)")
    assert await search.handler({"query": "submarine"}) == "No stored memory matches."

    assert await forget.handler({"id": "1"}) == "Forgotten: 1."
    assert await search.handler({"query": "kitchen"}) == "No stored memory matches."
    with pytest.raises(ToolFailed, match="no memory has the id"):
        await forget.handler({"id": "42"})
    with pytest.raises(ToolFailed):
        await search.handler({"query": "  "})
    with pytest.raises(ToolFailed):
        await add.handler({"text": "I like tea", "category": "gossip"})


async def test_tool_reports_a_store_failure_as_tool_error(tmp_path: Path) -> None:
    memory = SqliteFtsMemory(tmp_path)
    await memory.open()
    search = memory.tools()[0]
    await memory.close()
    with pytest.raises(ToolFailed):
        await search.handler({"query": "anything"})


async def test_concurrent_adds_of_the_same_fact_store_it_once(memory: SqliteFtsMemory) -> None:
    results = await asyncio.gather(
        *(memory.add("My dog Rex is a border collie.", source=f"s{n}") for n in range(8))
    )
    assert sum(result.duplicate_of is None for result in results) == 1
    (item,) = await memory.list_items()
    assert item.reinforced == 7
