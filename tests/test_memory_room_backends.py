"""Room scoping, backend by backend: stores from before rooms were recorded, embeddings, Honcho's
sessions and its own conclusions."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.memory.base import MemoryBackend, TurnRecord
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.honcho.backend import HonchoMemory
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.schema import MIGRATIONS, SCHEMA_VERSION
from tests.fakes.honcho_api import FakeHoncho
from tests.test_memory_embeddings import ConceptEmbedder
from tests.test_memory_room_scope import AT, KEY, PRIVATE, honcho_memory, learn, recalled

__all__: list[str] = []


def forget_rooms(db_path: Path, version: int) -> None:
    """Turn a store back into its last version without rooms (the column dropped, and in
    ``memory.db`` the index of shared items and the episodes, which came later still; the
    holographic backend's ``episodes.db`` came later too)."""
    for name in ("episodes.db", "episodes.db-wal", "episodes.db-shm"):
        if db_path.name != "memory.db":
            (db_path.parent / name).unlink(missing_ok=True)
    with sqlite3.connect(db_path) as db:
        db.execute("DROP TRIGGER IF EXISTS episodes_never_deleted")
        for table in ("episodes_vocab", "episodes_fts", "episode_vectors", "episodes"):
            db.execute(f"DROP TABLE IF EXISTS {table}")
        db.execute("DROP TRIGGER IF EXISTS items_shared_fts_insert")
        db.execute("DROP TRIGGER IF EXISTS items_shared_fts_update")
        db.execute("DROP TABLE IF EXISTS items_shared_vocab")
        db.execute("DROP TABLE IF EXISTS items_shared_fts")
        db.execute("ALTER TABLE items DROP COLUMN room")
        if db_path.name == "memory.db":  # back to the triggers that indexed the text
            for statement in _script_statements(MIGRATIONS[0][1]):
                if statement.startswith("CREATE TRIGGER items_fts"):
                    db.execute(
                        statement.replace("CREATE TRIGGER", "DROP TRIGGER").split(" AFTER")[0]
                    )
                    db.execute(statement)
            db.execute("ALTER TABLE items DROP COLUMN terms")
        db.execute("DELETE FROM schema_version WHERE version > ?", (version,))


async def old_store(memory: MemoryBackend, db_path: Path, version: int) -> None:
    """Fill ``memory`` as an old install would have, then take rooms away from its file (the
    conversation fact is learned in a shared room, so only the upgrade can make it direct)."""
    await learn(memory, PRIVATE, "shared")
    await memory.mirror("MEMORY.md", "- Alice keeps bees on the roof.\n")
    await memory.add("Alice grows tomatoes on the balcony.", source="cli", force=True)
    await memory.close()
    forget_rooms(db_path, version)


async def test_sqlite_store_from_before_rooms_counts_conversation_items_as_direct(
    tmp_path: Path,
) -> None:
    memory = SqliteFtsMemory(tmp_path, now=lambda: AT)
    await memory.open()
    await learn(memory, "I prefer my coffee black.", "direct")
    await memory.mirror("USER.md", "- I prefer my coffee black.\n")  # also in the file layer
    await old_store(memory, memory.path, 3)
    async with SqliteFtsMemory(tmp_path, now=lambda: AT) as upgraded:
        assert (await upgraded.stats())["schema_version"] == SCHEMA_VERSION
        assert PRIVATE not in await recalled(upgraded, "sister Ana Porto", shared_room=True)
        assert PRIVATE in await recalled(upgraded, "sister Ana Porto", shared_room=False)
        for query in ("bees roof", "tomatoes balcony", "coffee black"):
            assert await recalled(upgraded, query, shared_room=True), query


async def test_holographic_store_from_before_rooms_is_upgraded(tmp_path: Path) -> None:
    memory = HolographicMemory(tmp_path)
    await memory.open()
    await old_store(memory, memory.path, 1)
    upgraded = HolographicMemory(tmp_path)
    await upgraded.open()
    try:
        assert PRIVATE not in await recalled(upgraded, "sister Ana Porto", shared_room=True)
        assert PRIVATE in await recalled(upgraded, "sister Ana Porto", shared_room=False)
        assert await recalled(upgraded, "bees roof", shared_room=True)
        assert await recalled(upgraded, "tomatoes balcony", shared_room=True)
    finally:
        await upgraded.close()


# -- embeddings ------------------------------------------------------------------------------


@pytest.fixture
async def embedded(tmp_path: Path) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder(), now=lambda: AT) as memory:
        yield memory


async def test_a_private_memory_found_only_by_meaning_stays_out_of_a_shared_room(
    embedded: SqliteFtsMemory,
) -> None:
    await learn(embedded, "My sister lives in Porto.", "direct")
    # no word in common: only the vector finds it
    assert await recalled(embedded, "sibling resides oporto", shared_room=False) == [
        "My sister lives in Porto."
    ]
    assert await recalled(embedded, "sibling resides oporto", shared_room=True) == []


async def test_a_near_repeat_in_a_shared_room_never_shares_the_private_wording(
    embedded: SqliteFtsMemory,
) -> None:
    await learn(embedded, "My sister lives in Porto.", "direct")
    result = await embedded.add("My sibling lives in Oporto.", source="group", room="shared")
    assert result.stored
    assert await recalled(embedded, "sibling sister porto", shared_room=True) == [
        "My sibling lives in Oporto."
    ]
    # the private item was not touched: still private, never reinforced from the group
    private = (await embedded.list_items())[-1]
    assert (private.text, private.room, private.reinforced) == (
        "My sister lives in Porto.",
        "direct",
        0,
    )


async def test_vectors_loaded_at_open_keep_their_room(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder(), now=lambda: AT) as memory:
        await learn(memory, "My sister lives in Porto.", "direct")
        await learn(memory, "I take my espresso without sugar.", "shared")
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder(), now=lambda: AT) as memory:
        assert await recalled(memory, "sibling resides oporto", shared_room=True) == []
        assert await recalled(memory, "coffee sweet", shared_room=True) == [
            "I take my espresso without sugar."
        ]


# -- honcho ----------------------------------------------------------------------------------


@pytest.fixture
async def fake() -> AsyncIterator[FakeHoncho]:
    async with FakeHoncho(api_key=KEY) as server:
        yield server


@pytest.fixture
async def ledger(fake: FakeHoncho, tmp_path: Path) -> AsyncIterator[HonchoMemory]:
    memory = honcho_memory(fake, tmp_path)
    await memory.open()
    try:
        yield memory
    finally:
        await memory.close()


async def test_honcho_keeps_a_days_direct_and_shared_messages_in_separate_sessions(
    ledger: HonchoMemory, fake: FakeHoncho
) -> None:
    await ledger.sync(TurnRecord(PRIVATE, "Ok.", "telegram", AT, "alice", "inara"))
    group = "My brother Rui plays the cello."
    await ledger.sync(TurnRecord(group, "Ok.", "matrix", AT, "alice", "inara", room="shared"))
    sessions = {m["content"]: m["session_id"] for m in fake.workspace("personad").messages}
    assert sessions[PRIVATE] == "inara__alice-2026-11-29"
    assert sessions[group] == "inara__alice-shared-2026-11-29"
    assert await recalled(ledger, "sister Ana Porto", shared_room=True) == []
    assert await recalled(ledger, "brother Rui cello", shared_room=True) == [group]


async def test_honcho_own_conclusions_and_representation_stay_out_of_shared_rooms(
    ledger: HonchoMemory, fake: FakeHoncho
) -> None:
    await learn(ledger, "I work as a nurse in Lisbon.", "shared")
    derived = fake.derive("personad", "inara__alice", "alice", "alice works night shifts")
    private = await recalled(ledger, "nurse night shifts", shared_room=False)
    assert "alice works night shifts" in private
    shared = await ledger.search("nurse night shifts", shared_room=True)
    assert [hit.item.text for hit in shared if not hit.item.id.startswith("message:")] == [
        "I work as a nurse in Lisbon."
    ]
    assert "night shifts" in await ledger.inject()
    assert await ledger.inject(shared_room=True) == ""
    assert not await ledger.forget(f"honcho:{derived}", shared_room=True)
    assert await ledger.forget(f"honcho:{derived}")


async def test_honcho_ledger_from_before_rooms_is_upgraded(
    fake: FakeHoncho, tmp_path: Path
) -> None:
    memory = honcho_memory(fake, tmp_path)
    await memory.open()
    await old_store(memory, memory.path, 1)
    upgraded = honcho_memory(fake, tmp_path)
    await upgraded.open()
    try:
        rooms = {row["text"]: row["room"] for row in await upgraded.export()}
        assert rooms[PRIVATE] == "direct"
        assert rooms["Alice keeps bees on the roof."] == "shared"
        assert rooms["Alice grows tomatoes on the balcony."] == "shared"
    finally:
        await upgraded.close()


def _script_statements(script: str) -> list[str]:
    """The statements of a migration script (each ends a line with ``;``)."""
    parts = [part.strip() for part in script.split(";\n")]
    return [part.rstrip(";") for part in parts if part]
