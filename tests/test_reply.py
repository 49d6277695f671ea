"""Delivering an answer: the typing indicator shows only for answers that take a while."""

from __future__ import annotations

import asyncio
from pathlib import Path

from adapters.base import AdapterContext, Incoming
from bot.reply import TYPING_DELAY, ReplyStream
from tests.harness import RecordingAdapter


async def _noop(incoming: Incoming) -> None:
    return None


def _adapter(tmp_path: Path) -> RecordingAdapter:
    return RecordingAdapter(
        AdapterContext(handler=_noop, state=None, data_dir=tmp_path)  # type: ignore[arg-type]
    )


async def test_a_quick_answer_goes_out_without_a_typing_flicker(tmp_path: Path) -> None:
    adapter = _adapter(tmp_path)
    async with ReplyStream(adapter, "room1") as reply:
        await reply.finish("at once")
    await asyncio.sleep(TYPING_DELAY * 1.5)  # the timer is gone: nothing shows up later
    assert adapter.sent == [("room1", "at once")]
    assert adapter.typing_calls == []


async def test_a_slow_answer_shows_typing_until_it_is_sent(tmp_path: Path) -> None:
    adapter = _adapter(tmp_path)
    async with ReplyStream(adapter, "room1", typing_delay=0.05) as reply:
        await asyncio.sleep(0.2)  # the model thinks
        assert adapter.typing_calls == [("room1", True)]
        await reply.finish("after a while")
    assert adapter.sent == [("room1", "after a while")]
    assert adapter.typing_calls == [("room1", True), ("room1", False)]


async def test_leaving_early_stops_the_pending_indicator(tmp_path: Path) -> None:
    adapter = _adapter(tmp_path)
    async with ReplyStream(adapter, "room1", typing_delay=0.05):
        pass  # the turn failed before any answer
    await asyncio.sleep(0.1)
    assert adapter.typing_calls == []
