"""Answers the platform did not take, retried until it does.

A :class:`~bot.delivery.parcel.Parcel` is what is left of one answer: its steps
(:mod:`bot.delivery.steps`), in order. On-record parcels live in ``personad.db`` (table
``outbox``), so they survive a restart; putting one there marks its event ``queued`` and
removing it marks the event ``done``, in the same statement. Off The Record parcels never
touch disk: they live in this process only, and their event stays unfinished, so if the
process ends first the platform's redelivery is answered afresh.

One task delivers what is due, oldest first, keeping each room's answers in order (a room
whose oldest parcel failed waits for it). A failure is retried after a jittered exponential
backoff (``base_delay`` doubling up to ``max_delay``, scaled by a random factor in
[0.5, 1]), for as long as the daemon runs. Each step's key makes a retry idempotent where
the platform honours keys. An answer written for a direct conversation whose room became a
group while it waited (``groups``: the rooms whose last message showed them to be groups,
:class:`~bot.turn.rooms.GroupsHeard`) is delivered as a note that it was not sent
(:func:`~bot.delivery.steps.withheld`): its prompt read the user's private files.

:class:`Outbox` is built from parts, a module each: the answers a platform refused for good,
which end instead of waiting (:mod:`bot.delivery.refusals`), and the spoken copies, which wait
apart once the written answer is in (:mod:`bot.delivery.spoken_copies`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Container, Mapping
from typing import Literal

import structlog

from adapters.base import Adapter
from bot.delivery.backoff import LoopTask, jittered_backoff
from bot.delivery.parcel import Parcel
from bot.delivery.refusals import REFUSALS_SHOWN_SECONDS, Refusal, Refusals, Refused
from bot.delivery.spoken_copies import SpokenCopies
from bot.delivery.state import StateStore
from bot.delivery.steps import (
    Undelivered,
    perform_all,
    spoken_only,
    steps_from_json,
    steps_to_json,
    withheld,
)

__all__ = ["BACKLOG_PARCELS", "BACKLOG_SECONDS", "Delivered", "Outbox"]

log = structlog.get_logger(__name__)

#: a platform's outbox is backing up (health turns 503) with more parcels than this ...
BACKLOG_PARCELS = 20
#: ... or with one waiting longer than this many seconds
BACKLOG_SECONDS = 120.0


Delivered = Callable[[Parcel], Awaitable[None]]


class Outbox(Refusals, SpokenCopies):
    def __init__(
        self,
        state: StateStore,
        adapters: Mapping[str, Adapter],
        *,
        on_delivered: Delivered | None = None,
        on_refused: Refused | None = None,
        base_delay: float = 1.0,
        max_delay: float = 300.0,
        groups: Container[str] = (),
    ) -> None:
        self.state = state
        self.adapters = adapters
        self.groups = groups
        self.on_delivered = on_delivered
        self.on_refused = on_refused
        #: answers refused for good, oldest first (the recent ones: see :meth:`refusals`)
        self.refused: list[Refusal] = []
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.parcels: list[Parcel] = []
        #: spoken copies whose answers arrived in writing, tried apart (best-effort)
        self.voices: list[Parcel] = []
        self._one_pass = asyncio.Lock()
        self._wake = asyncio.Event()
        self._task = LoopTask(self._loop)

    async def load(self) -> None:
        """Read the parcels an earlier process left (call once, at start); each is tried at
        once, its backoff going on from its attempts so far."""
        for row in await self.state.outbox_rows():
            number, platform, event_id, user, persona, raw, attempts, created, _next, private = row
            try:
                steps = steps_from_json(json.loads(raw))
            except (ValueError, KeyError) as exc:
                log.error("outbox.unreadable", row=number, error=str(exc))
                continue
            parcel = Parcel(platform, event_id, user, persona, steps, True, created, attempts)
            parcel.row, parcel.private = number, private
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
                private=parcel.private,
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
        """Try every parcel that is due; the number delivered. One pass at a time: a second
        caller waits for the pass under way, which could otherwise send a parcel it is
        sending (so nothing a pass calls may call this again)."""
        async with self._one_pass:
            return await self._pass(time.time() if now is None else now)

    async def _pass(self, now: float) -> int:
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

    async def _try(self, parcel: Parcel) -> Literal["delivered", "refused", "later"]:
        adapter = self.adapters.get(parcel.platform)
        if adapter is None or not adapter.health.running:
            await self._later(parcel, "the adapter is not running")
            return "later"
        if parcel.private and f"{parcel.platform}:{parcel.room}" in self.groups:
            parcel.steps, parcel.withheld = withheld(parcel.steps), True
            log.warning("outbox.withheld_from_group", platform=parcel.platform)
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
