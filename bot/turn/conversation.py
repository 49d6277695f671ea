"""The conversation a session keeps in memory, one a room (:class:`Conversation`): entries,
and their translation to LLM messages.

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

__all__ = ["ROOMS_KEPT", "Conversation", "Entry", "MessageCache", "let_go_quietest", "to_messages"]

#: rooms whose conversation a session keeps live (each web conversation is a room of its own)
ROOMS_KEPT = 64


@dataclass(frozen=True, slots=True)
class Entry:
    role: Literal["user", "assistant"]
    text: str
    at: datetime
    platform: str = "console"
    otr: bool = False
    kind: Literal["turn", "pointer"] = "turn"
    #: the room it was said in, ``platform:id`` (empty: not known, from an older log)
    room: str = ""
    #: said while the room was a shared one (a group): what the session log records, so a
    #: room that changes kind never hands one kind's words to the other
    shared: bool = False
    #: the platform event a user entry came from ("" when restored from the session log)
    event_id: str = ""


def to_messages(entries: Iterable[Entry]) -> list[Message]:
    """LLM messages for ``entries``: consecutive entries of one role are joined, and the list
    starts with a user message, as every provider requires."""
    return _from_first_user(_append([], entries))


def _append(messages: list[Message], entries: Iterable[Entry]) -> list[Message]:
    for entry in entries:
        if not entry.text:
            continue
        if messages and messages[-1].role == entry.role:
            messages[-1] = Message(entry.role, messages[-1].text + "\n\n" + entry.text)
        else:
            messages.append(Message(entry.role, entry.text))
    return messages


def _from_first_user(messages: list[Message]) -> list[Message]:
    for index, message in enumerate(messages):
        if message.role == "user":
            return messages[index:] if index else messages
    return []


class MessageCache:
    """:func:`to_messages` for a conversation that grows by appending: each entry is turned
    into a message once, not again on every turn. A conversation replaced by another list
    (compaction, ``/new``) or shortened is converted afresh."""

    def __init__(self) -> None:
        self._entries: list[Entry] | None = None
        self._count = 0
        self._messages: list[Message] = []

    def messages(self, entries: list[Entry], *more: Entry) -> list[Message]:
        """``to_messages([*entries, *more])``."""
        if entries is not self._entries or len(entries) < self._count:
            self._entries, self._count, self._messages = entries, 0, []
        _append(self._messages, entries[self._count :])
        self._count = len(entries)
        return _from_first_user(_append(list(self._messages), more))


class Conversation:
    """The live conversation of one room."""

    __slots__ = ("entries", "messages")

    def __init__(self, entries: list[Entry] | None = None) -> None:
        self.entries: list[Entry] = entries or []
        self.messages = MessageCache()


def let_go_quietest(rooms: dict[str, Conversation], keep: int = ROOMS_KEPT) -> int:
    """Drop the live conversations of the rooms quiet longest, so that ``keep`` remain (a room
    with nothing said yet counts as the newest); returns how many were dropped. What was said
    in them stays in the session log and memory: spoken to again, a room starts a fresh
    conversation, and recall finds what was said there."""
    if len(rooms) <= keep:
        return 0

    def last_said(key: str) -> float:
        entries = rooms[key].entries
        return entries[-1].at.timestamp() if entries else float("inf")

    quiet = sorted(rooms, key=last_said)[: len(rooms) - keep]
    for key in quiet:
        del rooms[key]
    return len(quiet)
