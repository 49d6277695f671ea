"""The sentences of a long message, each with a vector of its own.

One vector for a message of small talk with one sentence that matters ("Busy week. The
kids were ill, my mother visited, and the rent goes up in March, which we can't afford.
Anyway, how are you?") is the mean of all of it, and a question about the rent is far from it.
Each sentence of a message of two or more (of :data:`MIN_WORDS` words or more) gets its own
vector beside the message's: :class:`SentenceIndex` finds the episodes whose sentences are
near a query, and an episode's cosine is the higher of its own and its model's
:attr:`~bot.memory.embedding.models.Embedder.sentence_weight` times its closest sentence's,
exactly, from the stored vectors
(:meth:`~bot.memory.episodes.store.EpisodeStore.sentence_cosines`).

Measured with ``bench/recall_quality.py`` (recall@5, write path with MiniLM and references;
tuning / held-out in brackets): set A 0.921 before and after (its facts are told in short
messages of their own); set B 0.640 (0.635 / 0.646) before, 0.665 (0.662 / 0.669) after;
set C 0.736 (0.717 / 0.755) before, 0.742 (0.724 / 0.761) after. Set B by the weight of a
sentence: 0.7 gives 0.638, 0.75 0.654, 0.8 0.665, 0.85 0.662, 0.9 0.652, 1.0 0.631, so
MiniLM's is 0.8; e5's, measured on all four sets, is 0.9 (write path, e5, against 0.8: set B
0.610 -> 0.625, set D 0.658 -> 0.661, set C 0.661 -> 0.666, set A 0.915 either way). Only the
user's messages split: set B 0.646 (0.646 / 0.646): the persona's answers are asked about
too ("the place you suggested").

What the index holds is only where to look: a search's episodes come from the store, which
gives only the active episodes its audience may see, so a sentence of a forgotten or another
room's episode never brings it back. Its rows follow their episode's status and audience
(:meth:`~bot.memory.episodes.engine.Episodes.set_active`, ``set_label``), so a search for a
room does not spend its places on what that room cannot see.

A message with sentence vectors has no row of its own in the index of messages: its
sentences find it, and its own vector, in the store, still scores it (one of more sentences
than :data:`MAX_SENTENCES` keeps its row, so what it says past them is found by meaning; one
given its sentences by the background fill keeps its row until the next start; 100,000
messages like set B's: 10 MB less resident; recall@5 set B 0.667 (0.673 / 0.662) against
0.665 (0.662 / 0.669), sets A and C the same). A question that names a time weighs the long
messages said then by their closest sentence (:meth:`SentenceIndex.cosine_of_episodes`).

Sentence vectors are made when a message is recorded; the messages said before ``memory.db``
v8, or while another model (or none) was configured, are given theirs in the background after
the file opens (:mod:`bot.memory.episodes.sentence_fill`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from bot.memory.sentences import split_sentences
from bot.memory.sqlite.index_loading import read_index
from bot.memory.sqlite.vector_index import Matrix, StoredVectors, VectorIndex
from bot.turn.audience import DIRECT

__all__ = ["MAX_SENTENCES", "MIN_WORDS", "SentenceIndex", "sentences_of"]

#: a sentence of fewer words than this ("Anyway.", "Poor thing!") gets no vector of its own
MIN_WORDS = 3
#: at most this many sentences of one message get a vector: set B's longest message has six,
#: and 3, 6 and 16 gave the same figures; this bounds what a long answer of the persona's
#: costs (each vector is about 265 bytes resident)
MAX_SENTENCES = 8


def sentences_of(text: str) -> list[str]:
    """The sentences of ``text`` that get a vector of their own: none when it holds fewer
    than two of :data:`MIN_WORDS` words or more."""
    kept = [part for part in split_sentences(text) if len(part.split()) >= MIN_WORDS]
    return kept[:MAX_SENTENCES] if len(kept) >= 2 else []


class _SentenceStore(Protocol):
    async def sentence_vectors(
        self, model: str, dim: int, *, after: int = 0, limit: int = -1
    ) -> StoredVectors: ...

    async def episodes_of_sentences(self, sentences: Sequence[int]) -> dict[int, int]: ...

    async def sentences_of_episode(self, episode: int) -> list[int]: ...

    async def sentences_of_episodes(
        self, episodes: Sequence[int], model: str
    ) -> dict[int, int]: ...


class SentenceIndex:
    """The sentence vectors of one persona's episodes, by sentence row; which episode a
    sentence is of, the store says."""

    def __init__(self, vectors: VectorIndex, store: _SentenceStore, model: str) -> None:
        self.vectors = vectors
        self._store = store
        self.model = model

    def __len__(self) -> int:
        return len(self.vectors)

    @classmethod
    async def load(cls, store: _SentenceStore, model: str, dim: int) -> SentenceIndex:
        async def read(after: int, limit: int) -> StoredVectors:
            return await store.sentence_vectors(model, dim, after=after, limit=limit)

        return cls(await read_index(dim, read), store, model)

    def add(self, rowids: Sequence[int], vectors: Matrix, label: str = DIRECT) -> None:
        for rowid, vector in zip(rowids, vectors, strict=True):
            self.vectors.add(rowid, vector, label=label)

    async def set_active(self, episode: int, active: bool) -> None:
        for rowid in await self._store.sentences_of_episode(episode):
            self.vectors.set_active(rowid, active)

    async def set_label(self, episode: int, label: str) -> None:
        for rowid in await self._store.sentences_of_episode(episode):
            self.vectors.set_label(rowid, label)

    async def nearest_episodes(
        self, query: Matrix, k: int, floor: float, *, labels: Collection[str] | None = None
    ) -> list[tuple[int, float]]:
        """The ``k`` episodes whose sentences are nearest, at or above ``floor`` (each by its
        closest sentence), best first."""
        near = self.vectors.nearest(query, 2 * k, floor, labels=labels)
        episode_of = await self._store.episodes_of_sentences([rowid for rowid, _ in near])
        found: dict[int, float] = {}
        for rowid, cosine in near:
            if rowid in episode_of:
                found.setdefault(episode_of[rowid], cosine)
        return list(found.items())[:k]

    async def cosine_of_episodes(
        self, query: Matrix, episodes: Sequence[int], *, labels: Collection[str] | None = None
    ) -> dict[int, float]:
        """Each of ``episodes``' closest sentence's cosine as the index holds it (near enough
        to choose among them); an episode without sentences is absent."""
        episode_of = await self._store.sentences_of_episodes(episodes, self.model)
        found: dict[int, float] = {}
        for rowid, cosine in self.vectors.cosine_of(query, list(episode_of), labels=labels).items():
            episode = episode_of[rowid]
            found[episode] = max(found.get(episode, -1.0), cosine)
        return found
