"""Word counts for query planning: read once, kept true by the store's own writes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.memory.base import TurnRecord
from bot.memory.sqlite import term_counts
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.memory.sqlite.term_counts import TermCounts

NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as backend:
        yield backend


async def _vocabulary_reads(memory: SqliteFtsMemory, query: str) -> int:
    """How many statements read a vocabulary table while ``query`` is searched."""
    seen: list[str] = []
    db = memory._store.db
    await db.set_trace_callback(seen.append)
    try:
        await memory.search(query, limit=5)
    finally:
        await db.set_trace_callback(None)
    return sum("_vocab WHERE term IN" in sql for sql in seen)


async def test_a_word_nobody_said_is_found_as_soon_as_it_is_said(
    memory: SqliteFtsMemory,
) -> None:
    await memory.add("My sister lives in Porto.", source="cli", force=True)
    await memory.sync(TurnRecord("My sister called.", "Nice.", "matrix", NOW, "ana", "zoe"))
    assert await memory.search("Wojtek", limit=3) == []  # now known as absent
    await memory.sync(
        TurnRecord("Wojtek is my neighbour's dog.", "Cute!", "matrix", NOW, "ana", "zoe")
    )
    said = [hit.item.text for hit in await memory.search("Wojtek", limit=5)]
    assert "Wojtek is my neighbour's dog." in said


async def test_the_words_of_a_search_are_read_once(memory: SqliteFtsMemory) -> None:
    await memory.add("My sister Ana lives in Porto.", source="cli", force=True)
    await memory.sync(TurnRecord("Ana called me from Porto.", "Nice.", "matrix", NOW, "ana", "zoe"))
    # the facts' and the episodes' counts, and the episodes' for the words of the best hit
    # (the second search's candidates)
    assert await _vocabulary_reads(memory, "where does Ana live, Porto or Braga?") == 3
    assert await _vocabulary_reads(memory, "where does Ana live, Porto or Braga?") == 0
    # a word never said is remembered as absent too: no statement a turn for it
    assert await _vocabulary_reads(memory, "Ana in Braga") == 0


async def test_what_another_process_adds_is_found_once_the_counts_are_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(term_counts, "FORGET_AFTER_SECONDS", 0.05)
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as daemon:
        await daemon.add("My sister lives in Porto.", source="cli", force=True)
        assert await daemon.search("Wojtek", limit=3) == []
        async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as cli:  # `personad memory add`
            await cli.add("Wojtek is my neighbour's dog.", source="cli", force=True)
        await asyncio.sleep(0.1)
        texts = [hit.item.text for hit in await daemon.search("Wojtek", limit=3)]
        assert texts == ["Wojtek is my neighbour's dog."]


def test_counts_follow_inserts_and_are_let_go_after_a_while() -> None:
    now = [0.0]
    counts = TermCounts(clock=lambda: now[0])
    assert counts.known(["ana", "porto"]) == ({}, ["ana", "porto"])
    counts.learn(["ana", "porto"], [("ana", 2)])
    assert counts.known(["ana", "porto"]) == ({"ana": 2, "porto": 0}, [])
    counts.added(["porto", "porto", "braga"])
    assert counts.known(["porto", "braga"]) == ({"porto": 1}, ["braga"])
    now[0] += term_counts.FORGET_AFTER_SECONDS + 1
    assert counts.known(["ana"]) == ({}, ["ana"])
    counts.learn(["ana"], [("ana", 3)])
    for _ in range(term_counts.FORGET_AFTER_WRITES):
        counts.wrote()
    assert counts.known(["ana"]) == ({}, ["ana"])
