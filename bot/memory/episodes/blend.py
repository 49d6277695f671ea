"""One list out of two: the durable facts and the episodes a query recalled, within the
turn's memory budget.

Each kind is ranked over its own candidate pool first (its best BM25 match scores 1.0 there),
so their scores are on one scale and the budget (``memory.recall_limit``) goes to the best of
both, whichever kind they are. A fact is one sentence of a message that is also an episode,
and the two are one hit: a fact that cites its episode (``MemoryItem.episode``) and that
episode take one place, the better score of the two, as the fact with the episode's text for
context (asked *when*, as the episode: it carries the date); facts told in the same message
take that one place too. Otherwise (a fact that cites no episode, a mirrored line; an
episode that repeats a fact said elsewhere) a fact is the twin of an episode whose words hold
all of its own, or the other way round, and the lower-scored of the pair is dropped, so the
budget is not spent twice on one statement; and a message whose words are a phrase of a better
scored message ("morning" beside "I only drink black coffee in the morning") is dropped too,
unless the query asks *when*: it says nothing the better one does not. So is the lower of two
facts, or two messages, of two audiences that say the very same text: a shared room that says
again what another audience said keeps its own copy (:mod:`bot.memory.reinforcement`), and a
direct room, which sees both, is shown one; asked *when*, both, as each was said on a day of
its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.memory.base import MemoryHit, MemoryKind
from bot.memory.normal_form import normalise_text

__all__ = ["blend"]


def _contains(outer: str, inner: str) -> bool:
    return bool(inner) and f" {inner} " in f" {outer} "


def _copies(one: MemoryHit, other: MemoryHit) -> bool:
    """Two audiences' copies of one statement: hits of one kind, the same text."""
    return (
        one.item.kind == other.item.kind
        and one.item.audience != other.item.audience
        and one.item.text.strip() == other.item.text.strip()
    )


def _told_in(hit: MemoryHit) -> str:
    """The episode a hit stands for: its own id, or the one a fact was told in."""
    return hit.item.id if hit.item.kind == "episode" else hit.item.episode


def _joined(kept: MemoryHit, hit: MemoryHit, prefer: MemoryKind | None) -> MemoryHit:
    """One hit of a fact and the episode it was told in, at the better (``kept``'s) score."""
    fact, episode = (kept, hit) if kept.item.kind == "fact" else (hit, kept)
    if prefer == "episode":
        return replace(episode, score=kept.score, parts=kept.parts)
    item = replace(fact.item, context=episode.item.text)
    return MemoryHit(item, kept.score, kept.parts)


def _repeats(
    hit: MemoryHit, norm: str, other: MemoryHit, seen: list[str], prefer: MemoryKind | None
) -> bool:
    """Whether ``hit`` (``norm``, its normal form) says nothing that the better scored
    ``other`` (``seen``: the normal forms it stands for) does not: a fact and an episode
    either of which holds the other's words, or a message that is a phrase of a better one
    (not when asked *when*: each message has a date of its own)."""
    if hit.item.kind != other.item.kind:
        return any(_contains(one, norm) or _contains(norm, one) for one in seen)
    return (
        prefer is None and hit.item.kind == "episode" and any(_contains(one, norm) for one in seen)
    )


def blend(
    facts: Sequence[MemoryHit],
    episodes: Sequence[MemoryHit],
    limit: int,
    *,
    prefer: MemoryKind | None = None,
) -> list[MemoryHit]:
    """The ``limit`` best hits of both lists, best first, without a statement twice: a fact
    and its episode are one hit in the better one's place; of a fact and an episode that say
    the same thing otherwise, the better scored stays, or the one of kind ``prefer`` (an
    episode when the query asks *when*: it carries the date), in its place; a message that
    only repeats a phrase of a better scored one is dropped (unless with ``prefer``); of two
    audiences' copies of one text, the better scored (both with ``prefer``: each has its
    date)."""
    merged = sorted([*facts, *episodes], key=lambda hit: hit.score, reverse=True)
    # each kept hit with the normal forms of what it stands for (a fact merged into it too),
    # so a later message that only repeats one of them is a twin
    kept: list[tuple[MemoryHit, list[str]]] = []
    for hit in merged:
        norm = normalise_text(hit.item.text)
        told = _told_in(hit)
        same = next(
            (n for n, (other, _) in enumerate(kept) if told and _told_in(other) == told), None
        )
        if same is not None:
            other, norms = kept[same]
            if other.item.kind != hit.item.kind:
                other = _joined(other, hit, prefer)
            kept[same] = (other, [*norms, norm])
            continue
        if prefer is None and any(_copies(hit, other) for other, _ in kept):
            continue
        twin = next(
            (
                position
                for position, (other, seen) in enumerate(kept)
                if _repeats(hit, norm, other, seen, prefer)
            ),
            None,
        )
        if twin is not None:
            if prefer is not None and hit.item.kind == prefer:
                kept[twin] = (hit, [*kept[twin][1], norm])
            continue
        if len(kept) < limit:
            kept.append((hit, [norm]))
    return [hit for hit, _ in kept]
