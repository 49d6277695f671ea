"""What the backends that keep episodes (``sqlite-fts5``, ``holographic``) recall alike."""

from __future__ import annotations

from bot.memory.base import MemoryBackend, MemoryHit
from bot.memory.episodes.engine import Episodes
from bot.memory.episodes.exchanges import one_per_exchange
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["EpisodeBackend"]


class EpisodeBackend(MemoryBackend):
    """A backend whose messages are episodes (:attr:`episodes`): the prompt's recall is its
    ``search``, a message and the answer to it one hit, put in order again where the backend
    can (:meth:`reranked`)."""

    episodes: Episodes

    @property
    def rerank_pool(self) -> int:
        """How many hits :meth:`reranked` is given to put in order (0: it is not asked)."""
        return 0

    async def prefetch(
        self, query: str, *, limit: int = 8, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        """:meth:`search`, one hit an exchange (:mod:`bot.memory.episodes.exchanges`), its
        ``limit`` best after :meth:`reranked`."""
        hits = await self.candidates(query, limit=limit, audience=audience)
        if self.rerank_pool:
            hits = await self.reranked(query, hits, audience=audience)
        return hits[:limit]

    async def candidates(
        self, query: str, *, limit: int, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        """The hits :meth:`prefetch` chooses from: :meth:`search`'s best (``limit``, or
        :attr:`rerank_pool` where more are put in order), one an exchange."""
        hits = await self.search(query, limit=max(limit, self.rerank_pool), audience=audience)
        return await one_per_exchange(hits, self.episodes.store)

    async def reranked(
        self, query: str, hits: list[MemoryHit], *, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        """``hits`` in the order the backend trusts most; as they are by default."""
        return hits
