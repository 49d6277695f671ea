"""Audiences, backend by backend: stores from the version before audiences (which knew only
the kind of room), embeddings, episodes, Honcho's sessions and its own conclusions."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.memory.base import MemoryBackend, TurnRecord
from bot.memory.episodes.file import EPISODE_FILE
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.honcho.backend import HonchoMemory
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.schema import SCHEMA_VERSION
from bot.turn.audience import DIRECT, DIRECT_ROOM, SHARED
from tests.fakes.honcho_api import FakeHoncho
from tests.test_memory_embeddings import ConceptEmbedder
from tests.test_memory_room_scope import (
    AT,
    FAMILY,
    GROUP,
    KEY,
    PRIVATE,
    WORK,
    honcho_memory,
    knows,
    learn,
    recalled,
)

__all__: list[str] = []


def back_to_room_kinds(db_path: Path, version: int) -> None:
    """Turn a store back into its last version before audiences: the ``audience`` column was
    ``room`` and held ``direct`` or ``shared``; every item of a shared room was ``shared``."""
    with sqlite3.connect(db_path) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        for table in ("items", "episodes"):
            if table in tables:
                db.execute(f"DROP INDEX IF EXISTS {table}_audience")
                db.execute(f"UPDATE {table} SET audience = 'shared' WHERE audience != 'direct'")
                db.execute(f"ALTER TABLE {table} RENAME COLUMN audience TO room")
        columns = {row[1] for row in db.execute("PRAGMA table_info(items)")}
        if "episode" in columns:  # v7, later than audiences
            db.execute("ALTER TABLE items DROP COLUMN episode")
        if "answers" in {row[1] for row in db.execute("PRAGMA table_info(episodes)")}:
            db.execute("DROP INDEX IF EXISTS episodes_answers")  # v10 (episodes.db: 5)
            db.execute("ALTER TABLE episodes DROP COLUMN answers")
        db.execute("DROP TABLE IF EXISTS episode_events")
        db.execute("DROP TABLE IF EXISTS sessions")
        db.execute("DELETE FROM schema_version WHERE version > ?", (version,))


async def old_store(memory: MemoryBackend) -> None:
    """Fill ``memory`` as the previous version would have: a direct fact, a shared room's and
    a file line (both counted ``shared`` then), and the episodes of both turns."""
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await learn(memory, GROUP, FAMILY)
    await memory.mirror("MEMORY.md", "- Alice keeps bees on the roof.\n")
    await memory.add("Alice grows tomatoes on the balcony.", source="cli", force=True)
    await memory.close()


async def assert_upgraded(memory: MemoryBackend) -> None:
    """Nothing is lost, and nothing that was shared before is known to any shared room now:
    where it was said was never recorded, so it is private until the user shares it."""
    labels = {item.text: item.audience for item in await memory.list_items()}
    assert set(labels.values()) == {DIRECT}
    for query, word in (
        ("sister Ana Porto", "Porto"),
        ("brother Rui cello", "cello"),
        ("bees roof", "bees"),
        ("tomatoes balcony", "tomatoes"),
    ):
        assert await knows(memory, query, word, DIRECT_ROOM), query
        assert not await knows(memory, query, word, FAMILY), query
    (group,) = [item.id for item in await memory.list_items() if item.text == GROUP]
    assert await memory.share(group, SHARED)
    assert GROUP in await recalled(memory, "brother Rui cello", WORK)


async def test_sqlite_store_of_the_previous_version_makes_every_item_private(
    tmp_path: Path,
) -> None:
    memory = SqliteFtsMemory(tmp_path, now=lambda: AT)
    await memory.open()
    await old_store(memory)
    back_to_room_kinds(memory.path, 5)
    with sqlite3.connect(memory.path) as raw:
        rooms = {row[0] for row in raw.execute("SELECT room FROM items")}
        assert rooms == {"direct", "shared"}
        assert {row[0] for row in raw.execute("SELECT room FROM episodes")} == {
            "direct",
            "shared",
        }
    async with SqliteFtsMemory(tmp_path, now=lambda: AT) as upgraded:
        assert (await upgraded.stats())["schema_version"] == SCHEMA_VERSION
        await assert_upgraded(upgraded)
        episodes = [row for row in await upgraded.export() if row["kind"] == "episode"]
        assert {row["audience"] for row in episodes} == {DIRECT}


async def test_holographic_store_of_the_previous_version_makes_every_item_private(
    tmp_path: Path,
) -> None:
    memory = HolographicMemory(tmp_path)
    await memory.open()
    await old_store(memory)
    back_to_room_kinds(memory.path, 2)
    back_to_room_kinds(tmp_path / EPISODE_FILE, 1)
    upgraded = HolographicMemory(tmp_path)
    await upgraded.open()
    try:
        await assert_upgraded(upgraded)
        episodes = [row for row in await upgraded.export() if row.get("kind") == "episode"]
        assert episodes and {row["audience"] for row in episodes} == {DIRECT}
    finally:
        await upgraded.close()


async def test_honcho_ledger_of_the_previous_version_makes_every_item_private(
    fake: FakeHoncho, tmp_path: Path
) -> None:
    memory = honcho_memory(fake, tmp_path)
    await memory.open()
    await old_store(memory)
    back_to_room_kinds(memory.path, 2)
    upgraded = honcho_memory(fake, tmp_path)
    await upgraded.open()
    try:
        labels = {row["text"]: row["audience"] for row in await upgraded.export()}
        assert set(labels.values()) == {DIRECT} and GROUP in labels
        shared = await upgraded.search("brother Rui cello", audience=FAMILY)
        # the ledger forgot whose session was whose: those messages count as direct too
        assert not any("cello" in hit.item.text for hit in shared)
    finally:
        await upgraded.close()


# -- embeddings ------------------------------------------------------------------------------


@pytest.fixture
async def embedded(tmp_path: Path) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder(), now=lambda: AT) as memory:
        yield memory


async def test_a_memory_found_only_by_meaning_stays_in_its_audience(
    embedded: SqliteFtsMemory,
) -> None:
    await learn(embedded, "My sister lives in Porto.", FAMILY)
    # no word in common: only the vector finds it
    assert await recalled(embedded, "sibling resides oporto", DIRECT_ROOM) == [
        "My sister lives in Porto."
    ]
    assert await recalled(embedded, "sibling resides oporto", FAMILY) == [
        "My sister lives in Porto."
    ]
    assert await recalled(embedded, "sibling resides oporto", WORK) == []


async def test_a_near_repeat_in_a_shared_room_never_takes_another_audiences_wording(
    embedded: SqliteFtsMemory,
) -> None:
    await learn(embedded, "My sister lives in Porto.", DIRECT_ROOM)
    await embedded.add(
        "My sister resides in Porto.", source="work", force=True, audience=WORK.label
    )
    result = await embedded.add(
        "My sibling lives in Oporto.", source="group", audience=FAMILY.label
    )
    assert result.stored
    assert await recalled(embedded, "sibling sister porto", FAMILY) == [
        "My sibling lives in Oporto."
    ]
    # the others were not touched: never reinforced from the family room, nor given to it
    untouched = {
        item.text: (item.audience, item.reinforced) for item in await embedded.list_items()
    }
    assert untouched["My sister lives in Porto."] == (DIRECT, 0)
    assert untouched["My sister resides in Porto."] == (WORK.label, 0)


async def test_vectors_loaded_at_open_keep_their_audience(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder(), now=lambda: AT) as memory:
        await learn(memory, "My sister lives in Porto.", WORK)
        await learn(memory, "I take my espresso without sugar.", FAMILY)
        (espresso,) = [i.id for i in await memory.list_items() if "espresso" in i.text]
        await memory.share(espresso, SHARED)
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder(), now=lambda: AT) as memory:
        assert await recalled(memory, "sibling resides oporto", FAMILY) == []
        assert await recalled(memory, "sibling resides oporto", WORK) == [
            "My sister lives in Porto."
        ]
        assert await recalled(memory, "coffee sweet", WORK) == ["I take my espresso without sugar."]


# -- episodes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sqlite-fts5", "holographic"])
async def test_an_episode_can_be_shared_and_made_private_again(kind: str, tmp_path: Path) -> None:
    memory: MemoryBackend = (
        HolographicMemory(tmp_path) if kind == "holographic" else SqliteFtsMemory(tmp_path)
    )
    await memory.open()
    try:
        said = "We watched the match at the pub."
        await memory.sync(TurnRecord(said, "Fun!", "telegram", AT, "alice", "inara"))
        (episode,) = [
            row["id"]
            for row in await memory.export()
            if row.get("kind") == "episode" and row["text"] == said
        ]
        assert not await knows(memory, "match pub", "pub", FAMILY)
        assert await memory.share(episode, SHARED)
        assert await knows(memory, "match pub", "pub", FAMILY)
        assert await knows(memory, "match pub", "pub", WORK)
        assert await memory.share(episode, DIRECT)
        assert not await knows(memory, "match pub", "pub", FAMILY)
        history = [event["kind"] for event in (await memory.explain(episode))["history"]]
        assert history == ["shared", "made private"]
        assert not await memory.share("e999", SHARED)
    finally:
        await memory.close()


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


async def test_honcho_keeps_each_audiences_messages_in_its_own_day_session(
    ledger: HonchoMemory, fake: FakeHoncho
) -> None:
    office = "My manager Rita drives a tram."
    await ledger.sync(TurnRecord(PRIVATE, "Ok.", "telegram", AT, "alice", "inara"))
    await ledger.sync(
        TurnRecord(GROUP, "Ok.", "matrix", AT, "alice", "inara", audience=FAMILY.label)
    )
    await ledger.sync(
        TurnRecord(office, "Ok.", "telegram", AT, "alice", "inara", audience=WORK.label)
    )
    sessions = {m["content"]: m["session_id"] for m in fake.workspace("personad").messages}
    assert sessions[PRIVATE] == "inara__alice-2026-11-29"
    assert len({sessions[PRIVATE], sessions[GROUP], sessions[office]}) == 3
    for session in (sessions[GROUP], sessions[office]):
        assert session.startswith("inara__alice-r") and session.endswith("-2026-11-29")
        assert len(session) <= 100
    assert await recalled(ledger, "sister Ana Porto", FAMILY) == []
    assert await recalled(ledger, "brother Rui cello", FAMILY) == [GROUP]
    assert await recalled(ledger, "brother Rui cello", WORK) == []
    assert await recalled(ledger, "manager Rita tram", WORK) == [office]
    assert await recalled(ledger, "manager Rita tram", DIRECT_ROOM) == [office]


async def test_honcho_holds_a_rooms_message_search_to_its_sessions_on_the_server(
    ledger: HonchoMemory,
) -> None:
    """Many better matches said in private take no place in a shared room's answer."""
    for n in range(8):
        said = f"Rui plays the cello, the cello of Rui, cello lesson {n}."
        await ledger.sync(TurnRecord(said, "Ok.", "telegram", AT, "alice", "inara"))
    await ledger.sync(
        TurnRecord(GROUP, "Ok.", "matrix", AT, "alice", "inara", audience=FAMILY.label)
    )
    assert await recalled(ledger, "Rui cello", FAMILY) == [GROUP]
    hits = await ledger.prefetch("Rui cello", limit=2, audience=FAMILY)
    assert [hit.item.text for hit in hits] == [GROUP]


async def test_honcho_own_conclusions_and_representation_stay_out_of_shared_rooms(
    ledger: HonchoMemory, fake: FakeHoncho
) -> None:
    await learn(ledger, "I work as a nurse in Lisbon.", FAMILY)
    derived = fake.derive("personad", "inara__alice", "alice", "alice works night shifts")
    private = await recalled(ledger, "nurse night shifts", DIRECT_ROOM)
    assert "alice works night shifts" in private
    shared = await ledger.search("nurse night shifts", audience=FAMILY)
    assert [hit.item.text for hit in shared if not hit.item.id.startswith("message:")] == [
        "I work as a nurse in Lisbon."
    ]
    assert "night shifts" in await ledger.inject()
    assert await ledger.inject(audience=FAMILY) == ""
    assert not await ledger.forget(f"honcho:{derived}", audience=FAMILY)
    assert await ledger.forget(f"honcho:{derived}")


async def test_honcho_shares_a_conclusion_but_not_a_message(ledger: HonchoMemory) -> None:
    await learn(ledger, PRIVATE, DIRECT_ROOM)
    (conclusion,) = [item.id for item in await ledger.list_items() if item.text == PRIVATE]
    assert await ledger.share(conclusion, SHARED)
    assert PRIVATE in await recalled(ledger, "sister Ana Porto", WORK)
    message = next(
        hit.item.id
        for hit in await ledger.search("sister Ana Porto", limit=10)
        if hit.item.id.startswith("message:")
    )
    assert not await ledger.share(message, SHARED)
    history = [event["event"] for event in (await ledger.explain(conclusion))["history"]]
    assert "shared" in history
