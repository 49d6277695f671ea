"""The lifecycle every memory backend follows.

Exactly one backend is active per persona. A session drives it through six hook points:

* ``inject()``    a block for the system prompt (what the backend always wants the model to see)
* ``prefetch(q)`` recall for this turn, before the model is asked
* ``sync(turn)``  store the finished turn after the answer was sent
* ``extract(ts)`` distill durable facts at the end of a session (``/new``, idle, shutdown)
* ``mirror(f,t)`` copy the file layer's writes (MEMORY.md, USER.md) into the backend
* ``tools()``     the backend's own tools for the model: search, add, forget

Memories are scoped by the kind of room they were learned in (:data:`RoomKind`). A turn in a
``"direct"`` conversation (the user alone with the persona) sees every memory; a turn in a
``"shared"`` room (a group others read) sees only what was learned in shared rooms and the
persona's own file layer (MEMORY.md and USER.md mirrors, ``personad memory add``), which every
room's prompt carries anyway. An item said again in a shared room becomes shared; nothing
ever narrows back. Old items, from before rooms were recorded, count as direct. The hooks
that read (``inject``, ``prefetch``, ``search``, ``tools``, ``forget``) take ``shared_room``;
the writes take the room (``sync`` and ``extract`` from :attr:`TurnRecord.room`).

None of them is called while the session is Off The Record: the session checks that, and
backends may rely on it. ``add`` is the write path for a single candidate fact (compaction's
promotion and ``personad memory add`` use it); it runs the write policy unless forced, and
even a forced write is classified.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from bot.tools import Tool

__all__ = [
    "CATEGORIES",
    "ROOM_KINDS",
    "AddResult",
    "Category",
    "MemoryBackend",
    "MemoryHit",
    "MemoryItem",
    "MemoryKind",
    "RoomKind",
    "TurnRecord",
    "clamp_confidence",
    "format_citation",
    "visible_in",
]

Category = Literal["fact", "preference", "decision", "skill", "error"]
CATEGORIES: tuple[Category, ...] = ("fact", "preference", "decision", "skill", "error")

RoomKind = Literal["direct", "shared"]
"""Where something was said: ``direct`` (the user alone with the persona) or ``shared`` (a
room other people read)."""
ROOM_KINDS: tuple[RoomKind, ...] = ("direct", "shared")

MemoryKind = Literal["fact", "episode"]


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """A finished exchange, as the session hands it to ``sync`` and ``extract``."""

    user_text: str
    reply_text: str
    platform: str
    at: datetime
    user: str
    persona: str
    #: the kind of room the exchange happened in; what it teaches is recalled only there
    #: (``direct``) or everywhere (``shared``)
    room: RoomKind = "direct"


@dataclass(slots=True)
class MemoryItem:
    id: str
    text: str
    category: Category
    source: str
    confidence: float
    created_at: datetime
    status: Literal["active", "superseded", "archived", "forgotten"] = "active"
    reinforced: int = 0
    #: "shared" once the fact was stated in a shared room (or came from the file layer)
    room: RoomKind = "direct"
    #: a durable ``fact`` the write policy kept, or an ``episode``: one message as it was said
    kind: MemoryKind = "fact"

    def record(self) -> dict[str, Any]:
        """The item as plain data (for inspection and export)."""
        return {
            "id": self.id,
            "text": self.text,
            "category": self.category,
            "source": self.source,
            "confidence": self.confidence,
            "status": self.status,
            "reinforced": self.reinforced,
            "room": self.room,
            "kind": self.kind,
            "created_at": self.created_at.isoformat(),
        }


@dataclass(slots=True)
class MemoryHit:
    item: MemoryItem
    score: float
    parts: dict[str, float] = field(default_factory=dict)

    @property
    def citation(self) -> str:
        return format_citation(self.item)


@dataclass(frozen=True, slots=True)
class AddResult:
    """What the write policy decided for one candidate."""

    stored: bool
    category: Category | None
    reason: str
    item_id: str | None = None
    duplicate_of: str | None = None


def clamp_confidence(value: float) -> float:
    """A confidence within 0..1 (a value that is not a number counts as 0)."""
    return min(1.0, max(0.0, value)) if value == value else 0.0


def visible_in(item: MemoryItem, *, shared_room: bool) -> bool:
    """Whether a turn in a shared room (or a direct one) may see ``item``."""
    return not shared_room or item.room == "shared"


def format_citation(item: MemoryItem) -> str:
    """``[category · source · confidence]`` as every injected fact carries it; an episode's
    names the day it was said and where: ``[episode · 2026-05-09 · dm]`` (or ``group``)."""
    if item.kind == "episode":
        where = "group" if item.room == "shared" else "dm"
        return f"[episode · {item.created_at:%Y-%m-%d} · {where}]"
    return f"[{item.category} · {item.source} · {item.confidence:.2f}]"


class MemoryBackend(ABC):
    """One persona's memory store."""

    name: str = "base"

    def __init__(self, persona_dir: Path) -> None:
        self.persona_dir = persona_dir

    async def open(self) -> None:
        """Open connections and apply migrations."""
        return None

    async def close(self) -> None:
        return None

    @abstractmethod
    async def inject(self, *, shared_room: bool = False) -> str:
        """Text for the system prompt; empty when there is nothing to say. In a shared room
        only what was learned in shared rooms."""

    async def prefetch(
        self, query: str, *, limit: int = 8, shared_room: bool = False
    ) -> list[MemoryHit]:
        """Memories relevant to ``query``, best first (in a shared room: shared ones only);
        by default what ``search`` finds."""
        return await self.search(query, limit=limit, shared_room=shared_room)

    @abstractmethod
    async def sync(self, turn: TurnRecord) -> None:
        """Store what is worth keeping of a finished turn."""

    @abstractmethod
    async def extract(self, turns: Sequence[TurnRecord]) -> int:
        """Distill durable facts from a finished session; return how many were stored."""

    @abstractmethod
    async def mirror(self, filename: str, text: str) -> None:
        """The file layer wrote ``filename`` (e.g. ``MEMORY.md``); keep the backend in step."""

    @abstractmethod
    async def add(
        self,
        text: str,
        *,
        source: str,
        category: Category | None = None,
        force: bool = False,
        room: RoomKind = "direct",
        confidence: float | None = None,
    ) -> AddResult:
        """Store one candidate fact through the write policy, learned in a ``room`` of that
        kind (a repeat from a shared room makes a direct item shared). ``confidence``, when
        given, is what a new item is stored with (:func:`clamp_confidence`) in place of the
        policy's own: the session-end model that proposed the fact weighed it in context,
        the sentence rules cannot."""

    @abstractmethod
    def tools(self, *, shared_room: bool = False) -> list[Tool]:
        """The backend's own tools (search, add, forget) for the model, scoped to the room."""

    # -- inspection, for the ``personad memory`` commands ------------------------------------

    @abstractmethod
    async def search(
        self, query: str, *, limit: int = 10, shared_room: bool = False
    ) -> list[MemoryHit]:
        """Like ``prefetch`` but for a person: every hit carries its score parts."""

    @abstractmethod
    async def list_items(
        self, *, include_inactive: bool = False, limit: int = 100
    ) -> list[MemoryItem]:
        """Newest first; superseded, archived and forgotten items only when asked."""

    @abstractmethod
    async def explain(self, item_id: str) -> dict[str, Any]:
        """Everything known about one item: text, category, source, status, history."""

    @abstractmethod
    async def forget(self, item_id: str, *, shared_room: bool = False) -> bool:
        """Mark an item forgotten (never deleted); False if there is no such item, or, from a
        shared room, none that room may see."""

    @abstractmethod
    async def stats(self) -> dict[str, Any]:
        """Counts by status and category, and backend specifics."""

    @abstractmethod
    async def export(self) -> list[dict[str, Any]]:
        """Every item, every status, as plain JSON-ready dicts."""
