"""How :class:`~bot.memory.sqlite.backend.SqliteFtsMemory` reads what it keeps: recall for a
turn, the standing memories of the prompt, and what a person inspects (list, explain, stats,
export).

Recall (:mod:`bot.memory.sqlite.recall`) takes the best FTS5 (BM25) matches of the sanitised
query and, when an embedder is installed, the nearest vectors in the persona's in-memory
matrix; the union is scored by :mod:`bot.memory.sqlite.scoring` (BM25 + cosine + recency +
importance), on one scale with the episodes of the same query, and blended with them
(:mod:`bot.memory.episodes.blend`). Without an embedder the same interface answers by BM25
alone. A turn recalls only what its audience sees (:mod:`bot.turn.audience`): in a shared
room, what was said there and what was made shared; the FTS subquery and the vector mask drop
the others before anything is ranked, so its pool is as full as a direct turn's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.memory.base import MemoryHit, MemoryItem, format_citation
from bot.memory.embedding.models import Embedder, Matrix
from bot.memory.episodes import rerank
from bot.memory.episodes.blend import blend
from bot.memory.episodes.engine import Episodes
from bot.memory.episodes.exchanges import episode_of
from bot.memory.episodes.rows import parse_episode_id
from bot.memory.sqlite import second_search
from bot.memory.sqlite.inspection import fact_rowid
from bot.memory.sqlite.query import MAX_QUERY_CHARS
from bot.memory.sqlite.recall import fact_pool, score_facts, without_short_messages_facts
from bot.memory.sqlite.scoring import W_COSINE, Ranking, recency_weight
from bot.memory.sqlite.store import FtsStore
from bot.memory.sqlite.vector_index import VectorIndex
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["FactReads"]

_FILE_SOURCES = ("MEMORY.md", "USER.md")
_INJECT_LIMIT = 5


class FactReads:
    """The backend's reads (a part of :class:`~bot.memory.sqlite.backend.SqliteFtsMemory`)."""

    # what it uses of the backend
    name: str
    embedder: Embedder | None
    episodes: Episodes
    _store: FtsStore
    _index: VectorIndex | None
    _now: Callable[[], datetime]

    if TYPE_CHECKING:

        @property
        def model_name(self) -> str: ...

    async def inject(self, *, audience: Audience = DIRECT_ROOM) -> str:
        items = await self._store.standing_items(
            _FILE_SOURCES, _INJECT_LIMIT, labels=audience.labels
        )
        if not items:
            return ""
        lines = [f"- {item.text} {format_citation(item)}" for item in items]
        return "What you remember from earlier conversations:\n" + "\n".join(lines)

    async def search(
        self, query: str, *, limit: int = 10, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        """Facts and episodes blended: candidates of both, scored on one scale (BM25 and
        cosine each divided by the best of the whole pool), then the ``limit`` best; and a
        second search with the rarest words of the first's best hits added, fused with it
        (:mod:`bot.memory.sqlite.second_search`)."""
        first = await self._search_once(query, limit, audience)
        if not second_search.SEED_HITS or not first:
            return first
        words = second_search.seed_words(query, first)
        frequencies = await self.episodes.store.doc_frequencies(list(set(words.values())))
        extra = second_search.expansion_words(words, frequencies)
        if not extra:
            return first
        # the words widen the BM25 search; its meaning stays the question's (measured: set B
        # with MiniLM .640 against .629 embedding the widened words), its vector cached
        widened = f"{query} {' '.join(extra)}"
        second = await self._search_once(widened, limit, audience, meaning=query)
        return second_search.fused(first, second, limit)

    async def _search_once(
        self, query: str, limit: int, audience: Audience, *, meaning: str = ""
    ) -> list[MemoryHit]:
        vector: asyncio.Task[Matrix | None] | None = None
        if self.embedder is not None and self._index is not None and query.strip():
            # the model runs in a worker thread while the BM25 statements run in SQLite's
            vector = asyncio.ensure_future(self._embed_query(self.embedder, meaning or query))
        # both on one connection: gathered, their statements queue up back to back instead
        # of each waiting for the event loop between them
        try:
            facts, episodes = await asyncio.gather(
                fact_pool(
                    self._store,
                    query,
                    limit=limit,
                    query_vector=vector,
                    index=self._index,
                    model=self.model_name,
                    labels=audience.labels,
                ),
                self.episodes.pool(
                    query,
                    limit=limit,
                    now=self._now(),
                    labels=audience.labels,
                    query_vector=vector,
                ),
            )
        finally:
            if vector is not None:  # neither pool needed it, or one failed first
                vector.cancel()
        told = [rowid for row in facts if (rowid := row.told_in()) is not None]
        # a fact shared where its message was not heard stays: the message cannot stand for it
        said = await self.episodes.store.words_said(told, labels=audience.labels)
        facts = without_short_messages_facts(facts, said)
        now = self._now()
        # one scale for both kinds: a fact that matches one word of the query is not made
        # the equal of the episode that matches them all just because it is the best fact
        fact_best = min((row.candidate.bm25_raw for row in facts), default=0.0)
        best = min(fact_best, episodes.best_bm25)
        cosine = max(
            max((row.candidate.cosine for row in facts), default=0.0), episodes.best_cosine
        )
        ranking = Ranking(
            best_bm25=best,
            best_cosine=cosine,
            now=now,
            limit=limit,
            meaning=W_COSINE if self.embedder is None else self.embedder.meaning,
            recent=recency_weight(with_model=self.embedder is not None),
        )
        hits = blend(
            score_facts(facts, **ranking),
            episodes.ranked(**ranking),
            limit,
            prefer="episode" if episodes.asks_when else None,
        )
        await self._cite_episodes(hits, audience)
        return hits

    async def reranked(
        self, query: str, hits: list[MemoryHit], *, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        """``hits`` in the order of :mod:`bot.memory.episodes.rerank`'s model."""
        rows = await self.rerank_features(query, hits, audience=audience)
        return hits if rows is None else rerank.reranked(hits, rows)

    async def rerank_features(
        self, query: str, hits: list[MemoryHit], *, audience: Audience = DIRECT_ROOM
    ) -> list[list[float]] | None:
        """What the model reads of each of ``hits`` (None without a model): the cosines of
        each hit's exchange and of the exchanges around it, by their messages' stored
        vectors, against the question's (cached since the search)."""
        if self.embedder is None or not hits or not query.strip():
            return None
        vector = await self._embed_query(self.embedder, query)
        if vector is None:
            return None
        episodes = [episode_of(hit) for hit in hits]
        store = self.episodes.store
        places = await store.surroundings(
            [rowid for rowid in episodes if rowid is not None],
            gap=rerank.AROUND_SECONDS,
            labels=audience.labels,
        )
        said = {rowid for near in places.values() for group in near for rowid in group}
        cosines = await store.cosines(self.model_name, vector, sorted(said))
        # a fact said in no exchange seen here is read by its own vector
        alone = {
            rowid: hit.item.id
            for hit, episode in zip(hits, episodes, strict=True)
            if hit.item.kind == "fact"
            and not rerank.said_in_exchange(episode, places)
            and (rowid := fact_rowid(hit.item.id)) is not None
        }
        own = await self._store.cosines(self.model_name, vector, sorted(alone))
        near = rerank.Surroundings(cosines, places, {alone[r]: c for r, c in own.items()})
        return rerank.features(hits, episodes, near)

    async def _cite_episodes(self, hits: list[MemoryHit], audience: Audience) -> None:
        """Give each recalled fact the text of the episode it was told in, when the turn's
        audience may see it and it is not forgotten (blending did it for the facts whose
        episode was recalled too)."""
        wanted: dict[int, list[MemoryHit]] = {}
        for hit in hits:
            rowid = parse_episode_id(hit.item.episode) if hit.item.episode else None
            if hit.item.kind == "fact" and rowid is not None and not hit.item.context:
                wanted.setdefault(rowid, []).append(hit)
        if not wanted:
            return
        for row in await self.episodes.store.rows_by_id(list(wanted), labels=audience.labels):
            for hit in wanted[row.rowid]:
                hit.item.context = row.text

    @staticmethod
    async def _embed_query(embedder: Embedder, query: str) -> Matrix | None:
        vectors = await embedder.embed_query(query[:MAX_QUERY_CHARS])
        return vectors[0] if len(vectors) else None

    async def list_items(
        self, *, include_inactive: bool = False, limit: int = 100
    ) -> list[MemoryItem]:
        return await self._store.list_items(include_inactive=include_inactive, limit=limit)

    async def explain(self, item_id: str) -> dict[str, Any]:
        """Everything about one item, history included; an empty dict if there is none."""
        episode = parse_episode_id(item_id)
        if episode is not None:
            return await self.episodes.store.explain(episode)
        rowid = fact_rowid(item_id)
        if rowid is None:
            return {}
        details = await self._store.explain(rowid)
        if details and self._index is not None:
            details["has_vector"] = self._index.has(rowid)
        return details

    async def stats(self) -> dict[str, Any]:
        stats = await self._store.stats()
        stats["backend"] = self.name
        stats["embedder"] = self.model_name or None
        stats["vectors_loaded"] = len(self._index) if self._index is not None else 0
        stats["episodes"] = await self.episodes.store.counts()
        sentences = self.episodes.sentences
        stats["sentence_vectors_loaded"] = len(sentences) if sentences is not None else 0
        return stats

    async def export(self) -> list[dict[str, Any]]:
        """Every fact, then every episode (``kind`` tells them apart), every status."""
        facts = [{**fact, "kind": "fact"} for fact in await self._store.export()]
        return facts + await self.episodes.store.export()
