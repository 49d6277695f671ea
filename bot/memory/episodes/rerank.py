"""The recalled list put in order again, by what a hit's own score cannot see.

A hit's score weighs its words and its meaning against the question alone. Whether the
question is about what was talked about *around* a message is not in it: "Whose ring did Finn
propose with?" is answered by "It was his grandmother's. Gold band, a little sapphire", whose
exchange before it ("Tell me about the ring!!", "He proposed on Saturday") is what is close to
the question. So the search's best :data:`POOL` hits, one an exchange, are scored once more
by a linear model over :data:`FEATURES`: the parts of the hit's score, its place in the list,
what kind of hit it is, and two cosines the score never counts: of the hit's exchange (the
message and the answer to it, each by its own vector), and of the exchanges just before and
after it in the same conversation (within :data:`AROUND_SECONDS`). Only with an embedding
model: with BM25 alone the same model measured no gain.

The weights (:data:`WEIGHTS`, per unit of each feature) were fitted by ``bench/rerank_fit.py``
on the tuning parts of the long-conversation sets (pairs of a hit that holds an evidence turn
and one that does not, logistic loss), and are measured on their held-out parts
(docs/BENCHMARKS.md, "Recalled hits in order again").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from bot.memory.base import MemoryHit

__all__ = [
    "AROUND_SECONDS",
    "FEATURES",
    "POOL",
    "WEIGHTS",
    "Surroundings",
    "features",
    "reranked",
    "said_in_exchange",
]

#: how many of the search's best hits are put in order again (the list before one hit an
#: exchange)
POOL = 30
#: the exchanges before and after a hit count as its conversation within this many seconds
AROUND_SECONDS = 3 * 3600.0

#: what the model reads of a hit, in this order
FEATURES = (
    # the parts of its score (0 where the score has no such part)
    "bm25",
    "cosine",
    "recency",
    "time",
    "says_when",
    "names_work",
    "importance",
    # its place in the search's list
    "inverse_rank",
    "log_rank",
    # what it is
    "is_fact",
    "log_words",
    "log_message_words",
    "other_side",
    "other_side_cosine",
    "said_again",
    # how close to the question its exchange is, and the exchanges around it
    "exchange_cosine",
    "around_cosine",
)

#: each feature's weight, per unit (fitted: see the module's docstring)
WEIGHTS: dict[str, float] = {
    "bm25": 0.6941,
    "cosine": -0.1539,
    "recency": -1.1538,
    "time": 3.9864,
    "says_when": 3.0842,
    "names_work": 26.1996,
    "importance": 7.6385,
    "inverse_rank": 0.9254,
    "log_rank": -0.3558,
    "is_fact": 0.9286,
    "log_words": 0.2414,
    "log_message_words": 0.6949,
    "other_side": 0.5995,
    "other_side_cosine": 0.2845,
    "said_again": -1.1986,
    "exchange_cosine": 11.1287,
    "around_cosine": 1.474,
}


class Surroundings:
    """The raw cosines the score never counts, by the episode a hit stands for: of its
    exchange's messages (the best), and of the messages of the exchanges around it. A hit
    said in no exchange this audience sees (a fact added by hand or by compaction, a line
    of USER.md, a shared fact seen from a group) is read by its own vector's cosine
    (``own``, by its item id) for both: it is a conversation of its own, not one far from
    the question."""

    def __init__(
        self,
        cosines: Mapping[int, float],
        places: Mapping[int, tuple[Sequence[int], Sequence[int]]],
        own: Mapping[str, float] | None = None,
    ) -> None:
        self._cosines = cosines
        self._places = places
        self._own = own or {}

    def _best(self, rowids: Sequence[int]) -> float:
        return max((self._cosines.get(rowid, 0.0) for rowid in rowids), default=0.0)

    def exchange(self, hit: MemoryHit, episode: int | None) -> float:
        return self._read(hit, episode, 0)

    def around(self, hit: MemoryHit, episode: int | None) -> float:
        return self._read(hit, episode, 1)

    def _read(self, hit: MemoryHit, episode: int | None, which: int) -> float:
        if episode is None or not said_in_exchange(episode, self._places):
            return self._own.get(hit.item.id, 0.0)
        return self._best(self._places[episode][which])


def said_in_exchange(
    episode: int | None, places: Mapping[int, tuple[Sequence[int], Sequence[int]]]
) -> bool:
    """Whether a hit's ``episode`` is an exchange the audience sees (``places``: what
    :meth:`~bot.memory.episodes.store.EpisodeStore.surroundings` found)."""
    return episode is not None and bool(places.get(episode, ((), ()))[0])


def _row(hit: MemoryHit, rank: int, episode: int | None, near: Surroundings) -> list[float]:
    other = hit.reply or hit.replying_to
    said = hit.item.context or hit.item.text
    values = {
        **{name: hit.parts.get(name, 0.0) for name in FEATURES[:7]},
        "inverse_rank": 1.0 / (1 + rank),
        "log_rank": math.log(1 + rank),
        "is_fact": float(hit.item.kind == "fact"),
        "log_words": math.log(1 + len(hit.item.text.split())),
        "log_message_words": math.log(1 + len(said.split())),
        "other_side": float(other is not None),
        "other_side_cosine": other.parts.get("cosine", 0.0) if other is not None else 0.0,
        "said_again": float(hit.item.reinforced > 0),
        "exchange_cosine": near.exchange(hit, episode),
        "around_cosine": near.around(hit, episode),
    }
    return [values[name] for name in FEATURES]


def features(
    hits: Sequence[MemoryHit], episodes: Sequence[int | None], near: Surroundings
) -> list[list[float]]:
    """Each hit's :data:`FEATURES` (``episodes``: the episode each stands for, if any)."""
    return [
        _row(hit, rank, episode, near)
        for rank, (hit, episode) in enumerate(zip(hits, episodes, strict=True))
    ]


def reranked(
    hits: Sequence[MemoryHit],
    rows: Sequence[Sequence[float]],
    weights: Mapping[str, float] = WEIGHTS,
) -> list[MemoryHit]:
    """``hits`` best first by the model's score of their ``rows``; equal scores keep their
    order."""
    scale = [weights.get(name, 0.0) for name in FEATURES]
    scores = [sum(w * x for w, x in zip(scale, row, strict=True)) for row in rows]
    order = sorted(range(len(hits)), key=lambda n: -scores[n])
    return [hits[n] for n in order]
