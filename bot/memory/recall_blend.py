"""One list out of two: the durable facts and the episodes a query recalled, within the
turn's memory budget.

Each kind is ranked over its own candidate pool first (its best BM25 match scores 1.0 there),
so their scores are on one scale and the budget (``memory.recall_limit``) goes to the best of
both, whichever kind they are. A fact is usually one sentence of a message that is also an
episode: when one hit's words hold all of another's, the lower-scored of the pair is dropped
so the budget is not spent twice on one statement.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.memory.base import MemoryHit
from bot.memory.fts_query import normalise_text

__all__ = ["blend"]


def _contains(outer: str, inner: str) -> bool:
    return bool(inner) and f" {inner} " in f" {outer} "


def blend(facts: Sequence[MemoryHit], episodes: Sequence[MemoryHit], limit: int) -> list[MemoryHit]:
    """The ``limit`` best hits of both lists, best first, without a statement twice."""
    merged = sorted([*facts, *episodes], key=lambda hit: hit.score, reverse=True)
    kept: list[tuple[MemoryHit, str]] = []
    for hit in merged:
        if len(kept) >= limit:
            break
        norm = normalise_text(hit.item.text)
        if any(
            hit.item.kind != other.item.kind and (_contains(seen, norm) or _contains(norm, seen))
            for other, seen in kept
        ):
            continue
        kept.append((hit, norm))
    return [hit for hit, _ in kept]
