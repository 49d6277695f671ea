"""A message to answer waits its turn in the sender's line in the room, and the turn that
comes answers it together with those waiting after it (:mod:`bot.turn.burst`).

The first ticket whose turn comes leads: it takes its turn's token (:mod:`bot.turn.admission`),
cuts a flood at the oldest (one reply says how many were skipped), waits a moment for the
rest of an album, and takes every ticket after it that fits into one message. Their events
belong to that turn from then on: finished once its answer is delivered, or all released
when it is cut off, so a redelivery answers them.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import structlog

from bot.turn.admission import Admission
from bot.turn.burst import Line, Lines, Ticket, joined
from bot.turn.handling import Handling
from bot.turn.rooms import Room

__all__ = ["TurnTaking"]

log = structlog.get_logger(__name__)


class TurnTaking(Handling):
    """The router's lines of messages (a part of :class:`~bot.turn.router.Router`)."""

    # what it uses of the router
    admission: Admission
    lines: Lines

    async def _in_line(self, ticket: Ticket, user: str, room: Room) -> None:
        """A message to answer: wait for the line's turn; the first ticket whose turn comes
        answers itself and those waiting after it, together (:mod:`bot.turn.burst`)."""
        line = self.lines.line(user, room.key)
        ticket.waiting = True
        ticket.settle()
        async with line.turns:
            if ticket.taken_by is None:
                await self._lead(line, ticket, user, room)
        if ticket.outcome == "cut off":
            # the turn that took it was cut off and released its event: so is this one
            raise asyncio.CancelledError

    @staticmethod
    def _said(ticket: Ticket) -> tuple[str, str]:
        """The event of ``ticket``'s message."""
        return (ticket.incoming.platform, ticket.incoming.event_id)

    def _fits(self, batch: list[Ticket], ticket: Ticket) -> bool:
        """Whether ``ticket`` joins the turn of ``batch``: together within the longest
        message the daemon takes, and typed messages only with typed ones. A message with
        files is answered on its own or with the rest of its album, so a file that cannot be
        read never takes the messages around it down with it."""
        size = sum(len(taken.incoming.text) + 2 for taken in batch) + len(ticket.incoming.text)
        if size > self.config.daemon.max_message_chars:
            return False
        files = [bool(t.incoming.attachments) for t in [*batch, ticket]]
        if not any(files):
            return True
        album = ticket.incoming.album
        return all(files) and bool(album) and all(t.incoming.album == album for t in batch)

    async def _lead(self, line: Line, leader: Ticket, user: str, room: Room) -> None:
        """Answer ``leader`` and the tickets waiting after it in one turn; finish every
        event it took once the answer is delivered, or release them all when cut off."""
        incoming = leader.incoming
        if (incoming.platform, incoming.event_id) not in self._retrying:
            # one cut off earlier had its turn's token then
            await self.admission.turn(user, incoming.platform)
        batch: list[Ticket] = []
        try:
            cap = self.admission.flood_cap
            waiting = line.waiting_after(leader) + 1
            if waiting > cap:
                skipped = line.take(leader, lambda taken, _next: len(taken) < waiting - cap)
                await self._skip(skipped, user, cap)
                leader = next(t for t in line.tickets if t.waiting and t.taken_by is None)
            if leader.incoming.album:
                await line.gather_album(leader)
            batch = line.take(leader, self._fits)
            last = batch[-1].incoming
            # the files in the order they came: an album's pictures that waited for the one
            # whose caption named the persona took their places after it
            sent = sorted(batch, key=lambda taken: taken.incoming.received_at)
            merged = (
                last
                if len(batch) == 1
                else replace(
                    last,
                    text=joined(batch),
                    attachments=tuple(a for t in sent for a in t.incoming.attachments),
                )
            )
            if len(batch) > 1:
                log.info("router.burst", messages=len(batch))
                if any(self._said(t) in self._said_off_record for t in batch):
                    # one message of the burst said off the record: the turn is so
                    self._said_off_record[self._said(batch[-1])] = last.room
            await self._handle(merged, user, room)
        except BaseException:
            self._release(batch)
            raise
        await self._answered(batch)

    async def _skip(self, skipped: list[Ticket], user: str, kept: int) -> None:
        """The oldest messages of a flood: not answered; one reply says how many."""
        first = skipped[0].incoming
        notice = self.admission.flood_notice(user, len(skipped), kept)
        adapter = self.adapters.get(first.platform)
        try:
            if notice and adapter is not None:
                await self._say(adapter, first, notice)
        except BaseException:
            self._release(skipped)
            raise
        await self._answered(skipped)

    async def _answered(self, tickets: list[Ticket]) -> None:
        """The turn that took ``tickets`` is done with them (answered, or skipped with a
        notice): each event finished, each ticket still waiting learns so."""
        for ticket in tickets:
            await self._finish((ticket.incoming.platform, ticket.incoming.event_id))
            ticket.outcome = "answered"

    def _release(self, tickets: list[Ticket]) -> None:
        """The turn that took ``tickets`` was cut off: their events are released unfinished,
        so a redelivery answers them, and each ticket still waiting learns so."""
        for ticket in tickets:
            ticket.outcome = "cut off"
            self.state.release_event(ticket.incoming.platform, ticket.incoming.event_id)
