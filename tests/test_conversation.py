"""The conversation's LLM messages: joined roles, a user first, and the cache that reuses them."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Literal

from bot.llm.base import Message
from bot.turn.conversation import Entry, MessageCache, to_messages

NOW = datetime(2026, 5, 9, 14, 34, tzinfo=UTC)


def entry(role: Literal["user", "assistant"], text: str) -> Entry:
    return Entry(role, text, NOW)


def test_roles_are_joined_and_the_list_starts_with_the_user() -> None:
    entries = [
        entry("assistant", "(an answer whose question was folded away)"),
        entry("user", "one"),
        entry("user", "two"),
        entry("assistant", ""),
        entry("assistant", "reply"),
    ]
    assert to_messages(entries) == [Message("user", "one\n\ntwo"), Message("assistant", "reply")]
    assert to_messages([entry("assistant", "alone")]) == []


def test_the_cache_gives_what_converting_everything_gives() -> None:
    rng = random.Random(11)
    cache = MessageCache()
    entries: list[Entry] = []
    for step in range(400):
        action = rng.random()
        if action < 0.7:
            role: Literal["user", "assistant"] = rng.choice(["user", "assistant"])
            entries.append(entry(role, rng.choice(["", f"text {step}"])))
        elif action < 0.8:
            entries = entries[rng.randrange(len(entries) + 1) :]  # compaction: a new list
        elif action < 0.85:
            entries = []  # /new
        elif action < 0.9 and entries:
            del entries[-1]  # shortened in place
        extra = entry("user", f"message {step}")
        assert cache.messages(entries, extra) == to_messages([*entries, extra]), step
