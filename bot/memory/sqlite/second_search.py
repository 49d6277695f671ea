"""A second search for what one message cannot answer alone (multi-hop questions).

"What does the friend who moved to Porto do for a living?" has its answer in a message that
names the friend and never says Porto: the first search finds where Porto was said, and its
best hits name the friend. :func:`expansion_words` takes the rarest words of those hits that
the question does not hold (names, places, things: the words that tie two messages together);
the question searched again with them added finds the second message. :func:`fused` merges the
two lists: the first search's best keep their places, the rest are ranked by reciprocal rank
over both lists, so a hit both searches find rises and one only the second finds can enter.
The second search's meaning (its vector) stays the question's.

Measured with ``bench/recall_quality.py`` (recall@5, write path, BM25 / MiniLM): set A .664 /
.923 without it, .674 / .921 with it; set B .292 / .600 without, .331 / .640 with (tuning
.335 / .635, held-out .327 / .646). The other settings tried (two or three seed hits, three or
six words, the second's ranks counting as much as the first's, one kept place, interleaving
the lists instead of fusing them) are in docs/BENCHMARKS.md. Five words, not four, since
recency breaks ties only with BM25 alone: BM25 alone set A .679 -> .690, set B .346 -> .354,
set D .464 -> .470; with e5 sets A, B, C and D to the question as they were.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.memory.base import MemoryHit
from bot.memory.sqlite.query import folded_words, query_tokens, telling
from bot.memory.sqlite.stemming import index_terms, query_stems

__all__ = ["EXPANSION_WORDS", "SEED_HITS", "expansion_words", "fused", "seed_words"]

#: how many of the first search's best hits lend their words (0: no second search) ...
SEED_HITS = 1
#: ... and how many of their rarest words are added to the question
EXPANSION_WORDS = 5
#: the first search's best that keep their places
KEPT_FIRST = 2
#: reciprocal rank's damping: the weight of rank r is 1 / (RRF_K + r)
RRF_K = 10
#: the second search's ranks count this much against the first's
W_SECOND = 0.7


def seed_words(query: str, hits: Sequence[MemoryHit]) -> dict[str, str]:
    """Candidate words of the best hits for the second search: each word (folded, not a
    stopword or a number, neither it nor its stem in ``query``) with its stem as the index
    holds it, in the order the hits say them."""
    asked = set(query_tokens(query))
    asked_stems = set(query_stems(query))
    words: dict[str, str] = {}
    for hit in hits[:SEED_HITS]:
        text = hit.item.text
        for word, stem in zip(folded_words(text), index_terms(text).split(), strict=True):
            if not telling(word) or word in asked:
                continue
            if stem not in asked_stems:
                words.setdefault(word, stem)
    return words


def expansion_words(words: dict[str, str], frequencies: dict[str, int]) -> list[str]:
    """The :data:`EXPANSION_WORDS` rarest of ``words`` by their stems' document
    ``frequencies`` (a stem no memory holds is skipped), first-said first among equals."""
    known = [
        (frequencies[stem], n, word)
        for n, (word, stem) in enumerate(words.items())
        if frequencies.get(stem)
    ]
    return [word for _, _, word in sorted(known)[:EXPANSION_WORDS]]


def fused(first: Sequence[MemoryHit], second: Sequence[MemoryHit], limit: int) -> list[MemoryHit]:
    """The ``limit`` best of both searches: the first's :data:`KEPT_FIRST` best in place,
    then every other hit by its reciprocal ranks in both lists."""
    kept = list(first[:KEPT_FIRST])
    taken = {hit.item.id for hit in kept}
    votes: dict[str, float] = {}
    best: dict[str, MemoryHit] = {}
    for weight, hits in ((1.0, first), (W_SECOND, second)):
        for rank, hit in enumerate(hits):
            if hit.item.id in taken:
                continue
            votes[hit.item.id] = votes.get(hit.item.id, 0.0) + weight / (RRF_K + rank)
            best.setdefault(hit.item.id, hit)
    order = sorted(votes, key=lambda key: votes[key], reverse=True)
    return [*kept, *(best[key] for key in order)][:limit]
