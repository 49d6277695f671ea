"""How :class:`~bot.memory.holographic.backend.HolographicMemory` reads what it keeps: recall
over the facts' traces, a search that blends them with the episodes, the prompt's standing
facts, and what a person inspects (list, explain, stats, export).

Recall (:mod:`bot.memory.holographic.recall`) answers by structure first (``hrr``), then by
word overlap (``lexical``), among the facts the turn's audience sees; the episodes answer by
BM25 alone, with no model's cosine, and :func:`~bot.memory.episodes.blend.blend` ranks the
two on their own scores. A fact's id is looked up before an episode's (``e42``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.memory.base import Category, MemoryHit, MemoryItem, format_citation, visible_in
from bot.memory.episodes.blend import blend
from bot.memory.episodes.engine import Episodes
from bot.memory.episodes.rows import parse_episode_id
from bot.memory.holographic.recall import ActiveFacts, Recalled
from bot.memory.holographic.store import HolographicStore
from bot.memory.reinforcement import once_each
from bot.memory.sqlite.scoring import recency_weight
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["HolographicReads"]


class HolographicReads:
    """The backend's reads (a part of
    :class:`~bot.memory.holographic.backend.HolographicMemory`)."""

    # what it uses of the backend
    name: str
    path: Path
    dim: int
    episodes: Episodes
    episodes_path: Path
    _store: HolographicStore
    _facts: ActiveFacts
    _now: Callable[[], datetime]

    if TYPE_CHECKING:

        @property
        def symbols(self) -> int: ...

    # -- recall ----------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        limit: int = 8,
        category: Category | None = None,
        audience: Audience = DIRECT_ROOM,
    ) -> list[Recalled]:
        """Structural matches first (``hrr``), then explicitly lexical ones (``lexical``)."""
        return self._facts.recall(query, limit=limit, category=category, audience=audience)

    async def search(
        self, query: str, *, limit: int = 10, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        """Facts (by structure, then by word overlap) and episodes blended."""
        hits, _ = await self._recall_both(query, limit, audience)
        return hits

    async def _recall_both(
        self, query: str, limit: int, audience: Audience
    ) -> tuple[list[MemoryHit], dict[str, Recalled]]:
        """The ``limit`` best of facts and episodes, and the facts' recall by id (for the
        answers their asked role unbound to)."""
        facts = self.recall(query, limit=limit, audience=audience)
        now = self._now()
        episodes = await self.episodes.pool(query, limit=limit, now=now, labels=audience.labels)
        ranked = episodes.ranked(  # by BM25 alone: no model's cosine
            best_bm25=episodes.best_bm25,
            best_cosine=0.0,
            now=now,
            limit=limit,
            recent=recency_weight(with_model=False),
        )
        hits = blend(
            [recalled.hit for recalled in facts],
            ranked,
            limit,
            prefer="episode" if episodes.asks_when else None,
        )
        return hits, {recalled.hit.item.id: recalled for recalled in facts}

    async def inject(self, *, audience: Audience = DIRECT_ROOM) -> str:
        """The facts that keep coming back (reinforced at least once), with citations; a text
        kept by more than one audience (:mod:`bot.memory.reinforcement`) once."""
        frequent = sorted(
            (
                item
                for item in self._facts.items.values()
                if item.reinforced > 0 and visible_in(item, audience)
            ),
            key=lambda item: (item.reinforced, item.confidence, item.created_at),
            reverse=True,
        )
        lines = [
            f"- {item.text} {format_citation(item)}"
            for item in once_each(frequent, lambda item: item.text)[:6]
        ]
        if not lines:
            return ""
        return "Things you have been told more than once:\n" + "\n".join(lines)

    # -- inspection ------------------------------------------------------------------------

    async def list_items(
        self, *, include_inactive: bool = False, limit: int = 100
    ) -> list[MemoryItem]:
        return await self._store.items(include_inactive=include_inactive, limit=limit)

    async def explain(self, item_id: str) -> dict[str, Any]:
        detail = await self._store.detail(item_id)
        if detail is None:
            episode = parse_episode_id(item_id)
            return {} if episode is None else await self.episodes.store.explain(episode)
        item, structure, updated_at, history = detail
        decoded = {
            role: [word for word, _ in self._facts.answer(item_id, role)]
            for role in structure
            if role != "keywords" and item_id in self._facts.index
        }
        return {
            **item.record(),
            "updated_at": updated_at,
            "citation": format_citation(item),
            "structure": structure,
            "decoded": decoded,
            "history": history,
        }

    async def stats(self) -> dict[str, Any]:
        by_status, by_category = await self._store.counts()
        structured = sum(1 for s in self._facts.structures.values() if s.get("relation"))
        return {
            "backend": self.name,
            "path": str(self.path),
            "dimension": self.dim,
            "symbols": self.symbols,
            "traces": len(self._facts.index),
            "structured": structured,
            "by_status": by_status,
            "by_category": by_category,
            "episodes": await self.episodes.store.counts(),
            "episodes_path": str(self.episodes_path),
        }

    async def export(self) -> list[dict[str, Any]]:
        """Every fact, then every episode (``kind`` tells them apart), every status."""
        return await self._store.export() + await self.episodes.store.export()
