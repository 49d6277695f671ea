"""A second search for multi-hop questions: the rarest words of the first search's best hit
are added to the question, so the message that answers it through them is recalled too; the
first search's best keep their places; rooms still hold."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.memory.base import MemoryHit, MemoryItem
from bot.memory.sqlite import second_search
from bot.memory.sqlite.backend import SqliteFtsMemory
from tests.test_memory_episodes import PUB, episodes, said

NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)
ANSWER = "Tomasz started as a ferry engineer on the river boats, he loves it."
QUESTION = "What does my friend who went to Porto do now?"


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[SqliteFtsMemory]:
    async with SqliteFtsMemory(tmp_path, now=lambda: NOW) as backend:
        yield backend


async def _two_hops(memory: SqliteFtsMemory) -> None:
    """The friend is named where Porto is said, and only named where the job is."""
    day = NOW - timedelta(days=60)
    await said(memory, "My friend Tomasz moved to Porto in March.", at=day)
    for n in range(3):  # what a question about "what does ... do" meets first
        await said(
            memory,
            f"My friend Lucia does yoga every morning before work, day {n}.",
            at=day + timedelta(days=1 + n),
        )
    await said(memory, ANSWER, at=day + timedelta(days=20))


async def test_a_multi_hop_answer_is_recalled_through_the_first_hits_words(
    memory: SqliteFtsMemory,
) -> None:
    await _two_hops(memory)
    recalled = episodes(await memory.search(QUESTION, limit=5))
    assert recalled[0] == "My friend Tomasz moved to Porto in March."
    assert ANSWER in recalled


async def test_without_the_second_search_the_second_hop_is_missed(
    memory: SqliteFtsMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _two_hops(memory)
    monkeypatch.setattr(second_search, "SEED_HITS", 0)
    assert ANSWER not in episodes(await memory.search(QUESTION, limit=5))


async def test_the_second_search_sees_only_what_the_room_sees(memory: SqliteFtsMemory) -> None:
    await _two_hops(memory)  # said in a direct room
    await said(memory, "Our friend Tomasz went to Porto, he says hi.", heard_by=PUB)
    await said(memory, "Tomasz says the pub quiz is on Friday.", heard_by=PUB)
    hits = await memory.search(QUESTION, limit=10, audience=PUB)
    assert {hit.item.text for hit in hits} == {
        "Our friend Tomasz went to Porto, he says hi.",
        "Tomasz says the pub quiz is on Friday.",
    }


def _hit(name: str, text: str = "") -> MemoryHit:
    item = MemoryItem(
        id=name,
        text=text or name,
        category="fact",
        source="user",
        confidence=1.0,
        created_at=NOW,
        kind="episode",
    )
    return MemoryHit(item, 1.0, {})


def test_seed_words_are_the_best_hits_words_the_question_lacks() -> None:
    hits = [_hit("a", "My friend Tomasz moved to Porto in 2019."), _hit("b", "Lucia sings.")]
    words = second_search.seed_words("Where did my friend move to?", hits)
    assert "tomasz" in words and "porto" in words and "march" not in words
    assert "friend" not in words and "moved" not in words, "the question's words and stems"
    assert "2019" not in words and "my" not in words
    if second_search.SEED_HITS == 1:
        assert "lucia" not in words


def test_the_rarest_seed_words_are_added_and_unknown_ones_are_not() -> None:
    words = {"tomasz": "tomasz", "porto": "porto", "march": "march", "zzz": "zzz"}
    frequencies = {"tomasz": 2, "porto": 9, "march": 40}
    assert second_search.expansion_words(words, frequencies)[:2] == ["tomasz", "porto"]
    assert "zzz" not in second_search.expansion_words(words, frequencies)


def test_fusion_keeps_the_first_searchs_best_and_lifts_what_both_find() -> None:
    first = [_hit(name) for name in "abcdef"]
    second = [_hit(name) for name in "xfbyz"]
    merged = [hit.item.id for hit in second_search.fused(first, second, 8)]
    assert merged[: second_search.KEPT_FIRST] == list("abcdef")[: second_search.KEPT_FIRST]
    assert len(merged) == len(set(merged)) == 8
    assert merged.index("f") < merged.index("d"), "found by both, it rises"
    assert "x" in merged, "the second search's best can enter"
