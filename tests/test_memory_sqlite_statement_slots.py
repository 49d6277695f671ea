"""Many personas' memory databases: only a few run statements at once, and nothing waits on
itself."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from bot.memory.base import TurnRecord
from bot.memory.sqlite import statement_slots
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.statement_slots import WIDTH, sqlite_slot


async def test_at_most_width_hold_a_slot_at_once() -> None:
    inside = 0
    most = 0

    async def work() -> None:
        nonlocal inside, most
        async with sqlite_slot():
            inside += 1
            most = max(most, inside)
            await asyncio.sleep(0.001)
            inside -= 1

    await asyncio.gather(*(work() for _ in range(WIDTH * 5)))
    assert most == WIDTH


async def test_a_holder_does_not_wait_for_a_second_slot() -> None:
    """Every slot held by a coroutine that nests: without re-entry this would never end."""
    finished = 0

    async def nested() -> None:
        nonlocal finished
        async with sqlite_slot():
            await asyncio.sleep(0.001)
            async with sqlite_slot():
                finished += 1

    await asyncio.wait_for(asyncio.gather(*(nested() for _ in range(WIDTH * 3))), timeout=10)
    assert finished == WIDTH * 3


async def test_a_failing_body_gives_its_slot_back() -> None:
    for _ in range(WIDTH + 1):
        try:
            async with sqlite_slot():
                raise ValueError("boom")
        except ValueError:
            continue
    async with asyncio.timeout(5), sqlite_slot():
        assert statement_slots._holding.get()
    assert not statement_slots._holding.get()


async def test_many_personas_at_once_keep_and_recall_their_own_turns(tmp_path: Path) -> None:
    """Forty personas writing and recalling at the same time through the shared slots."""
    count = WIDTH * 10
    stores = [SqliteFtsMemory(tmp_path / f"p{i}") for i in range(count)]
    for store in stores:
        store.persona_dir.mkdir()

    async def converse(i: int, store: SqliteFtsMemory) -> list[str]:
        async with store:
            for turn, colour in enumerate(("red", "blue", "green")):
                await store.sync(
                    TurnRecord(
                        user_text=f"My bike number {i} has a {colour} bell.",
                        reply_text="Noted.",
                        platform="console",
                        at=datetime(2026, 5, 9, 10, turn, tzinfo=UTC),
                        user="u",
                        persona=f"p{i}",
                    )
                )
            hits = await store.search(f"bike number {i} bell", limit=10)
            return [hit.item.text for hit in hits]

    results = await asyncio.gather(*(converse(i, s) for i, s in enumerate(stores)))
    for i, texts in enumerate(results):
        assert any(f"bike number {i} has a green bell" in text for text in texts)
        assert not any(f"number {j} " in text for text in texts for j in range(count) if j != i)
