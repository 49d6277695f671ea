"""A question that asks when something happened finds the message that says when: of two
messages about the same thing, the one that names a time ("yesterday", "on the 14th", "na
terça passada") is lifted above the one that only talks about it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.memory.base import MemoryBackend, MemoryHit, TurnRecord
from bot.memory.episodes.time_query import says_a_time
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.sqlite.backend import SqliteFtsMemory

__all__: list[str] = []

NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "They let me go yesterday, right after standup.",
        "We signed the lease on the 14th of March!",
        "Flying out next Friday, can't wait",
        "Fui despedida ontem à tarde.",
        "A cirurgia é amanhã de manhã.",
        "Na terça passada fomos ao concerto.",
        "O casamento é em 9 de maio.",
        "Começo na segunda-feira.",
        "The race was back in October.",
        "We signed on the 14th, finally.",
        "We moved here in 2019.",
        "Meet you at 3pm by the pier",
        "Marcámos às 15h no café.",
        "The next day it rained.",
        "Daqui a duas semanas é o exame.",
        "The landlady handed the keys over on the Thursday before last.",
        "Me mudei dia 15, domingo.",
    ],
)
def test_a_time_named(text: str) -> None:
    assert says_a_time(text)


@pytest.mark.parametrize(
    "text",
    [
        "I may go to the gym after work.",
        "Marco ligou a perguntar pelo jantar.",
        "Almoçámos na quinta do avô.",
        "Losing that job still stings.",
        "O bolo de chocolate ficou ótimo.",
        # a verb, a name, a habit, a place, a duration, nowadays
        "All 3 may come to dinner.",
        "April said the march was long.",
        "June is bringing the cake.",
        "The Sunday roast was lovely.",
        "Daqui a Lisboa são três horas.",
        "I finished the book in 3 days.",
        "Hoje em dia trabalho em casa.",
        "Ao fim do dia 2 horas de treino chegam.",
    ],
)
def test_no_time_named(text: str) -> None:
    assert not says_a_time(text)


def _episodes(hits: list[MemoryHit]) -> list[MemoryHit]:
    return [hit for hit in hits if hit.item.kind == "episode"]


async def _tell(memory: MemoryBackend, text: str, at: datetime) -> None:
    await memory.sync(TurnRecord(text, "Oh no.", "telegram", at, "s", "i"))


BUILDERS = [
    lambda path: SqliteFtsMemory(path, now=lambda: NOW),
    lambda path: HolographicMemory(path, now=lambda: NOW),
]


@pytest.mark.parametrize("build", BUILDERS, ids=["sqlite-fts5", "holographic"])
@pytest.mark.parametrize(
    ("told", "later", "asked", "other"),
    [
        (
            "I was laid off yesterday.",
            "Being laid off really stings.",
            "When did I get laid off?",
            "Tell me about getting laid off",
        ),
        (
            "Despedido ontem, nem acredito.",
            "Despedido, ainda nem acredito.",
            "Quando é que fiquei despedido?",
            "Fiquei despedido, lembras-te?",
        ),
    ],
    ids=["english", "portuguese"],
)
async def test_a_when_question_finds_the_message_that_says_when(
    tmp_path: Path,
    build: Callable[[Path], MemoryBackend],
    told: str,
    later: str,
    asked: str,
    other: str,
) -> None:
    """Two messages that match the question's words alike: the newer comes first, unless the
    question asks when and only the older says it."""
    memory = build(tmp_path)
    await memory.open()
    try:
        await _tell(memory, told, NOW - timedelta(days=30))
        await _tell(memory, later, NOW - timedelta(days=20))
        plain = _episodes(await memory.prefetch(other, limit=4))
        assert [hit.item.text for hit in plain[:2]] == [later, told]
        assert "says_when" not in plain[0].parts
        found = _episodes(await memory.prefetch(asked, limit=4))
        assert [hit.item.text for hit in found[:2]] == [told, later]
        assert found[0].parts["says_when"] > 0
        assert found[1].parts["says_when"] == 0
    finally:
        await memory.close()
