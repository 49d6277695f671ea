"""How :class:`~bot.memory.sqlite.backend.SqliteFtsMemory` changes an item it keeps: forgets
it, or gives it another audience (the user's ``/share`` and ``/unshare``).

Nothing is ever deleted: forgetting changes a fact's status, sharing its audience label, each
recorded in its history, and its row in the vector index is masked or relabelled to match.
An episode's id (``e42``) is handed to the episodes (:class:`~bot.memory.episodes.engine.Episodes`),
which do the same for messages.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime

from bot.memory.episodes.engine import Episodes
from bot.memory.episodes.rows import parse_episode_id
from bot.memory.sqlite.inspection import fact_rowid
from bot.memory.sqlite.store import FtsStore
from bot.memory.sqlite.vector_index import VectorIndex
from bot.turn.audience import DIRECT_ROOM, Audience, is_label

__all__ = ["ItemChanges"]


class ItemChanges:
    """The backend's forgetting and sharing (a part of
    :class:`~bot.memory.sqlite.backend.SqliteFtsMemory`)."""

    # what it uses of the backend
    episodes: Episodes
    _store: FtsStore
    _index: VectorIndex | None
    _now: Callable[[], datetime]
    _write_lock: asyncio.Lock

    async def forget(self, item_id: str, *, audience: Audience = DIRECT_ROOM) -> bool:
        episode = parse_episode_id(item_id)
        if episode is not None:
            return await self.episodes.forget(episode, labels=audience.labels)
        rowid = fact_rowid(item_id)
        if rowid is None:
            return False
        async with self._write_lock:
            found = await self._store.forget(
                rowid, at=self._now().timestamp(), labels=audience.labels
            )
        if found and self._index is not None:
            self._index.set_active(rowid, False)
        return found

    async def share(self, item_id: str, label: str) -> bool:
        """Give a fact (``42``) or an episode (``e42``) the audience ``label``."""
        if not is_label(label):
            raise ValueError(f"{label!r} is not an audience label")
        at = self._now().timestamp()
        episode = parse_episode_id(item_id)
        if episode is not None:
            return await self.episodes.share(episode, label, at=at)
        rowid = fact_rowid(item_id)
        if rowid is None:
            return False
        async with self._write_lock:
            was = await self._store.share(rowid, label, at=at)
        if was is not None and self._index is not None:
            self._index.set_label(rowid, label)
        return was is not None
