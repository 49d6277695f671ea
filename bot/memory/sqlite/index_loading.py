"""A :class:`~bot.memory.sqlite.vector_index.VectorIndex` loaded from the store, and the rows
without a vector of the model embedded into it.

Facts (:class:`~bot.memory.sqlite.backend.SqliteFtsMemory`), episodes
(:class:`~bot.memory.episodes.engine.Episodes`) and long episodes' sentences
(:mod:`bot.memory.episodes.sentence_vectors`) load their indexes here when the store opens, a
few thousand stored rows at a time; the first two fill in here, in the background, the rows
said before the open that have no vector of the model in use.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from bot.memory.embedding.models import Matrix
from bot.memory.heap import give_back_freed_memory
from bot.memory.sqlite.vector_index import StoredVectors, VectorIndex

__all__ = ["LOAD_ROWS", "VectorStore", "embed_missing", "read_index", "stored_index"]

LOAD_ROWS = 4096
"""Stored vectors read at a time when an index is loaded: the rows of one read are copied
into the index and dropped before the next, so loading 100,000 vectors never holds them twice
(read all at once, their blobs and a joined copy left about 130 MB of heap resident)."""


class _Embeds(Protocol):
    dim: int

    async def embed(self, texts: Sequence[str]) -> Matrix: ...


class VectorStore(Protocol):
    """Where one kind of row keeps its vectors (facts and episodes alike)."""

    async def vectors(
        self, model: str, dim: int, *, after: int = 0, limit: int = -1
    ) -> StoredVectors: ...

    async def without_vectors(
        self, model: str, dim: int, *, through: int | None = None
    ) -> list[tuple[int, str, str]]: ...

    async def standing(self, rowids: Sequence[int]) -> dict[int, tuple[bool, str]]: ...

    async def put_vectors(self, rowids: Sequence[int], vectors: Any, model: str) -> None: ...


async def read_index(dim: int, read: Callable[[int, int], Awaitable[StoredVectors]]) -> VectorIndex:
    """An index of the stored vectors ``read(after, limit)`` gives, :data:`LOAD_ROWS` at a
    time, in rowid order."""
    index = VectorIndex(dim)
    after = 0
    while (stored := await read(after, LOAD_ROWS)).rowids:
        index.extend_stored(stored)
        after = stored.rowids[-1]
    give_back_freed_memory()  # the reads' blobs: heap the index no longer needs
    return index


async def stored_index(dim: int, store: VectorStore, model: str) -> VectorIndex:
    """Every stored vector of ``model`` in one index."""

    async def read(after: int, limit: int) -> StoredVectors:
        return await store.vectors(model, dim, after=after, limit=limit)

    return await read_index(dim, read)


async def embed_missing(
    index: VectorIndex,
    embedder: _Embeds,
    store: VectorStore,
    model: str,
    *,
    through: int | None = None,
) -> int:
    """Embed the active rows that have no vector of ``model`` (256 at a time), store the
    vectors and add them to ``index`` as the rows stand once each batch is stored (a row
    forgotten or shared while the model ran is indexed so); returns how many there were.
    ``through``: only rows up to it (those said later get their vectors as they are said)."""
    missing = await store.without_vectors(model, embedder.dim, through=through)
    for start in range(0, len(missing), 256):
        batch = missing[start : start + 256]
        vectors = await embedder.embed([text for _, text, _ in batch])
        await store.put_vectors([rowid for rowid, _, _ in batch], vectors, model)
        standing = await store.standing([rowid for rowid, _, _ in batch])
        for (rowid, _, label), vector in zip(batch, vectors, strict=True):
            active, label = standing.get(rowid, (False, label))
            index.add(rowid, vector, active=active, label=label)
    return len(missing)
