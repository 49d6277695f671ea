"""The record of the messages an answer key already sent on Telegram: kept per key and text,
bounded, and read back by the next process."""

from __future__ import annotations

from adapters.telegram_sent import KEEP, SentParts
from tests.fakes.state import MemoryState

__all__: list[str] = []


async def test_sent_messages_are_kept_per_key_and_text_and_read_back() -> None:
    state = MemoryState()
    parts = SentParts(state)
    await parts.add("k1", "a long answer", "11")
    await parts.add("k1", "a long answer", "12")
    assert parts.sent("k1", "a long answer") == ["11", "12"]
    assert parts.sent("k1", "another text under the same key") == []
    assert parts.sent("k2", "a long answer") == []
    again = SentParts(state)
    await again.load()
    assert again.sent("k1", "a long answer") == ["11", "12"]
    await again.add("k1", "other text", "20")  # the key starts over for its new text
    assert again.sent("k1", "other text") == ["20"]
    assert again.sent("k1", "a long answer") == []


async def test_only_the_newest_keys_are_kept_and_a_damaged_record_is_let_go() -> None:
    state = MemoryState()
    parts = SentParts(state)
    for number in range(KEEP + 10):
        await parts.add(f"k{number}", "text", str(number))
    assert parts.sent("k0", "text") == []
    assert parts.sent(f"k{KEEP + 9}", "text") == [str(KEEP + 9)]
    state.values["sent_parts"] = "{not json"
    damaged = SentParts(state)
    await damaged.load()
    assert damaged.sent(f"k{KEEP + 9}", "text") == []
    await damaged.add("k", "text", "1")
    assert damaged.sent("k", "text") == ["1"]


class Broken(MemoryState):
    async def set(self, key: str, value: str) -> None:
        raise OSError("disk full")


async def test_a_record_that_cannot_be_saved_does_not_fail_the_send() -> None:
    parts = SentParts(Broken())
    await parts.add("k", "text", "1")  # no exception: the message did go out
    assert parts.sent("k", "text") == ["1"]
