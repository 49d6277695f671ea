"""A burst read as a person reads it: one user's messages in one room, kept in order, and
those that arrive while a turn runs answered together by the next one.

Every message of a user in a room takes a :class:`Ticket` in that room's :class:`Line` the
moment the router sees it, before anything is awaited, so in the order the adapter handed
them over. A ticket then waits for the tickets before it:

- a message to answer waits until each of them is *settled*: a command or a refusal has
  been answered; a message to answer has been claimed and waits for its turn. So a message
  after ``/otr on`` is claimed knowing what the command did, and messages after messages
  are claimed at once, one after the other;
- a command waits until each of them is finished: ``/new`` never runs beside the turn of the
  message before it.

Turns of a line run one at a time (:attr:`Line.turns`, first come, first served). The first
waiting ticket whose turn comes takes every ticket that waits right after it (up to a
command or a message still being claimed, as far as the router says the next one fits: within
a size, and a message with files only with the rest of its album): they are answered together,
joined in order into one message. The first message of an album (pictures an app
posts as several messages) first waits a moment for the rest (:meth:`Line.gather_album`).
From then on their events belong to that turn, which finishes them once its answer is
delivered (or releases them when it is cut off); a ticket taken by another only waits for it.
A flood far beyond any person's typing (more than ``daemon.user_queue`` messages waiting at
once) is cut at the oldest: the router answers the newest and says, once, how many it skipped.

::

    handle(m1) ──▶ claim ──▶ waits ──▶ turn(m1) ─────────────▶ finish m1
    handle(m2) ──▶ (m1 settled) claim ──▶ waits ┐
    handle(m3) ──▶ (m2 settled) claim ──▶ waits ┴▶ turn(m2 + m3) ──▶ finish m2, m3
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from adapters.base import Incoming

__all__ = ["Line", "Lines", "Ticket", "joined"]

#: seconds without a new message of an album before its turn takes them all, and the most
#: a turn waits for an album's messages
ALBUM_SETTLE = 0.7
ALBUM_WAIT = 4.0

#: what a turn did with the tickets it took: answered (their events finished or queued in
#: the outbox) or cut off (their events released, so a redelivery answers them)
Outcome = Literal["", "answered", "cut off"]


@dataclass(eq=False, slots=True)
class Ticket:
    """One message's place in its line."""

    incoming: Incoming
    #: a command (or anything answered on its own), not a message to merge
    command: bool
    settled: asyncio.Event = field(default_factory=asyncio.Event)
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    #: claimed and checked: waiting for a turn to take it
    waiting: bool = False
    #: the ticket whose turn answers this one (itself when it leads)
    taken_by: Ticket | None = None
    outcome: Outcome = ""

    def settle(self) -> None:
        self.settled.set()


def joined(tickets: list[Ticket]) -> str:
    """The text of one turn that answers ``tickets``: their messages in order, a blank line
    between two (as a person reads a burst: one thought after another)."""
    return "\n\n".join(ticket.incoming.text.strip() for ticket in tickets)


class Line:
    """One user's unfinished messages in one room, oldest first."""

    __slots__ = ("tickets", "turns")

    def __init__(self) -> None:
        self.tickets: list[Ticket] = []
        self.turns = asyncio.Lock()

    async def wait_before(self, ticket: Ticket) -> None:
        """Wait until the tickets before ``ticket`` let it go on (see the module docstring)."""
        before = self.tickets[: self.tickets.index(ticket)]
        for earlier in before:
            await (earlier.finished if ticket.command else earlier.settled).wait()

    async def gather_album(
        self, leader: Ticket, *, settle: float = ALBUM_SETTLE, longest: float = ALBUM_WAIT
    ) -> None:
        """Wait while more messages of ``leader``'s album arrive (an app posts an album's
        pictures one message each): until ``settle`` seconds pass without a new one and each
        is waiting for its turn, or ``longest`` seconds in all."""
        album = leader.incoming.album
        loop = asyncio.get_running_loop()
        deadline = loop.time() + longest
        seen = -1
        while loop.time() < deadline:
            siblings = [t for t in self.tickets if t.incoming.album == album]
            if len(siblings) == seen and all(t.waiting for t in siblings):
                return
            seen = len(siblings)
            await asyncio.sleep(min(settle, max(0.0, deadline - loop.time())))

    def take(self, leader: Ticket, fits: Callable[[list[Ticket], Ticket], bool]) -> list[Ticket]:
        """The tickets the turn of ``leader`` answers: ``leader`` and each waiting ticket right
        after it that no turn took yet, while ``fits(taken, next)`` says the next one fits."""
        start = self.tickets.index(leader)
        batch = [leader]
        for ticket in self.tickets[start + 1 :]:
            if not ticket.waiting or ticket.taken_by is not None or not fits(batch, ticket):
                break
            batch.append(ticket)
        for ticket in batch:
            ticket.taken_by = leader
        return batch

    def waiting_after(self, leader: Ticket) -> int:
        """How many tickets wait right after ``leader`` for a turn."""
        count = 0
        for ticket in self.tickets[self.tickets.index(leader) + 1 :]:
            if not ticket.waiting or ticket.taken_by is not None:
                break
            count += 1
        return count


class Lines:
    """Every user's lines, made on a message's arrival and dropped once empty."""

    __slots__ = ("_lines",)

    def __init__(self) -> None:
        self._lines: dict[tuple[str, str], Line] = {}

    def enter(self, user: str, room: str, incoming: Incoming, *, command: bool) -> Ticket:
        """A ticket for ``incoming`` at the end of ``user``'s line in ``room`` (synchronous:
        the order of calls is the order of the line)."""
        line = self._lines.get((user, room))
        if line is None:
            line = self._lines[(user, room)] = Line()
        ticket = Ticket(incoming, command)
        line.tickets.append(ticket)
        return ticket

    def line(self, user: str, room: str) -> Line:
        return self._lines[(user, room)]

    def leave(self, user: str, room: str, ticket: Ticket) -> None:
        """``ticket`` is done with: the tickets after it may go on."""
        ticket.waiting = False
        ticket.settled.set()
        ticket.finished.set()
        line = self._lines.get((user, room))
        if line is None:
            return
        if ticket in line.tickets:
            line.tickets.remove(ticket)
        if not line.tickets:
            del self._lines[(user, room)]

    def waiting(self) -> int:
        """Messages waiting in every line (for ``/status``)."""
        return sum(len(line.tickets) for line in self._lines.values())
