"""The episodes' vector statements: each message's own vector and its sentences' vectors
(:mod:`bot.memory.episodes.sentence_vectors`), read and written through the connection's
:class:`~bot.memory.sqlite.vector_rows.VectorRows`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.memory.episodes.sentence_vectors import MAX_SENTENCES
from bot.memory.sqlite.vector_index import Matrix, StoredVectors
from bot.memory.sqlite.vector_rows import VectorRows

__all__ = ["EpisodeVectors"]

#: an episode (its vector's row ``v``) that its sentences find: it has from one to
#: MAX_SENTENCES - 1 of them (one with MAX_SENTENCES may say more than they hold)
_FOUND_BY_SENTENCES = (
    "(SELECT COUNT(*) FROM sentence_vectors s WHERE s.episode_id = v.episode_id"
    f" AND s.model = v.model) BETWEEN 1 AND {MAX_SENTENCES - 1}"
)
#: episodes asked for in one statement (far under SQLite's limit of bound values)
_ASKED = 500


class EpisodeVectors:
    """The vector statements of :class:`~bot.memory.episodes.store.EpisodeStore`."""

    _conn: VectorRows

    async def vectors(
        self, model: str, dim: int, *, after: int = 0, limit: int = -1
    ) -> StoredVectors:
        """What the episode index holds: the vectors of the episodes that their sentences do
        not find (none of ``model``, or as many as :data:`MAX_SENTENCES`, so perhaps not all
        of them); a long message's own vector, in the store, still scores it."""
        return await self._conn.vectors(
            model, dim, of="episodes", after=after, limit=limit, unless=_FOUND_BY_SENTENCES
        )

    async def without_vectors(
        self, model: str, dim: int, *, through: int | None = None
    ) -> list[tuple[int, str, str]]:
        return await self._conn.without_vectors(model, dim, of="episodes", through=through)

    async def standing(self, rowids: Sequence[int]) -> dict[int, tuple[bool, str]]:
        return await self._conn.standing(rowids, of="episodes")

    async def put_vectors(self, rowids: Sequence[int], vectors: Any, model: str) -> None:
        await self._conn.put_vectors(rowids, vectors, model, of="episodes")

    async def cosines(self, model: str, query: Matrix, rowids: Sequence[int]) -> dict[int, float]:
        return await self._conn.cosines(model, query, rowids, of="episodes")

    async def sentence_vectors(
        self, model: str, dim: int, *, after: int = 0, limit: int = -1
    ) -> StoredVectors:
        return await self._conn.vectors(model, dim, of="sentences", after=after, limit=limit)

    async def put_sentence_vectors(
        self,
        episodes: Sequence[int],
        vectors: Any,
        model: str,
        *,
        filled_through: int | None = None,
    ) -> list[int]:
        return await self._conn.put_sentence_vectors(
            episodes, vectors, model, filled_through=filled_through
        )

    async def sentences_filled_through(self, model: str) -> int:
        """The episode up to which every one has its sentence vectors of ``model`` (0: none)."""
        rows = await self._conn._all("SELECT through FROM sentence_fill WHERE model = ?", (model,))
        return int(rows[0][0]) if rows else 0

    async def unsplit_episodes(
        self, model: str, *, after: int, through: int, limit: int
    ) -> list[tuple[int, str]]:
        """(rowid, text) of the first ``limit`` active episodes after ``after`` and up to
        ``through`` that have no sentence vector of ``model``, in rowid order."""
        rows = await self._conn._all(
            "SELECT id, text FROM episodes e WHERE id > ? AND id <= ? AND status = 'active'"
            " AND NOT EXISTS (SELECT 1 FROM sentence_vectors s WHERE s.episode_id = e.id"
            " AND s.model = ?) ORDER BY id LIMIT ?",
            (after, through, model, limit),
        )
        return [(int(r[0]), str(r[1])) for r in rows]

    async def last_episode(self) -> int:
        """The newest episode's rowid (0: none yet)."""
        return await self._conn.newest(of="episodes")

    async def sentence_cosines(
        self, model: str, query: Matrix, episodes: Sequence[int]
    ) -> dict[int, float]:
        """Each of ``episodes``' closest sentence's exact cosine with ``query``."""
        return await self._conn.cosines(model, query, episodes, of="sentences")

    async def episodes_of_sentences(self, sentences: Sequence[int]) -> dict[int, int]:
        """The episode of each of the ``sentences`` rows."""
        if not sentences:
            return {}
        marks = ",".join("?" * len(sentences))
        rows = await self._conn._all(
            f"SELECT id, episode_id FROM sentence_vectors WHERE id IN ({marks})", list(sentences)
        )
        return {int(row[0]): int(row[1]) for row in rows}

    async def sentences_of_episodes(self, episodes: Sequence[int], model: str) -> dict[int, int]:
        """The ``sentences`` rows of ``model`` of each of ``episodes``: row -> its episode."""
        found: dict[int, int] = {}
        for start in range(0, len(episodes), _ASKED):
            asked = list(episodes[start : start + _ASKED])
            marks = ",".join("?" * len(asked))
            rows = await self._conn._all(
                "SELECT id, episode_id FROM sentence_vectors"
                f" WHERE model = ? AND episode_id IN ({marks})",
                [model, *asked],
            )
            found.update((int(row[0]), int(row[1])) for row in rows)
        return found

    async def sentences_of_episode(self, episode: int) -> list[int]:
        """The ``sentences`` rows of ``episode``, of every model."""
        rows = await self._conn._all(
            "SELECT id FROM sentence_vectors WHERE episode_id = ?", (episode,)
        )
        return [int(row[0]) for row in rows]
