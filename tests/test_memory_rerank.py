"""The recalled list put in order again: what the model reads of a hit (the exchange it was
said in, the exchanges around it in the same conversation, never another room's), and the
order its weights give."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.memory.base import MemoryHit, MemoryItem, TurnRecord
from bot.memory.episodes import rerank
from bot.memory.episodes.rerank import FEATURES, Surroundings, features, reranked
from bot.memory.episodes.rows import parse_episode_id
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.turn.audience import DIRECT_ROOM, Audience
from tests.test_memory_embeddings import ConceptEmbedder

NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)
PUB = Audience("telegram:-100pub")


@pytest.fixture
async def embedded(tmp_path: Path) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path, embedder=ConceptEmbedder(), now=lambda: NOW) as backend:
        yield backend


async def _said(
    memory: SqliteFtsMemory,
    text: str,
    reply: str,
    minutes: float,
    *,
    heard_by: Audience = DIRECT_ROOM,
    platform: str = "telegram",
) -> None:
    at = NOW - timedelta(days=3) + timedelta(minutes=minutes)
    turn = TurnRecord(text, reply, platform, at, "ana", "zoe", audience=heard_by.label)
    await memory.sync(turn)


async def _rowid(memory: SqliteFtsMemory, text: str) -> int:
    for item in await memory.episodes.store.export():
        if item["text"] == text:
            rowid = parse_episode_id(item["id"])
            assert rowid is not None
            return rowid
    raise AssertionError(f"no episode says {text!r}")


async def test_a_messages_surroundings_are_its_exchange_and_the_ones_beside_it(
    embedded: SqliteFtsMemory,
) -> None:
    """Its exchange is the message and the answer said with it; around it, the exchanges
    just before and after in the same conversation: not one in another room, on another
    platform, nor one said hours later."""
    await _said(embedded, "We went to the market", "Which one?", 0)
    await _said(embedded, "The one by the river", "Sounds lovely", 2)
    await _said(embedded, "Secret plans for the party", "My lips are sealed", 3, heard_by=PUB)
    await _said(embedded, "Same market on Sunday", "Good idea", 3.5, platform="matrix")
    await _said(embedded, "They had fresh figs", "Yum", 4)
    await _said(embedded, "Back home now", "Rest well", 4 + 5 * 60)
    middle = await _rowid(embedded, "The one by the river")
    answer = await _rowid(embedded, "Sounds lovely")
    around = {
        await _rowid(embedded, text)
        for text in ("We went to the market", "Which one?", "They had fresh figs", "Yum")
    }
    store = embedded.episodes.store
    places = await store.surroundings([middle, answer], gap=rerank.AROUND_SECONDS)
    assert sorted(places[middle][0]) == sorted(places[answer][0]) == sorted([middle, answer])
    assert set(places[middle][1]) == set(places[answer][1]) == around
    # the last exchange is alone: the one before it is five hours earlier
    last = await _rowid(embedded, "Back home now")
    assert set((await store.surroundings([last], gap=rerank.AROUND_SECONDS))[last][1]) == set()
    # the group sees nothing of the direct room's conversation around its own message
    secret = await _rowid(embedded, "Secret plans for the party")
    shared = await store.surroundings([middle, secret], gap=3600.0, labels=PUB.labels)
    assert shared == {secret: ([secret, await _rowid(embedded, "My lips are sealed")], [])}


def _hit(text: str, score: float, **parts: float) -> MemoryHit:
    item = MemoryItem(text, text, "fact", "user", 1.0, NOW, kind="episode")
    return MemoryHit(item, score, dict(parts))


def test_the_order_is_the_weights_and_equal_scores_keep_theirs() -> None:
    hits = [_hit("first", 3.0, bm25=1.0), _hit("second", 2.0, cosine=1.0), _hit("third", 1.0)]
    near = Surroundings({}, {})
    rows = features(hits, [None, None, None], near)
    assert [row[FEATURES.index("inverse_rank")] for row in rows] == [1.0, 0.5, 1 / 3]
    weights = {"cosine": 2.0, "bm25": 1.0}
    assert [h.item.text for h in reranked(hits, rows, weights)] == ["second", "first", "third"]
    assert [h.item.text for h in reranked(hits, rows, {})] == ["first", "second", "third"]


def test_the_cosines_read_are_the_best_of_each_group() -> None:
    """A hit said in no exchange seen here is read by its own vector, for both."""
    hit, alone = _hit("said", 1.0), _hit("added by hand", 1.0)
    cosines = {1: 0.2, 2: 0.7, 3: 0.5, 4: 0.9}
    near = Surroundings(cosines, {1: ([1, 2], [3, 4])}, {alone.item.id: 0.8})
    assert near.exchange(hit, 1) == 0.7 and near.around(hit, 1) == 0.9
    assert near.exchange(alone, None) == near.around(alone, 5) == 0.8
    assert near.exchange(hit, None) == 0.0


async def test_a_fact_no_message_said_keeps_its_place_among_many_messages(
    embedded: SqliteFtsMemory,
) -> None:
    """A fact added by hand (or by compaction, or a line of USER.md) has no exchange: it is
    read by its own vector, not buried under a dozen messages that are each an exchange."""
    await embedded.add("My sister lives in Porto", source="user", force=True)
    for n in range(12):
        await _said(embedded, f"my sister called about coffee {n}", "Nice", n * 10)
    asked = "Where does my sister live?"
    assert (await embedded.search(asked, limit=8))[0].item.text == "My sister lives in Porto"
    recalled = [hit.item.text for hit in await embedded.prefetch(asked, limit=8)]
    assert "My sister lives in Porto" in recalled[:3], recalled


async def test_a_message_is_found_by_the_conversation_around_it(
    embedded: SqliteFtsMemory,
) -> None:
    """Two messages say the plumber comes on Thursday; the question is about the heater,
    which neither names. The search puts the shorter and newer, about the sink, first; the
    prompt's recall puts first the one said just after the boiler broke."""
    await _said(embedded, "Irma phoned: the boiler broke again", "Oh no, not again", 0)
    await _said(embedded, "The plumber comes Thursday, he said, after lunch", "Good, soon", 3)
    await _said(embedded, "Sunny today, finally", "Enjoy it", 600)
    await _said(embedded, "Plumber comes Thursday for the sink", "Busy week", 1500)
    asked = "Is the plumber for the heater coming Thursday?"
    heater = "The plumber comes Thursday, he said, after lunch"
    sink = "Plumber comes Thursday for the sink"
    searched = [hit.item.text for hit in await embedded.search(asked, limit=5)]
    assert searched.index(sink) < searched.index(heater), searched
    recalled = [hit.item.text for hit in await embedded.prefetch(asked, limit=5)]
    assert recalled.index(heater) < recalled.index(sink), recalled


async def test_without_a_model_nothing_is_put_in_order_again(tmp_path: Path) -> None:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as memory:
        assert memory.rerank_pool == 0
        await _said(memory, "The plumber comes Thursday", "Good", 0)
        [hit] = await memory.prefetch("plumber Thursday", limit=5)
        assert hit.item.text == "The plumber comes Thursday"
        assert await memory.rerank_features("plumber Thursday", [hit]) is None
