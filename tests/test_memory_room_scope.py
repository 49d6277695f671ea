"""What is learned in a direct conversation stays there: every backend, in a shared room, recalls,
injects, searches and forgets only what was learned in shared rooms (or the file layer)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.config import HonchoConfig
from bot.memory.base import MemoryBackend, MemoryHit, RoomKind, TurnRecord
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.honcho.backend import HonchoMemory
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.tools import ToolFailed
from tests.fakes.honcho_api import FakeHoncho
from tests.test_memory_embeddings import ConceptEmbedder

__all__: list[str] = []

AT = datetime(2026, 11, 29, 18, 30, tzinfo=UTC)
KEY = "test-key-123"

PRIVATE = "My sister Ana lives in Porto."
PRIVATE_QUERY = "sister Ana Porto"
GROUP = "My brother Rui plays the cello."
GROUP_QUERY = "brother Rui cello"


@pytest.fixture(params=["sqlite-fts5", "sqlite-fts5+vectors", "holographic", "honcho"])
async def memory(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MemoryBackend]:
    kind = request.param
    folder = tmp_path / "inara"
    if kind == "honcho":
        async with FakeHoncho(api_key=KEY) as fake:
            honcho = honcho_memory(fake, folder)
            await honcho.open()
            try:
                yield honcho
            finally:
                await honcho.close()
        return
    backend: MemoryBackend
    if kind == "holographic":
        backend = HolographicMemory(folder)
    else:
        embedder = ConceptEmbedder() if kind.endswith("vectors") else None
        backend = SqliteFtsMemory(folder, embedder=embedder, now=lambda: AT)
    await backend.open()
    try:
        yield backend
    finally:
        await backend.close()


def honcho_memory(fake: FakeHoncho, folder: Path) -> HonchoMemory:
    """Alice's inara on the fake server, without SDK retries (not opened yet)."""
    config = HonchoConfig(base_url=fake.base_url, workspace="personad")
    return HonchoMemory(
        folder,
        config=config,
        user="alice",
        persona="inara",
        env={"HONCHO_API_KEY": KEY},
        max_retries=0,
    )


async def learn(memory: MemoryBackend, text: str, room: RoomKind, at: datetime = AT) -> TurnRecord:
    """One finished turn, as the session stores it: synced, then extracted at session end."""
    turn = TurnRecord(text, "Noted.", "telegram", at, "alice", "inara", room=room)
    await memory.sync(turn)
    await memory.extract([turn])
    return turn


def texts(hits: list[MemoryHit]) -> list[str]:
    return [hit.item.text for hit in hits]


async def recalled(memory: MemoryBackend, query: str, *, shared_room: bool) -> list[str]:
    return texts(await memory.prefetch(query, limit=5, shared_room=shared_room))


async def test_turn_records_default_to_a_direct_room() -> None:
    assert TurnRecord("hi", "hello", "telegram", AT, "alice", "inara").room == "direct"


async def test_a_fact_learned_in_a_direct_conversation_is_not_recalled_in_a_shared_room(
    memory: MemoryBackend,
) -> None:
    await learn(memory, PRIVATE, "direct")
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, shared_room=False)
    assert PRIVATE not in await recalled(memory, PRIVATE_QUERY, shared_room=True)
    searched = await memory.search(PRIVATE_QUERY, limit=10, shared_room=True)
    assert not any("Porto" in text for text in texts(searched))


async def test_a_fact_learned_in_a_shared_room_is_recalled_in_both(
    memory: MemoryBackend,
) -> None:
    await learn(memory, GROUP, "shared")
    assert GROUP in await recalled(memory, GROUP_QUERY, shared_room=True)
    assert GROUP in await recalled(memory, GROUP_QUERY, shared_room=False)
    items = await memory.list_items()
    assert {item.room for item in items if item.text == GROUP} == {"shared"}


async def test_a_private_fact_said_again_in_a_shared_room_becomes_shared(
    memory: MemoryBackend,
) -> None:
    await learn(memory, PRIVATE, "direct")
    await learn(memory, PRIVATE, "shared", at=AT + timedelta(days=1))
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, shared_room=True)
    # and a later private repeat never narrows it again
    await learn(memory, PRIVATE, "direct", at=AT + timedelta(days=2))
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, shared_room=True)


async def test_the_file_layer_is_recalled_in_every_room(memory: MemoryBackend) -> None:
    await memory.mirror("MEMORY.md", "- Alice keeps bees on the roof.\n")
    assert "Alice keeps bees on the roof." in await recalled(memory, "bees roof", shared_room=True)


async def test_inject_in_a_shared_room_leaves_out_what_was_said_in_private(
    memory: MemoryBackend,
) -> None:
    preference = "I prefer short answers without emojis."
    await learn(memory, preference, "direct")
    await learn(memory, preference, "direct", at=AT + timedelta(days=1))
    assert "short answers" in await memory.inject()
    assert "short answers" not in await memory.inject(shared_room=True)


async def test_memory_tools_in_a_shared_room_see_and_touch_only_shared_memories(
    memory: MemoryBackend,
) -> None:
    await learn(memory, PRIVATE, "direct")
    private_ids = [
        hit.item.id
        for hit in await memory.search(PRIVATE_QUERY, limit=10)
        if hit.item.text == PRIVATE and not hit.item.id.startswith("message:")
    ]
    assert private_ids
    tools = {tool.name: tool for tool in memory.tools(shared_room=True)}

    found = await tools["memory_search"].handler({"query": PRIVATE_QUERY})
    assert "Porto" not in found

    with pytest.raises(ToolFailed, match="no memory has the id"):
        await tools["memory_forget"].handler({"id": private_ids[0]})
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, shared_room=False)

    answer = await tools["memory_add"].handler({"text": GROUP})
    assert answer.startswith("Stored as")
    assert GROUP in await recalled(memory, GROUP_QUERY, shared_room=True)


async def test_memory_tools_in_a_direct_conversation_see_everything_and_store_privately(
    memory: MemoryBackend,
) -> None:
    await learn(memory, GROUP, "shared")
    tools = {tool.name: tool for tool in memory.tools()}
    assert "cello" in await tools["memory_search"].handler({"query": GROUP_QUERY})
    await tools["memory_add"].handler({"text": PRIVATE})
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, shared_room=False)
    assert PRIVATE not in await recalled(memory, PRIVATE_QUERY, shared_room=True)


async def test_export_names_the_room_of_every_item(memory: MemoryBackend) -> None:
    await learn(memory, PRIVATE, "direct")
    await learn(memory, GROUP, "shared")
    rooms = {row["text"]: row["room"] for row in await memory.export() if "room" in row}
    assert rooms[PRIVATE] == "direct" and rooms[GROUP] == "shared"


async def test_a_forgotten_shared_memory_leaves_every_room(memory: MemoryBackend) -> None:
    await learn(memory, GROUP, "shared")
    (item,) = [item for item in await memory.list_items() if item.text == GROUP]
    tools = {tool.name: tool for tool in memory.tools(shared_room=True)}
    assert (await tools["memory_forget"].handler({"id": item.id})).startswith("Forgotten")
    for shared_room in (True, False):
        hits = await memory.prefetch(GROUP_QUERY, limit=5, shared_room=shared_room)
        assert item.id not in [hit.item.id for hit in hits]
