"""Delivering an answer: the typing indicator shows only for answers that take a while."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from adapters.base import AdapterContext, Incoming
from bot.delivery.steps import Undelivered, perform_all
from bot.turn.reply import TYPING_DELAY, ReplyStream
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


def _streaming(tmp_path: Path) -> RecordingAdapter:
    adapter = _adapter(tmp_path)
    adapter.supports_edit = True
    adapter.max_message_chars = 40
    return adapter


def _key(part: str) -> str:
    return f"event-1:{part}"


async def test_an_answer_resumed_after_a_restart_edits_the_message_it_left(
    tmp_path: Path,
) -> None:
    adapter = _streaming(tmp_path)
    left = await adapter.send("room", "The begin", key=_key("0"))  # the process before
    reply = ReplyStream(adapter, "room", key=_key, message_id=left, retry=True)
    await reply.finish("The beginning and the end.")
    assert adapter.final_texts() == ["The beginning and the end."]


async def test_a_first_send_of_unknown_outcome_is_found_by_its_key_and_completed(
    tmp_path: Path,
) -> None:
    adapter = _streaming(tmp_path)
    await adapter.send("room", "The begin", key=_key("0"))  # its id never recorded
    reply = ReplyStream(adapter, "room", key=_key, retry=True)
    answer = "First paragraph of the answer.\n\nSecond paragraph, after it."
    await reply.finish(answer)
    assert adapter.final_texts() == [
        "First paragraph of the answer.",
        "Second paragraph, after it.",
    ]


async def test_an_undelivered_answer_leaves_its_steps_for_the_outbox(tmp_path: Path) -> None:
    adapter = _streaming(tmp_path)
    reply = ReplyStream(adapter, "room", key=_key)
    await reply.on_text("Streaming starts")
    adapter.down = True
    with pytest.raises(Undelivered) as caught:
        await reply.finish("Streaming starts and ends.")
    [step] = caught.value.steps
    assert (step.op, step.message_id, step.text) == ("edit", "1", "Streaming starts and ends.")
    adapter.down = False
    await perform_all(adapter, caught.value.steps)
    assert adapter.final_texts() == ["Streaming starts and ends."]
