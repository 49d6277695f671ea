"""One list out of two: the durable facts and the episodes a query recalled, within the
turn's memory budget.

Each kind is ranked over its own candidate pool first (its best BM25 match scores 1.0 there),
so their scores are on one scale and the budget (``memory.recall_limit``) goes to the best of
both, whichever kind they are. A fact is usually one sentence of a message that is also an
episode: when one hit's words hold all of another's, the lower-scored of the pair is dropped
so the budget is not spent twice on one statement (asked *when*, the episode stays: it
carries the date).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.memory.base import MemoryHit, MemoryKind
from bot.memory.sqlite.query import normalise_text

__all__ = ["blend"]


def _contains(outer: str, inner: str) -> bool:
    return bool(inner) and f" {inner} " in f" {outer} "


def blend(
    facts: Sequence[MemoryHit],
    episodes: Sequence[MemoryHit],
    limit: int,
    *,
    prefer: MemoryKind | None = None,
) -> list[MemoryHit]:
    """The ``limit`` best hits of both lists, best first, without a statement twice; of a
    fact and an episode that say the same thing, the better scored stays, or the one of kind
    ``prefer`` (an episode when the query asks *when*: it carries the date), in its place."""
    merged = sorted([*facts, *episodes], key=lambda hit: hit.score, reverse=True)
    kept: list[tuple[MemoryHit, str]] = []
    for hit in merged:
        norm = normalise_text(hit.item.text)
        twin = next(
            (
                position
                for position, (other, seen) in enumerate(kept)
                if hit.item.kind != other.item.kind
                and (_contains(seen, norm) or _contains(norm, seen))
            ),
            None,
        )
        if twin is not None:
            if prefer is not None and hit.item.kind == prefer:
                kept[twin] = (hit, norm)
            continue
        if len(kept) < limit:
            kept.append((hit, norm))
    return [hit for hit, _ in kept]
