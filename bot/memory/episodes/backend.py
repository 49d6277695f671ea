"""What the backends that keep episodes (``sqlite-fts5``, ``holographic``) recall alike."""

from __future__ import annotations

from bot.memory.base import MemoryBackend, MemoryHit
from bot.memory.episodes.engine import Episodes
from bot.memory.episodes.exchanges import one_per_exchange
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["EpisodeBackend"]


class EpisodeBackend(MemoryBackend):
    """A backend whose messages are episodes (:attr:`episodes`): the prompt's recall is its
    ``search``, a message and the answer to it one hit."""

    episodes: Episodes

    async def prefetch(
        self, query: str, *, limit: int = 8, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        """:meth:`search`, one hit an exchange (:mod:`bot.memory.episodes.exchanges`)."""
        hits = await self.search(query, limit=limit, audience=audience)
        return await one_per_exchange(hits, self.episodes.store)
