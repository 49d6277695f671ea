"""A message and the answer to it are one recalled exchange.

A person's message and the persona's answer are two episodes, and a question about either
often finds both: "What subject do you teach?" finds the user's "the claims form has 47
fields" and the answer "I'm grading forty chem lab reports" said back to it. As two hits they
take two of the few places recall has, and neither shows what the other said. So the better
of the two keeps its place with the other side beside it (``MemoryHit.reply`` or
``replying_to``, shown in the prompt after it), and the hits after the other move up. A fact
stands for the message it was told in (``MemoryItem.episode``). A message said again (its
episode reinforced) stands for every exchange it was said in, so it is joined to none.

Measured with ``bench/recall_quality.py`` (recall@5, write path, e5; tuning / held-out): set D
0.646 (0.674 / 0.618) -> 0.658 (0.674 / 0.642), set B 0.602 (0.604 / 0.600) -> 0.608 (0.604 /
0.612), set A 0.914 either way; the rest in docs/BENCHMARKS.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from bot.memory.base import MemoryHit
from bot.memory.episodes.rows import parse_episode_id

__all__ = ["episode_of", "one_per_exchange"]


class _Exchanges(Protocol):
    async def exchanges(self, rowids: Sequence[int]) -> dict[int, int]: ...


def episode_of(hit: MemoryHit) -> int | None:
    """The episode a hit stands for: its own, or the one a fact was told in."""
    told_in = hit.item.id if hit.item.kind == "episode" else hit.item.episode
    return parse_episode_id(told_in) if told_in else None


async def one_per_exchange(hits: Sequence[MemoryHit], store: _Exchanges) -> list[MemoryHit]:
    """``hits`` (best first), one an exchange: a hit whose exchange an earlier one holds is
    taken into that one, as its ``reply`` (the earlier one is the user's message) or what it
    was ``replying_to`` (the earlier one is the persona's answer)."""
    episodes = [episode_of(hit) for hit in hits]
    exchange_of = await store.exchanges(sorted({rowid for rowid in episodes if rowid}))
    kept: list[MemoryHit] = []
    #: each exchange's place in ``kept``, and the episode that holds it there
    places: dict[int, tuple[int, int]] = {}
    for hit, rowid in zip(hits, episodes, strict=True):
        exchange = exchange_of.get(rowid) if rowid is not None else None
        if exchange is None or rowid is None:
            # no message, or one said again: it stands for every time it was said, not only
            # the exchange of its first time, so it keeps a place of its own
            kept.append(hit)
            continue
        if exchange not in places:
            places[exchange] = (len(kept), rowid)
            kept.append(hit)
            continue
        at, holder = places[exchange]
        if holder == rowid or kept[at].reply or kept[at].replying_to:
            continue  # the same message again, or the exchange has both sides already
        if not hit.message:  # a fact whose message this audience does not see: it stays apart
            kept.append(hit)
        elif holder == exchange:  # the exchange is the user's message: this is the answer
            kept[at] = replace(kept[at], reply=hit)
        else:
            kept[at] = replace(kept[at], replying_to=hit)
    return kept
