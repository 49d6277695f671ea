"""Hybrid recall over ``memory.db``: BM25 matches and nearest vectors, scored together.

:func:`fact_pool` takes the best FTS5 (BM25) matches of the planned query
(:func:`bot.memory.sqlite.query.plan_match`) and, when an embedder and its vector index are
loaded, the nearest vectors (found by the index, scored by their exact vectors in the store);
:func:`without_short_messages_facts` leaves out those a short message they were told in stands
for, and :func:`score_facts` scores them by :mod:`bot.memory.sqlite.scoring`
(BM25 + cosine + recency + importance), beside the episodes of the same query. Without an
embedder it answers by BM25 alone. ``labels`` (what the turn's audience sees: None for a direct
room, every item) filters both sources before the pool is cut: the FTS subquery keeps only
matches of those labels and the vector mask hides the rest, so another room's items never take
a place in the pool.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from datetime import datetime

from bot.memory.base import MemoryHit
from bot.memory.embedding.models import Matrix
from bot.memory.sqlite.query import plan_match
from bot.memory.sqlite.scoring import MIN_COSINE, W_COSINE, W_RECENCY, score_parts
from bot.memory.sqlite.stemming import query_stem_groups
from bot.memory.sqlite.store import FtsStore, Labels, RecallRow
from bot.memory.sqlite.vector_index import VectorIndex

__all__ = [
    "CANDIDATE_MARGIN",
    "SHORT_MESSAGE_WORDS",
    "fact_pool",
    "score_facts",
    "without_short_messages_facts",
]

CANDIDATE_MARGIN = 12
"""Each search re-scores ``limit + CANDIDATE_MARGIN`` BM25 matches (and as many nearest
vectors). Recency and importance move a score by under 0.1, so a match ranked deeper than that
by BM25 alone seldom reaches the top: measured on the quality set, a larger pool changed nothing."""


async def fact_pool(
    store: FtsStore,
    query: str,
    *,
    limit: int,
    query_vector: Awaitable[Matrix | None] | None,
    index: VectorIndex | None,
    model: str,
    labels: Labels = None,
) -> list[RecallRow]:
    """The candidate facts for ``query``: its best BM25 matches and, with ``query_vector``
    (the query's embedding, awaited only once the BM25 matches are in, so both are worked on
    at once), the nearest vectors the index finds, each with its exact cosine (by the stored
    vector of ``model``)."""
    groups = query_stem_groups(query)
    tokens = list(dict.fromkeys(stem for group in groups for stem in group))
    if not tokens or limit <= 0:
        return []
    pool = limit + CANDIDATE_MARGIN
    rows: list[RecallRow] = []
    frequencies = await store.doc_frequencies(tokens)
    for plan in plan_match(tokens, frequencies, groups):
        rows = await store.match(plan.expression, pool, newest=plan.newest, labels=labels)
        if len(rows) >= limit:
            break
    candidates = {row.candidate.rowid: row for row in rows}
    vector = await query_vector if query_vector is not None else None
    if vector is not None and index is not None:
        near = index.nearest(vector, pool, MIN_COSINE, labels=labels)
        extra = [rowid for rowid, _ in near if rowid not in candidates]
        for row in await store.rows_by_id(extra, labels=labels):
            candidates[row.candidate.rowid] = row
        cosines = await store.cosines(model, vector, list(candidates))
        for rowid, row in candidates.items():
            row.candidate.cosine = cosines.get(rowid, 0.0)
    return list(candidates.values())


SHORT_MESSAGE_WORDS = 20
"""A fact told in a message of this many words or fewer is searched as that message: the two
are one hit anyway (:mod:`bot.memory.episodes.blend`), and the fact's own row, a sentence
shorter than the message, won BM25 on one common word (BM25 marks a short row up) and took
places from the other side's messages, which have no facts. Measured (write path, recall@5,
BM25 alone; tuning / held-out): set E 0.607 (0.646 / 0.568) -> 0.630 (0.682 / 0.578), set D
0.508 (0.527 / 0.488) -> 0.517 (0.535 / 0.498); sets B and C as they were (their facts come
from long messages); set A 0.708 -> 0.705; with e5 set E 0.736 -> 0.739, set D 0.667 -> 0.669,
set A 0.915 -> 0.903 (one question put to six people: docs/BENCHMARKS.md)."""


def without_short_messages_facts(
    rows: list[RecallRow], words: Mapping[int, int]
) -> list[RecallRow]:
    """The fact candidates ``rows`` but those told in a message of
    :data:`SHORT_MESSAGE_WORDS` words or fewer (``words``: each message's count, by its
    rowid, of the messages the search may find); a fact told in no message, or in one the
    search may not find (forgotten, or not heard where it is asked), stays."""
    kept = []
    for row in rows:
        told = row.told_in()
        if told is None or words.get(told, SHORT_MESSAGE_WORDS + 1) > SHORT_MESSAGE_WORDS:
            kept.append(row)
    return kept


def score_facts(
    rows: list[RecallRow],
    *,
    best_bm25: float,
    best_cosine: float,
    now: datetime,
    limit: int,
    meaning: float = W_COSINE,
    recent: float = W_RECENCY,
) -> list[MemoryHit]:
    """The ``limit`` best of ``rows``, best first, each with its score parts; BM25 is divided
    by ``best_bm25``, the best raw BM25 of the whole pool (facts and episodes)."""
    at = now.timestamp()
    scored = []
    for row in rows:
        parts = score_parts(
            row.candidate,
            best_bm25=best_bm25,
            best_cosine=best_cosine,
            now=at,
            meaning=meaning,
            recent=recent,
        )
        scored.append((sum(parts.values()), row, parts))
    scored.sort(key=lambda entry: entry[0], reverse=True)
    return [MemoryHit(row.item(), score, parts) for score, row, parts in scored[:limit]]
