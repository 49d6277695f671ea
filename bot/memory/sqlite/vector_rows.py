"""The statements about stored embeddings, of facts (``vectors``) and of episodes
(``episode_vectors``) and of the sentences of long episodes (``sentence_vectors``): read them
all for the in-memory index, find the rows still without one, store new ones, and score the
rows a search found by their exact vectors.

:class:`VectorRows` adds them to :class:`~bot.memory.sqlite.connection.FtsConnection`, so both
files that hold rows with vectors have them: ``memory.db``
(:class:`~bot.memory.sqlite.store.FtsStore`) and a file of episodes alone
(:class:`~bot.memory.episodes.file.EpisodeFile`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bot.daemon.errors import MemoryStoreError
from bot.memory.sqlite.connection import FtsConnection
from bot.memory.sqlite.vector_index import Matrix, StoredSentences, StoredVectors

__all__ = ["VectorRows"]

#: where the vectors of each kind of row live: table, and its column naming the row
_VECTORS = {"items": ("vectors", "item_id"), "episodes": ("episode_vectors", "episode_id")}
#: rowids asked for in one statement (far under SQLite's limit of bound values)
_ASKED = 500


class VectorRows(FtsConnection):
    """Reading and writing the vectors of ``items`` or ``episodes`` rows."""

    async def vectors(
        self, model: str, dim: int, *, of: str = "items", after: int = 0, limit: int = -1
    ) -> StoredVectors:
        """The stored vectors of ``model`` for the rows of ``of`` (``items`` or ``episodes``),
        in row order from the first row after ``after``, at most ``limit`` of them (-1: all)."""
        table, key = _VECTORS[of]
        rows = await self._all(
            f"SELECT v.{key}, v.vec, o.status = 'active', o.audience FROM {table} v"
            f" JOIN {of} o ON o.id = v.{key} WHERE v.model = ? AND v.dim = ? AND v.{key} > ?"
            f" ORDER BY v.{key} LIMIT ?",
            (model, dim, after, limit),
        )
        return StoredVectors(
            [r[0] for r in rows],
            [r[1] for r in rows],
            [bool(r[2]) for r in rows],
            [str(r[3]) for r in rows],
        )

    async def without_vectors(
        self, model: str, dim: int, *, of: str = "items"
    ) -> list[tuple[int, str, str]]:
        """(rowid, text, audience) of the active rows of ``of`` that have no vector of
        ``model``."""
        table, key = _VECTORS[of]
        rows = await self._all(
            f"SELECT id, text, audience FROM {of} WHERE status = 'active' AND id NOT IN"
            f" (SELECT {key} FROM {table} WHERE model = ? AND dim = ?) ORDER BY id",
            (model, dim),
        )
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    async def put_vectors(
        self, rowids: Sequence[int], vectors: Any, model: str, *, of: str = "items"
    ) -> None:
        table, key = _VECTORS[of]
        async with self._tx() as db:
            await db.executemany(
                f"INSERT INTO {table} ({key}, model, dim, vec) VALUES (?, ?, ?, ?)"
                f" ON CONFLICT ({key}) DO UPDATE SET model = excluded.model,"
                " dim = excluded.dim, vec = excluded.vec",
                [
                    (rowid, model, int(vector.shape[0]), vector.astype("<f4").tobytes())
                    for rowid, vector in zip(rowids, vectors, strict=True)
                ],
            )

    async def cosines(
        self, model: str, query: Matrix, rowids: Sequence[int], *, of: str = "items"
    ) -> dict[int, float]:
        """The exact cosine of ``query`` (a normalised row) with the stored vector of ``model``
        of each of ``rowids`` that has one (the index only finds them: its rows are coarse)."""
        table, key = _VECTORS[of]
        return dict(await self._scored(table, key, model, query, rowids))

    async def _scored(
        self, table: str, key: str, model: str, query: Matrix, keys: Sequence[int]
    ) -> list[tuple[int, float]]:
        """(key, exact cosine of ``query``) of every vector of ``model`` in ``table`` whose
        ``key`` column is one of ``keys``."""
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        scored: list[tuple[int, float]] = []
        wanted = list(dict.fromkeys(keys))
        for start in range(0, len(wanted), _ASKED):
            asked = wanted[start : start + _ASKED]
            rows = await self._all(
                f"SELECT {key}, vec FROM {table} WHERE model = ? AND dim = ?"
                f" AND {key} IN ({', '.join('?' * len(asked))})",
                (model, len(q), *asked),
            )
            if rows:
                matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4")
                scores = (matrix.reshape(len(rows), len(q)) @ q).tolist()
                scored.extend(zip((int(r[0]) for r in rows), scores, strict=True))
        return scored

    async def sentence_vectors(
        self, model: str, dim: int, *, after: int = 0, limit: int = -1
    ) -> StoredSentences:
        """The stored sentence vectors of ``model``, in order from the first after ``after``,
        at most ``limit`` of them (-1: all), each with its episode, its episode's status and
        audience."""
        rows = await self._all(
            "SELECT s.id, s.episode_id, s.vec, e.status = 'active', e.audience"
            " FROM sentence_vectors s JOIN episodes e ON e.id = s.episode_id"
            " WHERE s.model = ? AND s.dim = ? AND s.id > ? ORDER BY s.id LIMIT ?",
            (model, dim, after, limit),
        )
        return StoredSentences(
            [int(r[0]) for r in rows],
            [int(r[1]) for r in rows],
            [r[2] for r in rows],
            [bool(r[3]) for r in rows],
            [str(r[4]) for r in rows],
        )

    async def put_sentence_vectors(
        self, episodes: Sequence[int], vectors: Any, model: str
    ) -> list[int]:
        """Store one vector per sentence, each of the episode beside it; their new ids."""
        ids: list[int] = []
        async with self._tx() as db:
            for episode, vector in zip(episodes, vectors, strict=True):
                cursor = await db.execute(
                    "INSERT INTO sentence_vectors (episode_id, model, dim, vec)"
                    " VALUES (?, ?, ?, ?) RETURNING id",
                    (episode, model, int(vector.shape[0]), vector.astype("<f4").tobytes()),
                )
                row = await cursor.fetchone()
                await cursor.close()
                if row is None:
                    raise MemoryStoreError(f"{self.path}: a sentence vector was not stored")
                ids.append(int(row[0]))
        return ids

    async def sentence_cosines(
        self, model: str, query: Matrix, episodes: Sequence[int]
    ) -> dict[int, float]:
        """For each of ``episodes`` with sentence vectors of ``model``, the exact cosine of
        ``query`` with its closest sentence."""
        best: dict[int, float] = {}
        for episode, score in await self._scored(
            "sentence_vectors", "episode_id", model, query, episodes
        ):
            best[episode] = max(score, best.get(episode, score))
        return best
