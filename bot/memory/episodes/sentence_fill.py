"""Older long messages given their sentence vectors, in the background after the store opens.

A message is given its sentence vectors when it is recorded
(:mod:`bot.memory.episodes.sentence_vectors`); the messages said before ``memory.db`` v8, or
while another model (or none) was configured, have none. Embedding a year of a household's
messages at open would hold back the first answer by minutes, so :func:`fill_sentences` runs
as a task beside the daemon (:meth:`~bot.memory.episodes.engine.Episodes.fill`, which the
backend starts once open, after the messages' own missing vectors); until it reaches a
message, the message is found by its own vector, as before. How far it has come is kept for
each model (``sentence_fill``), in the transaction that stores each batch, so a restart
resumes it and a model configured again later fills only what it missed.

Measured with ``bench/sentence_fill.py`` (1,469 messages, 4,385 sentence vectors): 18.7 s, and
recall p50 8.2 ms, at most 90 ms, while it ran (6.3 ms after).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from bot.daemon.errors import MemoryStoreError
from bot.memory.embedding.models import Embedder
from bot.memory.episodes.sentence_vectors import SentenceIndex, sentences_of
from bot.memory.sqlite.vector_index import StoredVectors

__all__ = ["FILL_EPISODES", "FILL_SENTENCES", "fill_sentences"]

#: the fill reads this many episodes at a time, and embeds about this many sentences at once
#: (a turn's own query waits for at most the model's pass of eight texts that is running:
#: :mod:`bot.memory.embedding.model_turns`); each batch is stored with how far the fill has come
FILL_EPISODES = 256
FILL_SENTENCES = 16


class _FillStore(Protocol):
    async def last_episode(self) -> int: ...

    async def sentences_filled_through(self, model: str) -> int: ...

    async def unsplit_episodes(
        self, model: str, *, after: int, through: int, limit: int
    ) -> list[tuple[int, str]]: ...

    async def put_sentence_vectors(
        self, episodes: Sequence[int], vectors: Any, model: str, *, filled_through: int | None
    ) -> list[int]: ...

    async def sentence_vectors(
        self, model: str, dim: int, *, after: int = 0, limit: int = -1
    ) -> StoredVectors: ...


async def fill_sentences(
    index: SentenceIndex,
    store: _FillStore,
    embedder: Embedder,
    model: str,
    *,
    through: int | None = None,
) -> int:
    """Give every active episode said so far (up to ``through``, the last one when the store
    opened) that has no sentence vector of ``model`` its sentences' (most have none: one
    sentence, or short ones), a batch at a time, each stored with how far the fill has come;
    how many sentence vectors were made. The messages said meanwhile get theirs as they are
    recorded."""
    if through is None:
        through = await store.last_episode()
    after = await store.sentences_filled_through(model)
    made = 0
    while after < through:
        episodes = await store.unsplit_episodes(
            model, after=after, through=through, limit=FILL_EPISODES
        )
        last = episodes[-1][0] if len(episodes) == FILL_EPISODES else through
        waiting: list[tuple[int, str]] = []
        for rowid, text in episodes:
            waiting += [(rowid, part) for part in sentences_of(text)]
            if len(waiting) >= FILL_SENTENCES:
                made += await _put(index, store, embedder, model, waiting, rowid)
                waiting = []
        made += await _put(index, store, embedder, model, waiting, last)
        after = last
    return made


async def _put(
    index: SentenceIndex,
    store: _FillStore,
    embedder: Embedder,
    model: str,
    split: list[tuple[int, str]],
    through: int,
) -> int:
    """Embed and store ``split`` (episode, sentence), noting every episode up to ``through``
    done, and add them to ``index`` as the store has them now: with their episode's status and
    audience after any forget or share that came while the model ran."""
    if split:
        vectors = await embedder.embed([part for _, part in split])
    else:
        vectors = np.empty((0, embedder.dim), dtype=np.float32)
    owners = [rowid for rowid, _ in split]
    ids = await store.put_sentence_vectors(owners, vectors, model, filled_through=through)
    if ids:
        # one transaction's rows have consecutive ids
        stored = await store.sentence_vectors(model, embedder.dim, after=ids[0] - 1, limit=len(ids))
        if stored.rowids != ids:
            raise MemoryStoreError(f"sentence vectors {ids[0]}..{ids[-1]} did not read back")
        index.vectors.extend_stored(stored)
    return len(ids)
