"""Answers a platform refused for good (a part of :class:`~bot.delivery.outbox.Outbox`).

A refusal that holds for good (:class:`~bot.daemon.errors.PermanentSendError`: the bot was
kicked or blocked, the room is gone) ends the parcel instead of a retry: it becomes a
:class:`Refusal` (who, where, the platform's reason, never the text), its event is finished,
and it no longer counts as waiting, so health does not stay at "backing up" for an answer
that can never arrive. An
on-record refusal is kept in ``personad.db`` (table ``undelivered``) and listed for
:data:`REFUSALS_SHOWN_SECONDS` by ``/status``, ``/status all``, the HTTP ``/status`` and the
admin page; an Off The Record one in this process only.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog

from bot.delivery.ledger import RefusalRow
from bot.delivery.parcel import Parcel
from bot.delivery.state import StateStore

__all__ = ["REFUSALS_SHOWN_SECONDS", "Refusal", "Refusals", "Refused"]

log = structlog.get_logger(__name__)

#: how long an answer refused for good stays listed for admins and its user
REFUSALS_SHOWN_SECONDS = 7 * 86400.0


@dataclass(frozen=True, slots=True)
class Refusal:
    """An answer the platform refused for good: who it was for, where, and the platform's
    reason. It never holds the answer's text."""

    platform: str
    event_id: str
    user: str
    persona: str
    room: str
    reason: str
    attempts: int
    created_at: float
    failed_at: float
    #: kept in ``personad.db`` (False: Off The Record, this process only)
    durable: bool = True

    def row(self) -> RefusalRow:
        """Its row in ``personad.db``'s ``undelivered`` table."""
        return (
            self.platform,
            self.event_id,
            self.user,
            self.persona,
            self.room,
            self.reason,
            self.attempts,
            self.created_at,
            self.failed_at,
        )

    def describe(self, now: float | None = None) -> str:
        """One line for a chat: where, how long ago, and why."""
        ago = max(0.0, (time.time() if now is None else now) - self.failed_at)
        when = f"{ago / 60:.0f} min ago" if ago < 7200 else f"{ago / 3600:.0f} h ago"
        return f"{self.platform} {self.room}, {when}: {self.reason}"


Refused = Callable[[Refusal], Awaitable[None]]


class Refusals:
    """The outbox's refusals (a part of :class:`~bot.delivery.outbox.Outbox`)."""

    # what it uses of the outbox
    state: StateStore
    on_refused: Refused | None
    refused: list[Refusal]
    parcels: list[Parcel]
    _later: Callable[[Parcel, str], Awaitable[None]]

    def refusals(self, *, platform: str | None = None, user: str | None = None) -> list[Refusal]:
        """The answers refused for good in the last :data:`REFUSALS_SHOWN_SECONDS`, newest
        first, for ``platform`` and ``user`` when given."""
        since = time.time() - REFUSALS_SHOWN_SECONDS
        return [
            r
            for r in reversed(self.refused)
            if r.failed_at >= since
            and (platform is None or r.platform == platform)
            and (user is None or r.user == user)
        ]

    async def refuse(self, parcel: Parcel, reason: str) -> None:
        """The platform refused ``parcel``'s first attempt for good: it is recorded as refused
        and never queued (its caller finishes the event)."""
        parcel.attempts = max(parcel.attempts, 1)
        refusal = _refusal(parcel, reason)
        if parcel.durable:
            try:
                await self.state.undelivered_add(refusal.row())
            except Exception as exc:  # still listed by this process
                log.error("outbox.refusal_unrecorded", error=str(exc))
        await self._refused(refusal)

    async def _give_up(self, parcel: Parcel, reason: str) -> bool:
        """End a queued parcel the platform refused for good: out of the database's outbox
        into ``undelivered`` (its event done), or, Off The Record, its event finished. Whether
        it left the outbox (else it is tried again, as after any failure)."""
        try:
            if parcel.row is not None:
                await self.state.outbox_refused(parcel.row, reason, parcel.attempts)
            else:
                await self.state.finish_event(parcel.platform, parcel.event_id)
        except Exception as exc:
            log.error("outbox.refusal_unrecorded", error=str(exc))
            await self._later(parcel, reason)
            return False
        self.parcels.remove(parcel)
        await self._refused(_refusal(parcel, reason))
        return True

    async def _refused(self, refusal: Refusal) -> None:
        self.refused.append(refusal)
        since = time.time() - REFUSALS_SHOWN_SECONDS
        self.refused = [r for r in self.refused if r.failed_at >= since]
        log.warning(
            "outbox.refused",
            platform=refusal.platform,
            attempts=refusal.attempts,
            waited_s=round(refusal.failed_at - refusal.created_at, 1),
            reason=refusal.reason,
        )
        if self.on_refused is not None:
            try:
                await self.on_refused(refusal)
            except Exception as exc:
                log.error("outbox.after_refusal_failed", error=str(exc))


def _refusal(parcel: Parcel, reason: str) -> Refusal:
    return Refusal(
        parcel.platform,
        parcel.event_id,
        parcel.user,
        parcel.persona,
        parcel.room,
        reason,
        parcel.attempts,
        parcel.created_at,
        time.time(),
        parcel.durable,
    )
