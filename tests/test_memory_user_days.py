"""Recall counts days as the user does: "yesterday" asked in the evening in São Paulo is São
Paulo's yesterday, and the episodes it finds are cited with the user's date."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.memory.base import MemoryBackend, MemoryHit, TurnRecord
from bot.memory.factory import open_memory, user_clock
from bot.memory.holographic.backend import HolographicMemory
from bot.memory.sqlite.backend import SqliteFtsMemory
from bot.setup.config import Config

__all__: list[str] = []

SAO_PAULO = ZoneInfo("America/Sao_Paulo")
#: Wednesday 20 May, 20:00 in São Paulo: already 23:00 UTC
ASKED = datetime(2026, 5, 20, 20, 0, tzinfo=SAO_PAULO)
#: Tuesday 19 May, 22:30 in São Paulo (01:30 UTC on the 20th): the user's yesterday
LATE_YESTERDAY = datetime(2026, 5, 19, 22, 30, tzinfo=SAO_PAULO)
#: Monday 18 May, 22:30 in São Paulo (01:30 UTC on the 19th): UTC's yesterday, not the user's
LATE_THE_DAY_BEFORE = datetime(2026, 5, 18, 22, 30, tzinfo=SAO_PAULO)


def _config(tmp_path: Path, zone: str) -> Config:
    return Config.model_validate(
        {
            "daemon": {"data_dir": str(tmp_path)},
            "memory": {"embeddings": "off"},
            "users": {"scott": {"timezone": zone}},
        }
    )


async def _tell(memory: MemoryBackend, text: str, at: datetime) -> None:
    await memory.sync(TurnRecord(text, "Sounds good!", "telegram", at.astimezone(UTC), "s", "i"))


def _episodes(hits: list[MemoryHit]) -> list[MemoryHit]:
    return [hit for hit in hits if hit.item.kind == "episode"]


async def _said_on_two_evenings(memory: MemoryBackend) -> None:
    """Two evenings, told the same way ("tonight": an episode, no fact), the later one last."""
    await _tell(memory, "Tonight I cooked a big pot of feijoada for Rui.", LATE_THE_DAY_BEFORE)
    await _tell(memory, "Tonight I cooked a mushroom risotto for Rui.", LATE_YESTERDAY)


@pytest.mark.parametrize(
    "build",
    [
        lambda path, now: SqliteFtsMemory(path, now=now),
        lambda path, now: HolographicMemory(path, now=now),
    ],
    ids=["sqlite-fts5", "holographic"],
)
@pytest.mark.parametrize(
    "query", ["what did I cook for Rui yesterday?", "o que cozinhei ontem com o Rui?"]
)
async def test_yesterday_is_the_users_yesterday(
    tmp_path: Path,
    build: Callable[[Path, Callable[[], datetime]], MemoryBackend],
    query: str,
) -> None:
    memory = build(tmp_path, lambda: ASKED)
    await memory.open()
    try:
        await _said_on_two_evenings(memory)
        hits = _episodes(await memory.prefetch(query, limit=4))
        assert hits[0].item.text == "Tonight I cooked a mushroom risotto for Rui."
        assert hits[0].parts["time"] > 0
        assert hits[0].citation == "[episode · 2026-05-19 · dm]"  # UTC would say the 20th
        assert hits[1].parts["time"] == 0
    finally:
        await memory.close()


async def test_in_utc_the_same_question_finds_the_other_evening(tmp_path: Path) -> None:
    """The control: counted in UTC, the day before's dinner is the one said "yesterday"."""
    async with SqliteFtsMemory(tmp_path, now=lambda: ASKED.astimezone(UTC)) as memory:
        await _said_on_two_evenings(memory)
        hits = _episodes(await memory.prefetch("what did I cook yesterday?", limit=4))
        assert hits[0].item.text == "Tonight I cooked a big pot of feijoada for Rui."


async def test_the_factory_gives_each_backend_the_users_clock(tmp_path: Path) -> None:
    known = tmp_path / "scott" / "persona" / "inara"
    stranger = tmp_path / "nobody" / "persona" / "inara"
    known.mkdir(parents=True)
    stranger.mkdir(parents=True)
    config = _config(tmp_path, "America/Sao_Paulo")
    for directory, offset in ((known, -3 * 3600), (stranger, 0)):
        memory = await open_memory(config, directory)
        try:
            assert isinstance(memory, SqliteFtsMemory)
            said = TurnRecord(
                "Tonight I planted basil.", "Nice!", "cli", datetime.now(UTC), "s", "i"
            )
            await memory.sync(said)
            hits = _episodes(await memory.prefetch("what did I plant today?", limit=2))
            assert hits[0].item.created_at.utcoffset() == timedelta(seconds=offset)
        finally:
            await memory.close()


def test_the_users_clock_follows_a_reload(tmp_path: Path) -> None:
    config = _config(tmp_path, "America/Sao_Paulo")
    now = user_clock(config, "scott")
    assert now().utcoffset() == ZoneInfo("America/Sao_Paulo").utcoffset(now())
    config.users = _config(tmp_path, "Asia/Tokyo").users  # what /reload does
    assert now().tzinfo == ZoneInfo("Asia/Tokyo")
    assert user_clock(config, "nobody")().tzinfo == UTC
