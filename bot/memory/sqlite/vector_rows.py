"""The statements about stored embeddings, of facts (``vectors``), of episodes
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
from typing import Any, NamedTuple

import numpy as np

from bot.daemon.errors import MemoryStoreError
from bot.memory.sqlite.connection import FtsConnection
from bot.memory.sqlite.vector_index import Matrix, StoredVectors

__all__ = ["VectorRows"]


class _Kind(NamedTuple):
    """Where the vectors of one kind of row live."""

    table: str
    #: the column naming a vector's row in the index
    row: str
    #: the column naming what it is the vector of, and the table that holds those
    of: str
    owners: str


_VECTORS = {
    "items": _Kind("vectors", "item_id", "item_id", "items"),
    "episodes": _Kind("episode_vectors", "episode_id", "episode_id", "episodes"),
    # a message's sentences: rows of their own, each naming its episode
    "sentences": _Kind("sentence_vectors", "id", "episode_id", "episodes"),
}
#: rowids asked for in one statement (far under SQLite's limit of bound values)
_ASKED = 500
#: SQLite's largest rowid: "every row" to a bound on rowids
_LAST_ROWID = 2**63 - 1


class VectorRows(FtsConnection):
    """Reading and writing the vectors of ``items``, ``episodes`` or episodes' ``sentences``."""

    async def vectors(
        self,
        model: str,
        dim: int,
        *,
        of: str = "items",
        after: int = 0,
        limit: int = -1,
        unless: str = "",
    ) -> StoredVectors:
        """The stored vectors of ``model`` of one kind (``items``, ``episodes`` or
        ``sentences``), in row order from the first row after ``after``, at most ``limit`` of
        them (-1: all), each with the status and audience of what it is the vector of; not
        those ``unless`` (SQL over the vector's row ``v``) holds for."""
        kind = _VECTORS[of]
        only = f" AND NOT ({unless})" if unless else ""
        rows = await self._all(
            f"SELECT v.{kind.row}, v.vec, o.status = 'active', o.audience FROM {kind.table} v"
            f" JOIN {kind.owners} o ON o.id = v.{kind.of}"
            f" WHERE v.model = ? AND v.dim = ? AND v.{kind.row} > ?{only}"
            f" ORDER BY v.{kind.row} LIMIT ?",
            (model, dim, after, limit),
        )
        return StoredVectors(
            [r[0] for r in rows],
            [r[1] for r in rows],
            [bool(r[2]) for r in rows],
            [str(r[3]) for r in rows],
        )

    async def newest(self, *, of: str = "items") -> int:
        """The newest row's id of ``of`` (0: none yet)."""
        rows = await self._all(f"SELECT COALESCE(MAX(id), 0) FROM {of}")
        return int(rows[0][0])

    async def standing(
        self, rowids: Sequence[int], *, of: str = "items"
    ) -> dict[int, tuple[bool, str]]:
        """Whether each of ``rowids`` of ``of`` is active now, and its audience; a row that is
        gone is left out."""
        found: dict[int, tuple[bool, str]] = {}
        for start in range(0, len(rowids), _ASKED):
            asked = list(rowids[start : start + _ASKED])
            marks = ", ".join("?" * len(asked))
            rows = await self._all(
                f"SELECT id, status = 'active', audience FROM {of} WHERE id IN ({marks})", asked
            )
            found.update((int(r[0]), (bool(r[1]), str(r[2]))) for r in rows)
        return found

    async def without_vectors(
        self, model: str, dim: int, *, of: str = "items", through: int | None = None
    ) -> list[tuple[int, str, str]]:
        """(rowid, text, audience) of the active rows of ``of`` that have no vector of
        ``model``; with ``through``, only those of rowids up to it."""
        kind = _VECTORS[of]
        rows = await self._all(
            f"SELECT id, text, audience FROM {of} WHERE status = 'active' AND id <= ?"
            f" AND id NOT IN (SELECT {kind.of} FROM {kind.table} WHERE model = ? AND dim = ?)"
            " ORDER BY id",
            (_LAST_ROWID if through is None else through, model, dim),
        )
        return [(int(r[0]), str(r[1]), str(r[2])) for r in rows]

    async def put_vectors(
        self, rowids: Sequence[int], vectors: Any, model: str, *, of: str = "items"
    ) -> None:
        kind = _VECTORS[of]
        async with self._tx() as db:
            await db.executemany(
                f"INSERT INTO {kind.table} ({kind.of}, model, dim, vec) VALUES (?, ?, ?, ?)"
                f" ON CONFLICT ({kind.of}) DO UPDATE SET model = excluded.model,"
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
        of each of ``rowids`` that has one (the index only finds them: its rows are coarse);
        of ``sentences``, each episode's closest sentence's."""
        kind = _VECTORS[of]
        q = np.asarray(query, dtype=np.float32).reshape(-1)
        best: dict[int, float] = {}
        wanted = list(dict.fromkeys(rowids))
        for start in range(0, len(wanted), _ASKED):
            asked = wanted[start : start + _ASKED]
            rows = await self._all(
                f"SELECT {kind.of}, vec FROM {kind.table} WHERE model = ? AND dim = ?"
                f" AND {kind.of} IN ({', '.join('?' * len(asked))})",
                (model, len(q), *asked),
            )
            if rows:
                matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype="<f4")
                scores = (matrix.reshape(len(rows), len(q)) @ q).tolist()
                for (rowid, _), score in zip(rows, scores, strict=True):
                    best[int(rowid)] = max(score, best.get(int(rowid), score))
        return best

    async def put_sentence_vectors(
        self,
        episodes: Sequence[int],
        vectors: Any,
        model: str,
        *,
        filled_through: int | None = None,
    ) -> list[int]:
        """Store one vector per sentence, each of the episode beside it; their new ids, in
        order. ``filled_through``: every episode up to it has its sentence vectors of
        ``model`` now (noted in the same transaction)."""
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
            if filled_through is not None:
                await db.execute(
                    "INSERT INTO sentence_fill (model, through) VALUES (?, ?) ON CONFLICT (model)"
                    " DO UPDATE SET through = MAX(through, excluded.through)",
                    (model, filled_through),
                )
        return ids
