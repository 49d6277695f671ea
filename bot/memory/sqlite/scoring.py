"""How a recalled memory is scored: every weight in one place.

``score = W_BM25·bm25 + W_COSINE·cosine + W_RECENCY·recency + W_IMPORTANCE·importance``

* ``bm25``: FTS5's BM25 for the query, turned positive and divided by the best candidate's,
  so the strongest lexical match of this query scores 1.0 and the rest fall in (0, 1].
* ``cosine``: similarity of the query and memory embeddings (0 without an embedder, or when
  below :data:`MIN_COSINE`), divided by the best of the pool (:data:`COSINE_OVER_POOL`), so
  both signals run from 0 to 1 over the same candidates. Facts and episodes share one pool
  (``SqliteFtsMemory.search``): the best BM25 and the best cosine are taken over both.
* ``recency``: ``0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS)`` where age runs from the last time
  the fact was *stated* (created or reinforced by a repeat). Recall never refreshes it:
  refreshing on every recall made a few items "sticky" and cut recall@5 from .435 to .363 on a
  long-conversation benchmark, and recency in general pulled answers toward the latest session
  while the evidence was spread over months — hence its small weight, and with BM25 alone
  (no embedding model) a weight that only breaks ties (:data:`W_RECENCY_WORDS_ONLY`).
* ``importance``: by category (:data:`CATEGORY_WEIGHTS`): a decision the user took outweighs a
  stray fact when the text matches equally well. A fact and the message it was told in are one
  hit (:func:`bot.memory.episodes.blend.blend`), so the bonus lifts a message the policy kept a
  fact from rather than pushing it out. Measured on both quality sets (recall@5, write path,
  BM25 / MiniLM): without it set A .667 / .920 and set B .288 / .583, with it .664 / .923 and
  .292 / .600; one flat bonus (0.08) for every category: .655 / .923 and .294 / .610.

Measured on the long-conversation set (``bench/recall_quality.py``, write path with MiniLM,
recall@5): cosine divided by the pool's best .923 against .914 raw; BM25 over the joint pool
of facts and episodes .914 against .911 each over its own; W_COSINE 0.5 / 1.0 / 1.5 / 2.0 gave
.902 / .923 / .923 / .926 (1.0 kept: the older fact set below prefers it).

A hit's ``parts`` are these weighted terms, so they add up to its score. Change a weight only
with the quality set (``python bench/recall.py --quick``) before and after. Measured there
(recall@5, BM25-only / with MiniLM): these weights give .754 / .923; W_COSINE 0.5 the same,
1.5 or 2.0 drop to .908; W_RECENCY 0 or 0.2 and W_IMPORTANCE 0 or 0.3 change nothing on that
set (they order near-ties); MIN_COSINE 0.3 drops to .908.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict

from bot.memory.base import Category

__all__ = [
    "CATEGORY_WEIGHTS",
    "COSINE_OVER_POOL",
    "MIN_COSINE",
    "RECENCY_HALF_LIFE_DAYS",
    "W_BM25",
    "W_COSINE",
    "W_IMPORTANCE",
    "W_RECENCY",
    "W_RECENCY_WORDS_ONLY",
    "Candidate",
    "Ranking",
    "normalised_bm25",
    "normalised_cosine",
    "recency",
    "recency_weight",
    "score_parts",
]

W_BM25 = 1.0
W_COSINE = 1.0
W_RECENCY = 0.05
W_RECENCY_WORDS_ONLY = 0.001
"""Recency's weight when no embedding model is loaded and BM25 ranks alone: enough to put the
newer of two equal matches first, no more. At 0.05 it pushed newer small talk over older
evidence (write path, recall@5, 0.05 -> 0.001: set A 0.677 -> 0.679, set B 0.329 -> 0.346,
on both parts, set D 0.455 -> 0.464, its held-out part level; at 0 set A lost a preference
changed, the newer fact no longer first). With e5, 0 cost set D 0.003, so with a model it
stays :data:`W_RECENCY`."""
W_IMPORTANCE = 0.1

RECENCY_HALF_LIFE_DAYS = 180.0
MIN_COSINE = 0.2
COSINE_OVER_POOL = True
"""A memory found only by its embedding must be at least this close to be a candidate."""

CATEGORY_WEIGHTS: dict[Category, float] = {
    "decision": 1.0,
    "preference": 0.9,
    "error": 0.8,
    "skill": 0.7,
    "fact": 0.6,
}


class Ranking(TypedDict):
    """How a turn's pool is ranked, facts and episodes alike: the pool's best BM25 and cosine
    (each score is divided by them), the time recency counts from, how many to keep, and the
    weights of the cosine and of recency."""

    best_bm25: float
    best_cosine: float
    now: datetime
    limit: int
    meaning: float
    recent: float


@dataclass(slots=True)
class Candidate:
    """One memory the lexical or the vector search turned up, before scoring."""

    rowid: int
    category: Category
    stated_at: float
    bm25_raw: float = 0.0
    cosine: float = 0.0


def recency_weight(*, with_model: bool) -> float:
    """Recency's weight in a score: :data:`W_RECENCY` beside a model's cosine, and with BM25
    ranking alone only enough to break ties (:data:`W_RECENCY_WORDS_ONLY`)."""
    return W_RECENCY if with_model else W_RECENCY_WORDS_ONLY


def normalised_bm25(raw: float, best: float) -> float:
    """FTS5 ranks are negative (lower is better): map to (0, 1] relative to the best one."""
    if raw >= 0.0 or best >= 0.0:
        return 0.0
    return raw / best


def recency(stated_at: float, now: float) -> float:
    age_days = max(0.0, now - stated_at) / 86400.0
    return float(0.5 ** (age_days / RECENCY_HALF_LIFE_DAYS))


def normalised_cosine(cosine: float, best: float) -> float:
    """A cosine at or above :data:`MIN_COSINE`, divided by the best of the pool when
    :data:`COSINE_OVER_POOL` (else as it is); 0 below the floor."""
    if cosine < MIN_COSINE:
        return 0.0
    return cosine / best if COSINE_OVER_POOL and best > 0 else cosine


def score_parts(
    candidate: Candidate,
    *,
    best_bm25: float,
    now: float,
    best_cosine: float = 1.0,
    meaning: float = W_COSINE,
    recent: float = W_RECENCY,
) -> dict[str, float]:
    """The weighted terms of ``candidate``'s score; their sum is the score. ``meaning``: the
    cosine's weight, the embedder's own (:attr:`Embedder.meaning`); ``recent``: recency's."""
    return {
        "bm25": W_BM25 * normalised_bm25(candidate.bm25_raw, best_bm25),
        "cosine": meaning * normalised_cosine(candidate.cosine, best_cosine),
        "recency": recent * recency(candidate.stated_at, now),
        "importance": W_IMPORTANCE * CATEGORY_WEIGHTS.get(candidate.category, 0.5),
    }
