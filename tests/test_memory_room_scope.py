"""Every piece of knowledge knows its audience, in every backend: a direct room recalls all of
its user; a shared room what was said in it and what the user made shared, never what was said
in a direct room or in another shared room: facts and episodes, through recall, search, inject
and the memory tools."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.memory.base import MemoryBackend, MemoryHit, TurnRecord
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.honcho.backend import HonchoMemory
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.setup.config import HonchoConfig
from bot.tools.registry import ToolFailed
from bot.turn.audience import DIRECT, DIRECT_ROOM, SHARED, Audience, room_folder
from tests.fakes.honcho_api import FakeHoncho
from tests.test_memory_embeddings import ConceptEmbedder

__all__: list[str] = []

AT = datetime(2026, 11, 29, 18, 30, tzinfo=UTC)
KEY = "test-key-123"

FAMILY = Audience("matrix:!family:example.org")
WORK = Audience("telegram:-100200")

PRIVATE = "My sister Ana lives in Porto."
PRIVATE_QUERY = "sister Ana Porto"
GROUP = "My brother Rui plays the cello."
GROUP_QUERY = "brother Rui cello"
OFFICE = "My manager Rita drives a tram."
OFFICE_QUERY = "manager Rita tram"


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


async def learn(
    memory: MemoryBackend, text: str, heard_by: Audience, at: datetime = AT
) -> TurnRecord:
    """One finished turn, as the session stores it: synced, then extracted at session end."""
    turn = TurnRecord(text, "Noted.", "telegram", at, "alice", "inara", audience=heard_by.label)
    await memory.sync(turn)
    await memory.extract([turn])
    return turn


def texts(hits: list[MemoryHit]) -> list[str]:
    return [hit.item.text for hit in hits]


async def recalled(memory: MemoryBackend, query: str, heard_by: Audience) -> list[str]:
    return texts(await memory.prefetch(query, limit=5, audience=heard_by))


async def knows(memory: MemoryBackend, query: str, word: str, heard_by: Audience) -> bool:
    """Whether anything ``heard_by`` may be shown (fact or episode, prefetch or search)
    holds ``word``."""
    found = await memory.prefetch(query, limit=10, audience=heard_by)
    found += await memory.search(query, limit=10, audience=heard_by)
    return any(word in text for text in texts(found))


async def fact_id(memory: MemoryBackend, text: str) -> str:
    (found,) = [item.id for item in await memory.list_items() if item.text == text]
    return found


async def test_turn_records_default_to_a_direct_room() -> None:
    assert TurnRecord("hi", "hello", "telegram", AT, "alice", "inara").audience == DIRECT


async def test_a_fact_learned_in_a_direct_conversation_is_not_recalled_in_a_shared_room(
    memory: MemoryBackend,
) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, DIRECT_ROOM)
    assert not await knows(memory, PRIVATE_QUERY, "Porto", FAMILY)


async def test_two_shared_rooms_never_recall_each_others_words(memory: MemoryBackend) -> None:
    await learn(memory, GROUP, FAMILY)
    await learn(memory, OFFICE, WORK)
    assert await knows(memory, GROUP_QUERY, "cello", FAMILY)
    assert not await knows(memory, GROUP_QUERY, "cello", WORK)
    assert await knows(memory, OFFICE_QUERY, "tram", WORK)
    assert not await knows(memory, OFFICE_QUERY, "tram", FAMILY)
    # a query naming both: each room gets its own, nothing of the other's
    both = f"{GROUP_QUERY} {OFFICE_QUERY}"
    assert not await knows(memory, both, "tram", FAMILY)
    assert not await knows(memory, both, "cello", WORK)
    # a direct room sees everything of its user
    assert await knows(memory, GROUP_QUERY, "cello", DIRECT_ROOM)
    assert await knows(memory, OFFICE_QUERY, "tram", DIRECT_ROOM)
    items = await memory.list_items()
    assert {item.audience for item in items if item.text == GROUP} == {FAMILY.label}
    assert {item.audience for item in items if item.text == OFFICE} == {WORK.label}


async def test_a_private_fact_said_again_in_a_shared_room_is_kept_anew_for_that_room(
    memory: MemoryBackend,
) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await learn(memory, PRIVATE, FAMILY, at=AT + timedelta(days=1))
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, FAMILY)
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, DIRECT_ROOM)
    assert not await knows(memory, PRIVATE_QUERY, "Porto", WORK)
    # the private item stays private; the room keeps its own copy of what it heard
    items = [item for item in await memory.list_items() if item.text == PRIVATE]
    assert sorted(item.audience for item in items) == sorted([DIRECT, FAMILY.label])
    # a later private repeat never narrows the room's
    await learn(memory, PRIVATE, DIRECT_ROOM, at=AT + timedelta(days=2))
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, FAMILY)


async def test_a_rooms_fact_said_in_another_room_is_not_given_to_the_first(
    memory: MemoryBackend,
) -> None:
    await learn(memory, GROUP, FAMILY)
    await learn(memory, GROUP, WORK, at=AT + timedelta(days=1))
    items = [item for item in await memory.list_items() if item.text == GROUP]
    # the family's item keeps its label; the work room keeps its own copy of what it heard
    assert sorted(item.audience for item in items) == sorted([FAMILY.label, WORK.label])
    family = await memory.search(GROUP_QUERY, limit=10, audience=FAMILY)
    work = await memory.search(GROUP_QUERY, limit=10, audience=WORK)
    assert {hit.item.audience for hit in family} <= {FAMILY.label, SHARED}
    assert {hit.item.audience for hit in work} <= {WORK.label, SHARED}
    assert GROUP in texts(family) and GROUP in texts(work)


async def test_share_lets_every_room_recall_an_item_and_direct_takes_it_back(
    memory: MemoryBackend,
) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    item_id = await fact_id(memory, PRIVATE)
    assert await memory.share(item_id, SHARED)
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, FAMILY)
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, WORK)
    assert await memory.share(item_id, DIRECT)
    assert PRIVATE not in await recalled(memory, PRIVATE_QUERY, FAMILY)
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, DIRECT_ROOM)
    history = str((await memory.explain(item_id))["history"])
    assert "'shared'" in history and "'made private'" in history
    assert not await memory.share("no-such-item", SHARED)


async def test_the_files_lines_carry_the_audience_of_their_folder(memory: MemoryBackend) -> None:
    assert FAMILY.room is not None
    # each line of its own concept, so no embedder takes one for a repeat of another
    await memory.mirror("MEMORY.md", "- Alice fixed the boiler on the roof.\n")
    await memory.mirror("shared/MEMORY.md", "- Alice drinks espresso on Sundays.\n")
    await memory.mirror(
        f"{room_folder(FAMILY.room)}/MEMORY.md", "- Grandma bakes sweet bread on Fridays.\n"
    )
    for heard_by in (DIRECT_ROOM, FAMILY, WORK):
        assert await knows(memory, "espresso Sundays", "espresso", heard_by)
    assert await knows(memory, "boiler roof", "boiler", DIRECT_ROOM)
    assert not await knows(memory, "boiler roof", "boiler", FAMILY)
    assert await knows(memory, "grandma bread Fridays", "bread", FAMILY)
    assert await knows(memory, "grandma bread Fridays", "bread", DIRECT_ROOM)
    assert not await knows(memory, "grandma bread Fridays", "bread", WORK)
    # the same file's lines leaving it are superseded, whatever its folder
    await memory.mirror("shared/MEMORY.md", "")
    assert not await knows(memory, "espresso Sundays", "espresso", FAMILY)


async def test_inject_in_a_shared_room_leaves_out_the_direct_rooms_and_the_other_rooms(
    memory: MemoryBackend,
) -> None:
    private = "I prefer short answers without emojis."
    office = "I prefer meetings before noon."
    for day in (0, 1):
        await learn(memory, private, DIRECT_ROOM, at=AT + timedelta(days=day))
        await learn(memory, office, WORK, at=AT + timedelta(days=day))
    assert "short answers" in await memory.inject()
    family = await memory.inject(audience=FAMILY)
    assert "short answers" not in family and "noon" not in family
    assert "short answers" not in await memory.inject(audience=WORK)
    if not isinstance(memory, HonchoMemory):  # Honcho injects nothing in a shared room
        assert "noon" in await memory.inject(audience=WORK)


async def test_memory_tools_in_a_shared_room_see_and_touch_only_what_it_sees(
    memory: MemoryBackend,
) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await learn(memory, OFFICE, WORK)
    tools = {tool.name: tool for tool in memory.tools(audience=FAMILY)}
    assert not tools["memory_search"].private  # scoped: safe to offer in a shared room
    assert {tool.private for tool in memory.tools()} == {True, False}  # a direct room's is

    found = await tools["memory_search"].handler({"query": f"{PRIVATE_QUERY} {OFFICE_QUERY}"})
    assert "Porto" not in found and "tram" not in found

    for text in (PRIVATE, OFFICE):
        with pytest.raises(ToolFailed, match="no memory has the id"):
            await tools["memory_forget"].handler({"id": await fact_id(memory, text)})
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, DIRECT_ROOM)
    assert OFFICE in await recalled(memory, OFFICE_QUERY, WORK)

    answer = await tools["memory_add"].handler({"text": GROUP})
    assert answer.startswith("Stored as")
    assert GROUP in await recalled(memory, GROUP_QUERY, FAMILY)
    assert GROUP not in await recalled(memory, GROUP_QUERY, WORK)
    assert {item.audience for item in await memory.list_items() if item.text == GROUP} == {
        FAMILY.label
    }


async def test_memory_tools_in_a_direct_conversation_see_everything_and_store_privately(
    memory: MemoryBackend,
) -> None:
    await learn(memory, GROUP, FAMILY)
    tools = {tool.name: tool for tool in memory.tools()}
    assert "cello" in await tools["memory_search"].handler({"query": GROUP_QUERY})
    await tools["memory_add"].handler({"text": PRIVATE})
    assert PRIVATE in await recalled(memory, PRIVATE_QUERY, DIRECT_ROOM)
    assert PRIVATE not in await recalled(memory, PRIVATE_QUERY, FAMILY)


async def test_export_names_the_audience_of_every_item(memory: MemoryBackend) -> None:
    await learn(memory, PRIVATE, DIRECT_ROOM)
    await learn(memory, GROUP, FAMILY)
    labels = {
        row["text"]: row["audience"]
        for row in await memory.export()
        if "audience" in row and row.get("kind") != "episode"
    }
    assert labels[PRIVATE] == DIRECT and labels[GROUP] == FAMILY.label


async def test_a_forgotten_rooms_memory_leaves_every_room(memory: MemoryBackend) -> None:
    await learn(memory, GROUP, FAMILY)
    (item,) = [item for item in await memory.list_items() if item.text == GROUP]
    tools = {tool.name: tool for tool in memory.tools(audience=FAMILY)}
    assert (await tools["memory_forget"].handler({"id": item.id})).startswith("Forgotten")
    for heard_by in (FAMILY, DIRECT_ROOM):
        hits = await memory.prefetch(GROUP_QUERY, limit=5, audience=heard_by)
        assert item.id not in [hit.item.id for hit in hits]
