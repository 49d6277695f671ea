"""Spoken copies of answers, best-effort (a part of :class:`~bot.delivery.outbox.Outbox`).

A spoken copy of an answer (a ``voice`` step, :mod:`bot.turn.voice`) is best-effort: the
written answer is what counts. Once only voice steps are left, the answer counts as
delivered (its event is finished) and the voice steps wait apart, in this process only:
they never hold up the room's later answers, are tried :data:`SPOKEN_TRIES` times in all
(after the outbox's backoff: seconds), and are then dropped with a warning in the log (as
they are at once when the platform refuses them for good).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Container, Mapping

import structlog

from adapters.base import Adapter
from bot.delivery.parcel import Parcel
from bot.delivery.steps import Undelivered, perform_all

__all__ = ["SPOKEN_TRIES", "SpokenCopies"]

log = structlog.get_logger(__name__)

#: how many times a spoken copy is tried in all before it is dropped
SPOKEN_TRIES = 3


class SpokenCopies:
    """The outbox's spoken copies (a part of :class:`~bot.delivery.outbox.Outbox`)."""

    # what it uses of the outbox
    adapters: Mapping[str, Adapter]
    groups: Container[str]
    voices: list[Parcel]
    _wake: asyncio.Event
    _delay: Callable[[int], float]

    def speak_later(self, parcel: Parcel, error: str, *, permanent: bool = False) -> None:
        """The written answer arrived, its spoken copy (``parcel``: voice steps only) did not:
        try it again apart, unless it was refused for good or its tries are spent."""
        parcel.attempts += 1
        if permanent or parcel.attempts >= SPOKEN_TRIES:
            log.warning(
                "outbox.unspoken", platform=parcel.platform, attempts=parcel.attempts, error=error
            )
            return
        parcel.durable, parcel.row = False, None
        parcel.next_at = time.time() + self._delay(parcel.attempts)
        self.voices.append(parcel)
        log.info("outbox.speak_later", platform=parcel.platform, attempts=parcel.attempts)
        self._wake.set()

    async def _speak(self, parcel: Parcel) -> None:
        self.voices.remove(parcel)
        if parcel.private and f"{parcel.platform}:{parcel.room}" in self.groups:
            # written for a direct room that became a group: its words are not said there
            log.warning("outbox.unspoken_in_group", platform=parcel.platform)
            return
        adapter = self.adapters.get(parcel.platform)
        if adapter is None or not adapter.health.running:
            self.speak_later(parcel, "the adapter is not running")
            return
        try:
            await perform_all(adapter, parcel.steps)
        except Undelivered as exc:
            parcel.steps = exc.steps
            self.speak_later(parcel, exc.error, permanent=exc.permanent)
            return
        log.info("outbox.spoken", platform=parcel.platform, attempts=parcel.attempts)
