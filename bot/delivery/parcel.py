"""One answer waiting in the outbox (:mod:`bot.delivery.outbox`).

A :class:`Parcel` is what is left of one answer: its steps (:mod:`bot.delivery.steps`), in
order, with whom it is for, its attempts so far and when it is next tried. A durable parcel
(said on the record) also has its row in ``personad.db``'s ``outbox`` table; the others (said
Off The Record, or a spoken copy waiting apart) live in memory only. A parcel says whether it
was written for a direct conversation: it is not said as it is in a room that became a group
while it waited.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from bot.delivery.steps import Step

__all__ = ["Parcel"]


@dataclass(slots=True)
class Parcel:
    platform: str
    event_id: str
    user: str
    persona: str
    steps: list[Step]
    durable: bool = True
    created_at: float = field(default_factory=time.time)
    attempts: int = 0
    next_at: float = 0.0
    row: int | None = None
    #: written for a direct conversation: its prompt read the user's private files
    private: bool = False
    #: delivered as a note instead (:func:`~bot.delivery.steps.withheld`): the room became a
    #: group while it waited
    withheld: bool = False

    @property
    def room(self) -> str:
        return self.steps[0].room if self.steps else ""
