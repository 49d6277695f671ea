"""The record of how many messages an unfinished Telegram send already sent: kept per key and
text, bounded, let go when the send completes, and read back by the next process."""

from __future__ import annotations

import json

from adapters.telegram.sent_parts import KEEP, SentParts
from tests.fakes.state import MemoryState

__all__: list[str] = []


async def test_sent_messages_are_kept_per_key_and_text_and_read_back() -> None:
    state = MemoryState()
    parts = SentParts(state)
    await parts.add("k1", "a long answer")
    await parts.add("k1", "a long answer")
    assert parts.count("k1", "a long answer") == 2
    assert parts.count("k1", "another text under the same key") == 0
    assert parts.count("k2", "a long answer") == 0
    again = SentParts(state)
    await again.load()
    assert again.count("k1", "a long answer") == 2
    await again.add("k1", "other text")  # the key starts over for its new text
    assert again.count("k1", "other text") == 1
    assert again.count("k1", "a long answer") == 0


async def test_a_finished_send_is_let_go_here_and_in_the_next_process() -> None:
    state = MemoryState()
    parts = SentParts(state)
    await parts.add("k1", "a long answer")
    await parts.add("k2", "another long answer")
    await parts.finished("k1")
    await parts.finished("never started")  # nothing to let go: no write, no error
    assert parts.count("k1", "a long answer") == 0
    again = SentParts(state)
    await again.load()
    assert again.count("k1", "a long answer") == 0
    assert again.count("k2", "another long answer") == 1


async def test_only_the_newest_keys_are_kept_and_a_damaged_record_is_let_go() -> None:
    state = MemoryState()
    parts = SentParts(state)
    for number in range(KEEP + 10):
        await parts.add(f"k{number}", "text")
    assert parts.count("k0", "text") == 0
    assert parts.count(f"k{KEEP + 9}", "text") == 1
    state.values["sent_parts"] = "{not json"
    damaged = SentParts(state)
    await damaged.load()
    assert damaged.count(f"k{KEEP + 9}", "text") == 0
    await damaged.add("k", "text")
    assert damaged.count("k", "text") == 1


class Broken(MemoryState):
    async def set(self, key: str, value: str) -> None:
        raise OSError("disk full")


async def test_a_record_that_cannot_be_saved_does_not_fail_the_send() -> None:
    parts = SentParts(Broken())
    await parts.add("k", "text")  # no exception: the message did go out
    assert parts.count("k", "text") == 1


async def test_a_send_off_the_record_is_remembered_in_memory_only() -> None:
    state = MemoryState()
    parts = SentParts(state)
    await parts.add("kept", "an answer on the record")
    await parts.add("otr", "an answer off the record", write=False)
    await parts.add("otr", "an answer off the record", write=False)
    assert parts.count("otr", "an answer off the record") == 2  # a retry here skips them
    await parts.add("kept", "an answer on the record")
    assert [key for key, _ in json.loads(state.values["sent_parts"])] == ["kept"]
    again = SentParts(state)
    await again.load()
    assert again.count("kept", "an answer on the record") == 2
    assert again.count("otr", "an answer off the record") == 0
    state.values.clear()
    await parts.finished("otr")  # nothing of it was written: nothing to write now
    assert state.values == {}
    assert parts.count("otr", "an answer off the record") == 0


async def test_a_key_written_down_and_then_sent_off_the_record_is_taken_off() -> None:
    state = MemoryState()
    parts = SentParts(state)
    await parts.add("k", "an answer")
    assert "k" in state.values["sent_parts"]
    await parts.add("k", "an answer", write=False)
    assert json.loads(state.values["sent_parts"]) == []
    assert parts.count("k", "an answer") == 2
    await parts.finished("k")
    assert json.loads(state.values["sent_parts"]) == []
