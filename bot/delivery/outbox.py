"""Answers the platform did not take, retried until it does.

A :class:`Parcel` is what is left of one answer: its steps (:mod:`bot.delivery.steps`), in order.
On-record parcels live in ``personad.db`` (table ``outbox``), so they survive a restart;
putting one there marks its event ``queued`` and removing it marks the event ``done``, in
the same statement. Off The Record parcels never touch disk: they live in this process only,
and their event stays unfinished, so if the process ends first the platform's redelivery is
answered afresh.

One task delivers what is due, oldest first, keeping each room's answers in order (a room
whose oldest parcel failed waits for it). A failure is retried after a jittered exponential
backoff (``base_delay`` doubling up to ``max_delay``, scaled by a random factor in
[0.5, 1]), for as long as the daemon runs. Each step's key makes a retry idempotent where
the platform honours keys.

A refusal that holds for good (:class:`~bot.daemon.errors.PermanentSendError`: the bot was kicked or
blocked, the room is gone) ends the parcel instead: it becomes a :class:`Refusal` (who, where,
the platform's reason, never the text), its event is finished, and it no longer counts as
waiting, so health does not stay at "backing up" for an answer that can never arrive. An
on-record refusal is kept in ``personad.db`` (table ``undelivered``) and listed for
:data:`REFUSALS_SHOWN_SECONDS` by ``/status``, ``/status all``, the HTTP ``/status`` and the
admin page; an Off The Record one in this process only.

A spoken copy of an answer (a ``voice`` step, :mod:`bot.turn.voice`) is best-effort: the
written answer is what counts. Once only voice steps are left, the answer counts as
delivered (its event is finished) and the voice steps wait apart, in this process only:
they never hold up the room's later answers, are tried :data:`SPOKEN_TRIES` times in all
(after the outbox's backoff: seconds), and are then dropped with a warning in the log (as
they are at once when the platform refuses them for good).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import structlog

from adapters.base import Adapter
from bot.delivery.backoff import LoopTask, jittered_backoff
from bot.delivery.ledger import RefusalRow
from bot.delivery.state import StateStore
from bot.delivery.steps import (
    Step,
    Undelivered,
    perform_all,
    spoken_only,
    steps_from_json,
    steps_to_json,
)

__all__ = [
    "BACKLOG_PARCELS",
    "BACKLOG_SECONDS",
    "REFUSALS_SHOWN_SECONDS",
    "SPOKEN_TRIES",
    "Outbox",
    "Parcel",
    "Refusal",
]

log = structlog.get_logger(__name__)

#: a platform's outbox is backing up (health turns 503) with more parcels than this ...
BACKLOG_PARCELS = 20
#: ... or with one waiting longer than this many seconds
BACKLOG_SECONDS = 120.0
#: how long an answer refused for good stays listed for admins and its user
REFUSALS_SHOWN_SECONDS = 7 * 86400.0
#: how many times a spoken copy is tried in all before it is dropped
SPOKEN_TRIES = 3


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

    @property
    def room(self) -> str:
        return self.steps[0].room if self.steps else ""


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


Delivered = Callable[[Parcel], Awaitable[None]]
Refused = Callable[[Refusal], Awaitable[None]]


class Outbox:
    def __init__(
        self,
        state: StateStore,
        adapters: Mapping[str, Adapter],
        *,
        on_delivered: Delivered | None = None,
        on_refused: Refused | None = None,
        base_delay: float = 1.0,
        max_delay: float = 300.0,
    ) -> None:
        self.state = state
        self.adapters = adapters
        self.on_delivered = on_delivered
        self.on_refused = on_refused
        #: answers refused for good, oldest first (the recent ones: see :meth:`refusals`)
        self.refused: list[Refusal] = []
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.parcels: list[Parcel] = []
        #: spoken copies whose answers arrived in writing, tried apart (best-effort)
        self.voices: list[Parcel] = []
        self._wake = asyncio.Event()
        self._task = LoopTask(self._loop)

    async def load(self) -> None:
        """Read the parcels an earlier process left (call once, at start); each is tried at
        once, its backoff going on from its attempts so far."""
        for row in await self.state.outbox_rows():
            number, platform, event_id, user, persona, raw, attempts, created, _next = row
            try:
                steps = steps_from_json(json.loads(raw))
            except (ValueError, KeyError) as exc:
                log.error("outbox.unreadable", row=number, error=str(exc))
                continue
            parcel = Parcel(platform, event_id, user, persona, steps, True, created, attempts)
            parcel.row = number
            self.parcels.append(parcel)
        if self.parcels:
            log.info("outbox.loaded", parcels=len(self.parcels))
        since = time.time() - REFUSALS_SHOWN_SECONDS
        self.refused.extend(Refusal(*row) for row in await self.state.undelivered_rows(since))

    async def put(self, parcel: Parcel, *, tried: bool = True) -> None:
        """Keep ``parcel`` until delivered: in the database when durable (its event becomes
        ``queued``), else in memory. The first retry comes after the base delay; an
        untried parcel (queued behind others) goes as soon as those before it did."""
        if tried:
            parcel.attempts = max(parcel.attempts, 1)
            parcel.next_at = time.time() + self._delay(parcel.attempts)
        else:
            parcel.next_at = time.time()
        if parcel.durable:
            parcel.row = await self.state.outbox_add(
                parcel.platform,
                parcel.event_id,
                parcel.user,
                parcel.persona,
                json.dumps(steps_to_json(parcel.steps)),
                parcel.next_at,
                parcel.room,
            )
        self.parcels.append(parcel)
        log.warning("outbox.queued", platform=parcel.platform, steps=len(parcel.steps))
        self._wake.set()

    def holds(self, platform: str, event_id: str) -> bool:
        return any(p.platform == platform and p.event_id == event_id for p in self.parcels)

    def waiting_in(self, platform: str, room: str) -> bool:
        """Whether answers to ``room`` wait here (a new one must go after them)."""
        return any(p.platform == platform and p.room == room for p in self.parcels)

    def holds_unwritten(self, platform: str, room: str) -> bool:
        """Whether an answer kept in memory only (one said Off The Record) waits for
        ``room``."""
        return any(
            p.platform == platform and p.room == room and not p.durable for p in self.parcels
        )

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

    def backlog(self, platform: str) -> tuple[int, float]:
        """How many parcels wait for ``platform``, and the age in seconds of the oldest."""
        mine = [p for p in self.parcels if p.platform == platform]
        oldest = min((p.created_at for p in mine), default=time.time())
        return len(mine), max(0.0, time.time() - oldest)

    def backing_up(self, platform: str) -> str | None:
        """Why ``platform``'s outbox is backing up, or None."""
        count, age = self.backlog(platform)
        if count > BACKLOG_PARCELS or (count and age > BACKLOG_SECONDS):
            return f"outbox backing up: {count} answers waiting, the oldest for {age:.0f}s"
        return None

    def _delay(self, attempts: int) -> float:
        return jittered_backoff(attempts, self.base_delay, self.max_delay)

    # -- the delivery task ------------------------------------------------------------------

    def start(self) -> None:
        self._task.start()

    async def stop(self) -> None:
        await self._task.stop()
        in_memory = sum(not p.durable for p in self.parcels)
        if in_memory:  # their events stay unfinished: a redelivery is answered afresh
            log.warning("outbox.memory_parcels_dropped", count=in_memory)
        if self.voices:  # their answers arrived in writing
            log.warning("outbox.unspoken", count=len(self.voices), error="the daemon stopped")

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            await self.run_due()
            due = min((p.next_at for p in [*self.parcels, *self.voices]), default=None)
            timeout = None if due is None else max(0.05, due - time.time())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    async def run_due(self, *, now: float | None = None) -> int:
        """Try every parcel that is due; the number delivered."""
        now = time.time() if now is None else now
        blocked: set[tuple[str, str]] = set()
        delivered = 0
        for parcel in list(self.parcels):
            place = (parcel.platform, parcel.room)
            if place in blocked:
                continue
            if parcel.next_at > now:
                blocked.add(place)  # keep the room's answers in order
                continue
            outcome = await self._try(parcel)
            if outcome == "delivered":
                delivered += 1
            elif outcome == "later":
                blocked.add(place)
        for parcel in [p for p in self.voices if p.next_at <= now]:
            await self._speak(parcel)
        return delivered

    async def _speak(self, parcel: Parcel) -> None:
        self.voices.remove(parcel)
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

    async def _try(self, parcel: Parcel) -> Literal["delivered", "refused", "later"]:
        adapter = self.adapters.get(parcel.platform)
        if adapter is None or not adapter.health.running:
            await self._later(parcel, "the adapter is not running")
            return "later"
        try:
            await perform_all(adapter, parcel.steps)
        except Undelivered as exc:
            parcel.steps = exc.steps
            if spoken_only(parcel.steps):  # the written answer is in the room: delivered
                await self._delivered(parcel)
                if parcel not in self.parcels:  # else tried again, as a parcel of the room
                    self.speak_later(parcel, exc.error, permanent=exc.permanent)
                return "delivered"
            if exc.permanent:  # the room's answers after it are tried at once
                parcel.attempts += 1
                return "refused" if await self._give_up(parcel, exc.error) else "later"
            adapter.health.failed(exc.error)
            await self._later(parcel, exc.error)
            return "later"
        with contextlib.suppress(Exception):
            await adapter.reply_done(parcel.room)
        await self._delivered(parcel)
        return "delivered"

    async def _later(self, parcel: Parcel, error: str) -> None:
        parcel.attempts += 1
        parcel.next_at = time.time() + self._delay(parcel.attempts)
        log.info(
            "outbox.retry_later",
            platform=parcel.platform,
            attempts=parcel.attempts,
            retry_in=round(parcel.next_at - time.time(), 1),
            error=error,
        )
        if parcel.row is not None:
            try:
                await self.state.outbox_update(
                    parcel.row,
                    json.dumps(steps_to_json(parcel.steps)),
                    parcel.attempts,
                    parcel.next_at,
                )
            except Exception as exc:  # kept in memory; the database copy is older
                log.error("outbox.update_failed", error=str(exc))

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

    async def _delivered(self, parcel: Parcel) -> None:
        try:
            if parcel.row is not None:
                await self.state.outbox_remove(parcel.row)
            await self.state.finish_event(parcel.platform, parcel.event_id)
        except Exception as exc:
            # delivered all the same; the row is retried (its keys make that harmless)
            log.error("outbox.remove_failed", error=str(exc))
            return
        self.parcels.remove(parcel)
        log.info(
            "outbox.delivered",
            platform=parcel.platform,
            attempts=parcel.attempts,
            waited_s=round(time.time() - parcel.created_at, 1),
        )
        if self.on_delivered is not None:
            try:
                await self.on_delivered(parcel)
            except Exception as exc:
                log.error("outbox.after_delivery_failed", error=str(exc))


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
