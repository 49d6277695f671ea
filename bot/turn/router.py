"""From a platform event to an answer, in two steps: decide, then handle.

Deciding runs the cross-cutting layers in order: bind the log context, note whether the room
is a group (:class:`~bot.turn.rooms.GroupsHeard`: whoever spoke, so the user's private notices
are never said there), identify the sender (unknown senders are ignored), skip group messages
not addressed to the persona (an album's pictures are addressed by the one whose caption
names it, :mod:`bot.turn.albums`), take the message's place in the sender's line in the room
(:mod:`bot.turn.burst`), claim the event id (a duplicate is dropped, across restarts), wait for
its turn in that line (:mod:`bot.turn.turn_taking`), admit it under the sender's queue bound
and rate limit (:mod:`bot.turn.admission`), and check the input (kind, empty, too long).
Handling (:mod:`bot.turn.handling`) is either a command from the shared table
(:mod:`bot.turn.command_running`) or a turn of the sender's session. No failure escapes
:meth:`Router.handle`: a known one becomes a short reply, any other a log line.

An on-record message is kept with its claim until answered (:mod:`bot.delivery.inbox`), its secrets
withheld first (:mod:`bot.memory.secrets.door`): a replay after a crash answers the withheld
text. An answer kept in the outbox has its secrets withheld too.

An event is finished only once its whole answer is delivered. A turn that is cancelled
(shutdown, an adapter restart) or fails is released unfinished, so a redelivery answers it
(claim ``retry``), editing the first message an earlier attempt left (the delivery ledger).
An answer the platform does not take goes to the outbox (Off The Record, a turn's answer and a
command's reply alike, in memory only), which finishes the event once it is delivered; one the
platform refused for good (the bot was kicked or blocked) is recorded as refused and the event
finished, never retried (:mod:`bot.turn.answer_delivery`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

import structlog

from adapters.base import Adapter, Incoming
from bot.commands.table import parse_command
from bot.daemon.health import HealthCheck
from bot.daemon.logs import bound
from bot.delivery.outbox import Outbox
from bot.delivery.state import StateStore
from bot.media.prepare import MediaReader
from bot.memory.secrets.door import answerable, withhold_async
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.turn.admission import Admission, Verdict
from bot.turn.albums import AddressedAlbums
from bot.turn.burst import Lines, Ticket
from bot.turn.formatting import well_formed
from bot.turn.rooms import GroupsHeard, OffTheRecord, Room
from bot.turn.sessions import SessionManager
from bot.turn.turn_taking import TurnTaking
from bot.turn.voice import VoiceReplies

__all__ = ["Router"]

log = structlog.get_logger(__name__)


class Router(TurnTaking):
    """Decides what to do with each platform event, then has it handled. Its parts, in the
    order a message meets them: the line (:class:`~bot.turn.turn_taking.TurnTaking`),
    handling (:class:`~bot.turn.handling.Handling`), commands
    (:class:`~bot.turn.command_running.CommandRunning`) and the answer's delivery
    (:class:`~bot.turn.answer_delivery.AnswerDelivery`)."""

    def __init__(
        self,
        *,
        config: Config,
        state: StateStore,
        store: PersonaStore,
        sessions: SessionManager,
        adapters: Mapping[str, Adapter] | None = None,
        reload: Callable[[], Awaitable[str]] | None = None,
        distill: Callable[[str, str, str], Awaitable[str]] | None = None,
        groups: GroupsHeard | None = None,
    ) -> None:
        self.config = config
        self.state = state
        self.store = store
        self.sessions = sessions
        self.adapters: dict[str, Adapter] = dict(adapters or {})
        self._reload = reload
        self._distill = distill
        self.started_at = time.monotonic()
        self.in_flight = 0
        #: set when the daemon stops: new on-record messages are left for the next process
        self.closing = False
        #: which users are Off The Record in which rooms
        self.otr = OffTheRecord(state)
        #: the rooms a message showed to be groups (where private notices are held back)
        self.groups = groups if groups is not None else GroupsHeard()
        #: which rooms hear answers spoken too
        self.voice = VoiceReplies(state, config.media.voice_replies)
        #: reads pictures, voice notes and documents (set by the daemon; None: text only)
        self.media: MediaReader | None = None
        self._active: dict[str, str | None] = {}
        self._background: set[asyncio.Task[object]] = set()
        self.admission = Admission(lambda: self.config.daemon)
        #: each user's messages in each room, in order; a burst answered as one turn
        self.lines = Lines()
        #: the albums a message of which was addressed (the others of it are, too)
        self.albums = AddressedAlbums()
        #: (user, platform) -> persona, for a console started with ``--persona``
        self.pinned: dict[tuple[str, str], str] = {}
        #: where answers the platform did not take wait (set by the daemon)
        self.outbox: Outbox | None = None
        #: why adapters are unhealthy, for ``/status all`` (set by the daemon)
        self.health: HealthCheck | None = None
        #: events being answered again after an earlier attempt was cut off
        self._retrying: set[tuple[str, str]] = set()
        #: events whose answer went to the outbox (finished when it is delivered)
        self._queued: set[tuple[str, str]] = set()
        #: events said Off The Record and not finished yet, with their room: answered off
        #: the record even when the mode ends before their turn (a redelivery, a turn
        #: waiting its line)
        self._said_off_record: dict[tuple[str, str], str] = {}
        #: the tasks handling events right now, so shutdown can cancel what drain left
        self._handling: set[asyncio.Task[Any]] = set()
        #: room key -> persona, for rooms that talk to one persona (a web conversation)
        self.room_persona: dict[str, str] = {}

    async def load(self) -> None:
        """Read every configured user's chosen persona, the rooms' Off The Record modes and
        the groups heard once, at start, instead of on each user's first message."""
        await self.otr.load()
        await self.groups.load(self.state)
        chosen = await self.state.active_personas()
        for user in self.config.users:
            self._active[user] = chosen.get(user)

    def answers_off_record(self, platform: str, room: str) -> bool:
        """Whether a message said Off The Record in ``room`` of ``platform`` is still being
        answered (the mode may have ended since)."""
        return any(
            event[0] == platform and where == room for event, where in self._said_off_record.items()
        )

    # -- step 1: decide --------------------------------------------------------------------

    def identify(self, incoming: Incoming) -> str | None:
        if incoming.platform == "web":
            # the web console signed this user in; no other platform can send as "web"
            return incoming.sender if incoming.sender in self.config.users else None
        return self.config.user_for_identity(incoming.identity)

    @staticmethod
    def room_of(incoming: Incoming) -> Room:
        return Room(incoming.platform, incoming.room, shared=not incoming.is_direct)

    async def handle(self, incoming: Incoming) -> None:
        """The handler every adapter calls. Never raises."""
        incoming = _well_formed(incoming)
        with bound(platform=incoming.platform, room=incoming.room, event_id=incoming.event_id):
            self.in_flight += 1
            task = asyncio.current_task()
            if task is not None:
                self._handling.add(task)
            try:
                await self._decide(incoming)
            except Exception as exc:
                log.exception("router.failed", error=type(exc).__name__)
            finally:
                self.in_flight -= 1
                if task is not None:
                    self._handling.discard(task)

    def cancel_handling(self) -> int:
        """Cancel every event still being handled (their events stay unfinished)."""
        for task in self._handling:
            task.cancel()
        return len(self._handling)

    async def _decide(self, incoming: Incoming) -> None:
        # before anything is skipped: a stranger's message, or one to someone else, says
        # as well as the user's that the room is a group
        self.groups.heard(self.room_of(incoming).key, group=not incoming.is_direct)
        user = self.identify(incoming)
        if user is None:
            log.info("router.unknown_sender", sender=incoming.sender)
            return
        if not self.albums.addressed(incoming) and not await self.albums.named_soon(incoming):
            return  # in a group, neither it nor its album names the persona
        room = self.room_of(incoming)
        # the place in the user's line in this room is taken before anything is awaited,
        # so the line's order is the order the adapter handed the messages over
        alone = parse_command(incoming.text) is not None or bool(self._input_problem(incoming))
        ticket = self.lines.enter(user, room.key, incoming, command=alone)
        try:
            await self.lines.line(user, room.key).wait_before(ticket)
            await self._claimed(incoming, user, room, ticket)
        finally:
            self.lines.leave(user, room.key, ticket)

    async def _claimed(self, incoming: Incoming, user: str, room: Room, ticket: Ticket) -> None:
        # an on-record message is kept with its claim until answered, so a restart that cuts
        # its turn off answers it even where the platform does not deliver it again
        event = (incoming.platform, incoming.event_id)
        off_record = self._off_record(user, room, incoming)
        claim = await self.state.claim_event(
            incoming.platform,
            incoming.event_id,
            keep=None if off_record else await self._withheld(incoming, user, room),
        )
        if claim == "duplicate":
            log.info("router.duplicate")
            return
        if off_record:
            self._said_off_record[event] = incoming.room
        if self.closing and not off_record:
            # the daemon is stopping: the message waits, kept with its claim, for the next
            # process (bot.delivery.inbox), so the drain waits only for the turns already running
            await self.state.event_recorded(*event)
            self.state.release_event(*event)
            log.info("router.deferred_to_next_start")
            return
        with bound(user=user):
            if claim == "retry":
                log.info("router.retry_unfinished")
                self._retrying.add(event)
            try:
                if not ticket.command:
                    try:
                        await self._in_line(ticket, user, room)
                    except BaseException:
                        if ticket.taken_by is None:  # a turn that took it releases it
                            self.state.release_event(*event)
                        raise
                    return
                try:
                    # a message answered alone (a command, a refusal of its input) is counted
                    # in the command bucket; one cut off earlier was counted the first time
                    verdict = (
                        self.admission.command(user, incoming.platform)
                        if claim != "retry"
                        else Verdict(True)
                    )
                    if verdict.admitted:
                        await self._handle(incoming, user, room)
                    elif verdict.notice and (adapter := self.adapters.get(incoming.platform)):
                        await self._say(adapter, incoming, verdict.notice)
                except BaseException:
                    # cut off before its answer was delivered: a redelivery answers it
                    self.state.release_event(*event)
                    raise
                await self._finish(event)
            finally:
                self._retrying.discard(event)

    async def _withheld(self, incoming: Incoming, user: str, room: Room) -> Incoming:
        """``incoming`` as the inbox keeps it: its secrets withheld, with the room's last
        message in the user's live sessions as the one before it (a value answering "what's
        the wifi password?")."""
        previous = next(
            (
                answerable(entries, incoming.event_id)
                for session in self.sessions.of_user(user)
                if (entries := session.entries(room))
            ),
            (),
        )
        text = await withhold_async(incoming.text, previous=previous)
        return incoming if text == incoming.text else replace(incoming, text=text)


def _well_formed(incoming: Incoming) -> Incoming:
    """``incoming`` with what its sender wrote (the text, their name, the files' names) made
    well formed (:func:`~bot.turn.formatting.well_formed`): a lone surrogate would otherwise
    fail every write of the message, its claim first, and it would go unanswered."""
    text, name = well_formed(incoming.text), incoming.sender_name
    name = well_formed(name) if name is not None else None
    files = tuple(replace(file, name=well_formed(file.name)) for file in incoming.attachments)
    if text == incoming.text and name == incoming.sender_name and files == incoming.attachments:
        return incoming
    return replace(incoming, text=text, sender_name=name, attachments=files)
