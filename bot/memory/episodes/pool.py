"""A query's candidate episodes, scored:

``score = W_BM25·bm25 + W_COSINE·cosine + W_RECENCY·recency + W_TIME·in_window
+ W_SAYS_WHEN·says_a_time + W_NAMES_WORK·names_work``

(recency weighed :data:`~bot.memory.sqlite.scoring.W_RECENCY_WORDS_ONLY` instead when BM25
ranks alone), where ``bm25`` and ``cosine`` are divided by the best of the pool (facts' and
episodes' together), ``in_window`` is 1 for an episode said within the time the query names
(:mod:`bot.memory.episodes.time_query`) and ``says_a_time`` is 1, for a query that asks *when*,
for an episode that names a time ("we signed on the 14th", "fui despedido ontem",
"flying out next Friday"): the message that tells when something happened says so, and the
others about the same thing seldom do; ``names_work`` is 1, for a query that asks about
someone's work, for an episode that names a line of work
(:mod:`bot.memory.episodes.work_words`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

from bot.memory.base import MemoryHit
from bot.memory.episodes.rows import EpisodeRow
from bot.memory.episodes.time_query import says_a_time
from bot.memory.episodes.work_words import names_work
from bot.memory.sqlite.scoring import (
    W_BM25,
    W_COSINE,
    W_RECENCY,
    normalised_bm25,
    normalised_cosine,
    recency,
)

__all__ = ["W_NAMES_WORK", "W_SAYS_WHEN", "W_TIME", "EpisodePool"]

W_TIME = 0.5
"""Bonus of an episode said within the window the query names."""

W_SAYS_WHEN = 0.1
"""Bonus of an episode that names a time, when the query asks when. Measured with BM25 alone
(write path, recall@5): set A 0.688 -> 0.705, set B 0.362 as it was on both parts, set D
0.488 -> 0.500 (tuning 0.500 -> 0.524, held-out 0.476 as it was); 0.05 gave less, 0.2 and 0.3
cost set D's tuning part what 0.1 gained. With e5, set D 0.667 as it was."""

W_NAMES_WORK = 0.1
"""Bonus of an episode that names a line of work, when the query asks about someone's work.
Measured with BM25 alone (write path, recall@5): set D 0.500 -> 0.508 (tuning 0.524 -> 0.527,
held-out 0.476 -> 0.488), sets A and B as they were; 0.2 and 0.3 the same. With e5, set D
0.667 as it was."""


@dataclass(slots=True)
class EpisodePool:
    """The candidates of one query, and what the query says about time."""

    rows: list[EpisodeRow]
    window: tuple[float, float] | None
    #: the query asks when something happened: only an episode carries the date that answers
    #: it, so it stands in for a fact that says the same thing
    #: (:func:`~bot.memory.episodes.blend.blend`), and one that names a time is lifted
    asks_when: bool = False
    #: the query asks what someone does for a living: one that names a trade is lifted
    asks_work: bool = False

    @property
    def best_bm25(self) -> float:
        return min((row.bm25_raw for row in self.rows), default=0.0)

    @property
    def best_cosine(self) -> float:
        return max((row.cosine for row in self.rows), default=0.0)

    def ranked(
        self,
        *,
        best_bm25: float,
        best_cosine: float,
        now: datetime,
        limit: int,
        meaning: float = W_COSINE,
        recent: float = W_RECENCY,
    ) -> list[MemoryHit]:
        """The ``limit`` best, best first, BM25 and cosine divided by the pool's best, the
        cosine weighed ``meaning`` and recency ``recent``; each dated on the day ``now``'s
        zone (the user's) counts, as the query's window is."""
        zone: tzinfo = now.tzinfo or UTC
        at = now.timestamp()
        scored = []
        for row in self.rows:
            parts = {
                "bm25": W_BM25 * normalised_bm25(row.bm25_raw, best_bm25),
                "cosine": meaning * normalised_cosine(row.cosine, best_cosine),
                "recency": recent * recency(row.last_seen, at),
            }
            if self.window is not None:
                parts["time"] = W_TIME * float(self.window[0] <= row.at < self.window[1])
            if self.asks_when:
                parts["says_when"] = W_SAYS_WHEN * float(says_a_time(row.text))
            if self.asks_work:
                parts["names_work"] = W_NAMES_WORK * float(names_work(row.text))
            scored.append((sum(parts.values()), row, parts))
        scored.sort(key=lambda entry: entry[0], reverse=True)
        return [MemoryHit(row.item(zone), score, parts) for score, row, parts in scored[:limit]]
