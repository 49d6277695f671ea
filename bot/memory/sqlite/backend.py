"""The default memory backend: one SQLite file per persona, hybrid recall over FTS5.

:class:`SqliteFtsMemory` keeps facts (``items``) and episodes (every on-record message,
:mod:`bot.memory.episodes`) in ``persona_dir/memory.db``. This module holds its lifecycle:
opening the store, loading the vectors of the facts and the episodes into their in-memory
indexes, the one background fill that gives what was said before the open the vectors it
lacks, and the tools the model is given (:mod:`bot.memory.memory_tools`). The class is built
from parts, a module each: writing facts (:mod:`bot.memory.sqlite.backend_writes`: admission,
duplicates and reinforcement, a turn's facts and a memory file's lines), forgetting and
sharing (:mod:`bot.memory.sqlite.backend_changes`), and reading
(:mod:`bot.memory.sqlite.backend_reads`: recall blended with the episodes, the prompt's
standing memories, list, explain, stats, export). Nothing is ever deleted: forgetting and
superseding only change a status, and the item stays in the file, explainable.

A corrupt or locked ``memory.db`` raises :class:`~bot.daemon.errors.MemoryStoreError` naming the
file; the file is left exactly as it was. The SQL lives in :mod:`bot.memory.sqlite.store`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

import structlog

from bot.memory.embedding.models import Embedder
from bot.memory.episodes import rerank
from bot.memory.episodes.backend import EpisodeBackend
from bot.memory.episodes.engine import Episodes
from bot.memory.episodes.store import EpisodeStore
from bot.memory.memory_tools import memory_tools
from bot.memory.sqlite.admission import FORCED_CONFIDENCE, MAX_ITEM_CHARS
from bot.memory.sqlite.backend_changes import ItemChanges
from bot.memory.sqlite.backend_reads import FactReads
from bot.memory.sqlite.backend_writes import DUPLICATE_COSINE, FactWrites
from bot.memory.sqlite.index_loading import embed_missing, stored_index
from bot.memory.sqlite.recall import CANDIDATE_MARGIN
from bot.memory.sqlite.store import FtsStore
from bot.memory.sqlite.vector_index import VectorIndex
from bot.tools.registry import Tool
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = [
    "CANDIDATE_MARGIN",
    "DUPLICATE_COSINE",
    "FORCED_CONFIDENCE",
    "MAX_ITEM_CHARS",
    "Filled",
    "SqliteFtsMemory",
]

log = structlog.get_logger(__name__)


class Filled(NamedTuple):
    """What the background fill embedded: facts, messages, long messages' sentences."""

    facts: int
    episodes: int
    sentences: int


class SqliteFtsMemory(FactWrites, ItemChanges, FactReads, EpisodeBackend):
    """``persona_dir/memory.db``: FTS5 + optional embeddings. Use ``async with``."""

    name = "sqlite-fts5"

    def __init__(
        self,
        persona_dir: Path,
        *,
        embedder: Embedder | None = None,
        now: Callable[[], datetime] | None = None,
        busy_timeout: float = 5.0,
    ) -> None:
        super().__init__(persona_dir)
        self.path = persona_dir / "memory.db"
        self.embedder = embedder
        self._now = now or (lambda: datetime.now(UTC))
        self._store = FtsStore(self.path, busy_timeout=busy_timeout)
        self._index: VectorIndex | None = None
        #: the background embedding of what was said before the open and has no vector of
        #: the model: facts, messages, long messages' sentences (:meth:`_fill`)
        self.filling: asyncio.Task[Filled] | None = None
        #: the last fact kept before the open: the facts the fill goes through
        self._facts_through = 0
        self._write_lock = asyncio.Lock()
        self.episodes = Episodes(EpisodeStore(self._store), embedder, self.model_name)

    # -- lifecycle ---------------------------------------------------------------------------

    async def open(self) -> None:
        await self._store.open()
        try:
            await self.episodes.store.settle_old_words()
            await self.episodes.store.renew_addressed()
        except BaseException:
            await self._store.close()
            raise
        if self.embedder is not None:
            try:
                await self._load_vectors(self.embedder)
                await self.episodes.load_vectors()
                self.filling = asyncio.create_task(self._fill(), name="memory-vector-fill")
            except BaseException:
                await self.episodes.close()
                await self._store.close()
                raise

    async def close(self) -> None:
        if self.filling is not None:
            self.filling.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.filling
        await self.episodes.close()
        await self._store.close()
        self._index = None

    @property
    def searches_meaning(self) -> bool:
        return self.embedder is not None

    @property
    def rerank_pool(self) -> int:
        """With a model, the search's best :data:`~bot.memory.episodes.rerank.POOL` hits are
        put in order again (:meth:`reranked`); by BM25 alone, none."""
        return rerank.POOL if self.embedder is not None else 0

    @property
    def model_name(self) -> str:
        if self.embedder is None:
            return ""
        return str(getattr(self.embedder, "name", type(self.embedder).__name__))

    async def _load_vectors(self, embedder: Embedder) -> None:
        """Read every stored vector of the facts into one matrix; those without one are
        :meth:`_fill`'s."""
        self._index = await stored_index(embedder.dim, self._store, self.model_name)
        self._facts_through = await self._store.newest()
        log.info("memory.vectors_loaded", vectors=len(self._index))

    async def _fill(self) -> Filled:
        """In the background, once open: embed what was said before the open and has no
        vector of the model (all of it after a change of model, which must not hold the
        first answer for minutes): the facts, then the messages and their sentences. Until
        then they are found by their words. A failure is logged (the next open resumes where
        this one stopped), never raised into the daemon."""
        if self.embedder is None or self._index is None:
            return Filled(0, 0, 0)
        try:
            facts = await embed_missing(
                self._index,
                self.embedder,
                self._store,
                self.model_name,
                through=self._facts_through,
            )
            episodes, sentences = await self.episodes.fill()
        except Exception as exc:  # a background task: nobody else would hear of it
            log.warning("memory.vector_fill_failed", error=str(exc))
            return Filled(0, 0, 0)
        filled = Filled(facts, episodes, sentences)
        if any(filled):
            log.info("memory.vectors_filled", **filled._asdict())
        return filled

    # -- the model's tools -------------------------------------------------------------------

    def tools(self, *, audience: Audience = DIRECT_ROOM) -> list[Tool]:
        """``memory_search``, ``memory_add`` and ``memory_forget`` for the model."""
        return memory_tools(
            self,
            search_description=(
                "Search your long-term memory of this user (full text, accents ignored, plus "
                "meaning when embeddings are installed). Returns memories best first, each with "
                "its [category · source · confidence] citation and id."
            ),
            source=lambda: f"assistant {self._now():%Y-%m-%d}",
            audience=audience,
        )
