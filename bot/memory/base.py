"""The lifecycle every memory backend follows.

Exactly one backend is active per persona. A session drives it through six hook points:

* ``inject()``    a block for the system prompt (what the backend always wants the model to see)
* ``prefetch(q)`` recall for this turn, before the model is asked
* ``sync(turn)``  store the finished turn after the answer was sent
* ``extract(ts)`` distill durable facts at the end of a session (``/new``, idle, shutdown)
* ``mirror(f,t)`` copy the file layer's writes (MEMORY.md, USER.md) into the backend
* ``tools()``     the backend's own tools for the model: search, add, forget

Every item records its audience (:mod:`bot.turn.audience`): ``direct`` (said in a direct room of
its user), ``room:PLATFORM:ID`` (said in that shared room) or ``shared`` (made shared by the
user: :meth:`MemoryBackend.share`, the ``shared/`` files' mirrors). The hooks that read
(``inject``, ``prefetch``, ``search``, ``tools``, ``forget``) take the turn's
:class:`~bot.turn.audience.Audience` and give only what it :meth:`~bot.turn.audience.Audience.sees`:
a direct room everything, a shared room what was said there and what was made shared, filtered
inside the search itself so another room's items never take a place in the pool. The writes
take a label (``sync`` and ``extract`` from :attr:`TurnRecord.audience`, ``add`` its
``audience``; a mirror's from the file's folder, :func:`~bot.turn.audience.label_of_path`). A
statement said again reinforces only an item every audience of its own sees already (a
shared room's: what that room sees; one made shared: what is shared); anything else stays as it
is, and the repeat is kept anew (:mod:`bot.memory.reinforcement`). A repeat never changes an
item's audience; only :meth:`MemoryBackend.share` does. Items from stores older than audiences
are direct: private until the user shares them.

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
from typing import Any, Literal, Self

from bot.tools.registry import Tool
from bot.turn.audience import DIRECT, DIRECT_ROOM, Audience, is_label

__all__ = [
    "CATEGORIES",
    "AddResult",
    "Category",
    "MemoryBackend",
    "MemoryHit",
    "MemoryItem",
    "MemoryKind",
    "TurnRecord",
    "clamp_confidence",
    "format_citation",
    "visible_in",
]

Category = Literal["fact", "preference", "decision", "skill", "error"]
CATEGORIES: tuple[Category, ...] = ("fact", "preference", "decision", "skill", "error")

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
    #: where the exchange happened (:mod:`bot.turn.audience`): what it teaches is recalled only
    #: by the rooms that label lets see it
    audience: str = DIRECT


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
    #: who may be shown it (:mod:`bot.turn.audience`): ``direct``, ``room:P:ID`` or ``shared``
    audience: str = DIRECT
    #: a durable ``fact`` the write policy kept, or an ``episode``: one message as it was said
    kind: MemoryKind = "fact"
    #: of a fact: the id of the episode (``e42``) it was told in, empty when no message said it
    episode: str = ""
    #: of a recalled fact: the text of that episode, the message around the fact
    context: str = ""

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
            "audience": self.audience,
            "kind": self.kind,
            "created_at": self.created_at.isoformat(),
        }


@dataclass(slots=True)
class MemoryHit:
    item: MemoryItem
    score: float
    parts: dict[str, float] = field(default_factory=dict)
    #: the other side of its exchange, recalled with it and taken into it
    #: (:mod:`bot.memory.episodes.exchanges`): the persona's answer, when this is the user's
    #: message (or a fact told in it) ...
    reply: MemoryHit | None = None
    #: ... or the user's message, when this is the persona's answer
    replying_to: MemoryHit | None = None

    @property
    def citation(self) -> str:
        return format_citation(self.item)

    @property
    def message(self) -> str:
        """The message it stands for: its own text, or a fact's message (empty when the
        audience does not see it)."""
        return self.item.context if self.item.kind == "fact" else self.item.text

    def around(self) -> str:
        """What was said around it, as a recalled line shows it after the item: a fact's
        message, and the other side of its exchange."""
        shown = ""
        if self.item.context and self.item.context.strip() != self.item.text.strip():
            shown += f" (from the message: {self.item.context})"
        if self.reply is not None:
            shown += f" (your reply: {self.reply.message})"
        if self.replying_to is not None:
            shown += f" (in reply to: {self.replying_to.message})"
        return shown


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


def visible_in(item: MemoryItem, audience: Audience) -> bool:
    """Whether a turn heard by ``audience`` may see ``item``."""
    return audience.sees(item.audience)


def format_citation(item: MemoryItem) -> str:
    """``[category · source · confidence]`` as every injected fact carries it; an episode's
    names the day it was said and where: ``[episode · 2026-05-09 · dm]`` (or ``group``)."""
    if item.kind == "episode":
        where = "dm" if item.audience == DIRECT else "group"
        return f"[episode · {item.created_at:%Y-%m-%d} · {where}]"
    return f"[{item.category} · {item.source} · {item.confidence:.2f}]"


class MemoryBackend(ABC):
    """One persona's memory store."""

    name: str = "base"

    def __init__(self, persona_dir: Path) -> None:
        self.persona_dir = persona_dir

    @property
    def searches_meaning(self) -> bool:
        """Whether a search compares meanings (sentence vectors) as well as words."""
        return False

    async def open(self) -> None:
        """Open connections and apply migrations."""
        return None

    async def close(self) -> None:
        return None

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @abstractmethod
    async def inject(self, *, audience: Audience = DIRECT_ROOM) -> str:
        """Text for the system prompt; empty when there is nothing to say. Only what
        ``audience`` sees."""

    async def prefetch(
        self, query: str, *, limit: int = 8, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        """Memories relevant to ``query`` that ``audience`` sees, best first; by default what
        ``search`` finds."""
        return await self.search(query, limit=limit, audience=audience)

    @abstractmethod
    async def sync(self, turn: TurnRecord) -> None:
        """Store what is worth keeping of a finished turn."""

    @abstractmethod
    async def extract(self, turns: Sequence[TurnRecord]) -> int:
        """Distill durable facts from a finished session; return how many were stored."""

    @abstractmethod
    async def mirror(self, filename: str, text: str) -> None:
        """The file layer wrote ``filename`` (e.g. ``MEMORY.md``); keep the backend in step."""

    async def add(
        self,
        text: str,
        *,
        source: str,
        category: Category | None = None,
        force: bool = False,
        audience: str = DIRECT,
        confidence: float | None = None,
    ) -> AddResult:
        """Store one candidate fact through the write policy, said where the label
        ``audience`` names (a repeat in a shared room of what it does not see is that room's
        own item: :mod:`bot.memory.reinforcement`). ``confidence``, when
        given, is what a new item is stored with (:func:`clamp_confidence`) in place of the
        policy's own: the session-end model that proposed the fact weighed it in context,
        the sentence rules cannot."""
        if not is_label(audience):
            raise ValueError(f"{audience!r} is not an audience label")
        return await self._add(
            text,
            source=source,
            category=category,
            force=force,
            audience=audience,
            confidence=confidence,
        )

    @abstractmethod
    async def _add(
        self,
        text: str,
        *,
        source: str,
        category: Category | None,
        force: bool,
        audience: str,
        confidence: float | None,
    ) -> AddResult:
        """The backend's own write of one candidate fact, its ``audience`` a valid label;
        the backend's other writes (``sync``, ``extract``, ``mirror``) call it with their own
        keywords beside these."""

    @abstractmethod
    def tools(self, *, audience: Audience = DIRECT_ROOM) -> list[Tool]:
        """The backend's own tools (search, add, forget) for the model, scoped to
        ``audience``: they find only what it sees, and ``add`` records its label."""

    # -- inspection, for the ``personad memory`` commands ------------------------------------

    @abstractmethod
    async def search(
        self, query: str, *, limit: int = 10, audience: Audience = DIRECT_ROOM
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
    async def forget(self, item_id: str, *, audience: Audience = DIRECT_ROOM) -> bool:
        """Mark an item forgotten (never deleted); False if there is no such item that
        ``audience`` sees."""

    @abstractmethod
    async def share(self, item_id: str, label: str) -> bool:
        """Give an item (a fact or an episode) the audience ``label``: ``shared`` to let
        every room know it, ``direct`` to make it private again (the user's ``/share`` and
        ``/unshare``); recorded in the item's history. False if there is no such item."""

    @abstractmethod
    async def stats(self) -> dict[str, Any]:
        """Counts by status and category, and backend specifics."""

    @abstractmethod
    async def export(self) -> list[dict[str, Any]]:
        """Every item, every status, as plain JSON-ready dicts."""
