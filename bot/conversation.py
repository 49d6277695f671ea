"""The conversation a session keeps in memory: entries, and their translation to LLM messages.

An entry is one user message or one persona reply. A ``pointer`` entry stands where
compaction removed older turns: it says where they now live and which facts were kept, and
it is framed as history, not as instructions. ``otr`` marks entries said Off The Record:
they may stay in the live conversation but never reach a log, a memory or a promotion.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from bot.llm.base import Message

__all__ = ["Entry", "to_messages"]


@dataclass(frozen=True, slots=True)
class Entry:
    role: Literal["user", "assistant"]
    text: str
    at: datetime
    platform: str = "console"
    otr: bool = False
    kind: Literal["turn", "pointer"] = "turn"


def to_messages(entries: Iterable[Entry]) -> list[Message]:
    """LLM messages for ``entries``: consecutive entries of one role are joined, and the list
    starts with a user message, as every provider requires."""
    messages: list[Message] = []
    for entry in entries:
        if not entry.text:
            continue
        if messages and messages[-1].role == entry.role:
            messages[-1] = Message(entry.role, messages[-1].text + "\n\n" + entry.text)
        else:
            messages.append(Message(entry.role, entry.text))
    while messages and messages[0].role != "user":
        messages.pop(0)
    return messages
