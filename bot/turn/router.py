"""From a platform event to an answer, in two steps: decide, then handle.

Deciding runs the cross-cutting layers in order: bind the log context, identify the sender
(unknown senders are ignored), skip group messages not addressed to the persona, claim the
event id (a duplicate is dropped, across restarts), admit it under the sender's queue bound
and rate limit (:mod:`bot.turn.admission`), and check the input (kind, empty,
too long). Handling is either a command from the shared table or a turn of the sender's
session. No failure escapes :meth:`Router.handle`: it becomes a short reply and a log line.

An on-record message is kept with its claim until answered (:mod:`bot.delivery.inbox`), its secrets
withheld first (:mod:`bot.memory.secrets.door`): a replay after a crash answers the withheld
text. An answer kept in the outbox has its secrets withheld too.

An event is finished only once its whole answer is delivered. A turn that is cancelled
(shutdown, an adapter restart) or fails is released unfinished, so a redelivery answers it
(claim ``retry``), editing the first message an earlier attempt left (the delivery ledger).
An answer the platform does not take goes to the outbox (Off The Record, a turn's answer and a
command's reply alike, in memory only), which finishes the event once it is delivered; one the
platform refused for good (the bot was kicked or blocked) is recorded as refused and the event
finished, never retried.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Literal

import structlog

import bot.commands.handlers  # noqa: F401  (fills the command table)
from adapters.base import Adapter, Incoming
from bot.commands.table import ADMIN_ONLY, CommandContext, lookup, parse_command, unknown_command
from bot.daemon.errors import PersonadError
from bot.daemon.health import HealthCheck
from bot.daemon.logs import bound
from bot.delivery.outbox import Outbox, Parcel
from bot.delivery.state import StateStore
from bot.delivery.steps import Step, Undelivered, answer_key, spoken_only
from bot.media.kinds import SUPPORTED
from bot.media.prepare import MediaReader, Reading
from bot.memory.secrets.detector import redact_secrets
from bot.memory.secrets.door import answerable, withhold, withhold_async
from bot.persona.store import PersonaStore
from bot.setup.config import Config
from bot.turn.admission import Admission, Verdict
from bot.turn.burst import Line, Lines, Ticket, joined
from bot.turn.reply import ReplyStream
from bot.turn.rooms import OffTheRecord, Room
from bot.turn.sessions import SessionManager
from bot.turn.voice import VoiceReplies, spoken_text

__all__ = ["DELIVERED", "QUEUED", "REFUSED", "Router"]

log = structlog.get_logger(__name__)

#: why an answer goes to the outbox untried: earlier answers to its room wait there
BEHIND = "earlier answers to this room wait in the outbox"
#: the session log's event lines around an answer the outbox delivers later
QUEUED = "answer queued"
DELIVERED = "answer delivered"
#: ... and the line of an answer the platform refused for good (its reason: ``/status``)
REFUSED = "answer refused by the platform"

SORRY = "Something went wrong on my side and I couldn't answer that. Please try again."


def _withheld_step(step: Step, values: Sequence[tuple[str, str]] = ()) -> Step:
    """A step as the outbox keeps it on disk: every secret withheld, the turn's own values
    (in whatever shape the reply repeats them) among them."""
    text = withhold(redact_secrets(step.text), values=values)
    return step if text == step.text else replace(step, text=text)


async def _not_available(*_args: str) -> str:
    return "That is not available in this mode."


class Router:
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
        #: which rooms hear answers spoken too
        self.voice = VoiceReplies(state, config.media.voice_replies)
        #: reads pictures, voice notes and documents (set by the daemon; None: text only)
        self.media: MediaReader | None = None
        self._active: dict[str, str | None] = {}
        self._background: set[asyncio.Task[object]] = set()
        self.admission = Admission(lambda: self.config.daemon)
        #: each user's messages in each room, in order; a burst answered as one turn
        self.lines = Lines()
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
        #: the tasks handling events right now, so shutdown can cancel what drain left
        self._handling: set[asyncio.Task[Any]] = set()
        #: room key -> persona, for rooms that talk to one persona (a web conversation)
        self.room_persona: dict[str, str] = {}

    def _after_turn(self, work: Coroutine[Any, Any, object]) -> None:
        """Run follow-up work in the background; it counts as in flight until done, so
        shutdown waits for it."""
        self.in_flight += 1
        task = asyncio.create_task(work)
        self._background.add(task)

        def done(finished: asyncio.Task[object]) -> None:
            self._background.discard(finished)
            self.in_flight -= 1
            if not finished.cancelled() and finished.exception() is not None:
                log.error("router.after_turn_failed", error=str(finished.exception()))

        task.add_done_callback(done)

    async def load(self) -> None:
        """Read every configured user's chosen persona and the rooms' Off The Record modes
        once, at start, instead of on each user's first message."""
        await self.otr.load()
        chosen = await self.state.active_personas()
        for user in self.config.users:
            self._active[user] = chosen.get(user)

    async def set_active_persona(self, user: str, persona: str) -> None:
        await self.state.set_active_persona(user, persona)
        self._active[user] = persona

    async def reload(self) -> str:
        return await (self._reload or _not_available)()

    async def distill(self, user: str, persona: str, kind: str) -> str:
        if self._distill is None:
            return await _not_available()
        return await self._distill(user, persona, kind)

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
        user = self.identify(incoming)
        if user is None:
            log.info("router.unknown_sender", sender=incoming.sender)
            return
        if not incoming.addressed:
            return
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
        off_record = self.otr.is_on(user, room)
        claim = await self.state.claim_event(
            incoming.platform,
            incoming.event_id,
            keep=None if off_record else await self._withheld(incoming, user, room),
        )
        if claim == "duplicate":
            log.info("router.duplicate")
            return
        event = (incoming.platform, incoming.event_id)
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

    async def _finish(self, event: tuple[str, str]) -> None:
        if event in self._queued:
            self._queued.discard(event)  # the outbox finishes it on delivery
        else:
            await self.state.finish_event(*event)

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
                for ticket in skipped:
                    ticket.outcome = "answered"
                leader = next(t for t in line.tickets if t.waiting and t.taken_by is None)
            if leader.incoming.album:
                await line.gather_album(leader)
            batch = line.take(leader, self._fits)
            last = batch[-1].incoming
            merged = (
                last
                if len(batch) == 1
                else replace(
                    last,
                    text=joined(batch),
                    attachments=tuple(a for t in batch for a in t.incoming.attachments),
                )
            )
            if len(batch) > 1:
                log.info("router.burst", messages=len(batch))
            await self._handle(merged, user, room)
        except BaseException:
            for ticket in batch:
                ticket.outcome = "cut off"
                self.state.release_event(ticket.incoming.platform, ticket.incoming.event_id)
            raise
        for ticket in batch:
            await self._finish((ticket.incoming.platform, ticket.incoming.event_id))
            ticket.outcome = "answered"

    async def _skip(self, skipped: list[Ticket], user: str, kept: int) -> None:
        """The oldest messages of a flood: not answered; one reply says how many."""
        first = skipped[0].incoming
        notice = self.admission.flood_notice(user, len(skipped), kept)
        adapter = self.adapters.get(first.platform)
        try:
            if notice and adapter is not None:
                await self._say(adapter, first, notice)
        except BaseException:
            for ticket in skipped:
                ticket.outcome = "cut off"
                self.state.release_event(ticket.incoming.platform, ticket.incoming.event_id)
            raise
        for ticket in skipped:
            await self._finish((ticket.incoming.platform, ticket.incoming.event_id))

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

    def _input_problem(self, incoming: Incoming) -> str | None:
        if incoming.attachments and self.media is not None:
            return self._too_long(incoming)  # a caption may be empty: the files are the message
        if incoming.kind == "attachment" and self.media is not None:
            return f"{SUPPORTED}; I can't open that kind of message."
        if incoming.kind != "text":
            return "I can only read text messages; attachments and other content are not supported."
        if not incoming.text.strip():
            return "Your message was empty, so there is nothing to answer."
        return self._too_long(incoming)

    def _too_long(self, incoming: Incoming) -> str | None:
        limit = self.config.daemon.max_message_chars
        if len(incoming.text) > limit:
            return (
                f"Your message is {len(incoming.text):,} characters long; the limit is"
                f" {limit:,}. Please shorten it or send it in parts."
            )
        return None

    # -- step 2: handle --------------------------------------------------------------------

    async def _handle(self, incoming: Incoming, user: str, room: Room) -> None:
        adapter = self.adapters.get(incoming.platform)
        if adapter is None:
            log.error("router.no_adapter")
            return
        problem = self._input_problem(incoming)
        if problem:
            await self._say(adapter, incoming, problem)
            return
        persona = (
            self.pinned.get((user, incoming.platform))
            or self.room_persona.get(room.key)
            or await self.persona_for(user)
        )
        # while Off The Record, the log context says so and no log line carries what was
        # said (bot.daemon.logs withholds free text from such lines)
        mode = (
            bound(persona=persona, otr=True)
            if self.otr.is_on(user, room)
            else bound(persona=persona)
        )
        with mode:
            command = parse_command(incoming.text)
            if command is not None:
                await self._command(adapter, incoming, user, persona, *command)
            else:
                await self._turn(adapter, incoming, user, persona, room)

    async def persona_for(self, user: str) -> str:
        if user not in self._active:
            self._active[user] = await self.state.get_active_persona(user)
        active = self._active[user]
        if active and self.store.directory(user, active).is_dir():
            return active
        user_config = self.config.users.get(user)
        return user_config.default_persona if user_config else "inara"

    def _reply(
        self, adapter: Adapter, incoming: Incoming, *, stream: bool, first: str | None = None
    ) -> ReplyStream:
        """The answer to ``incoming``, its messages keyed by the event."""
        platform, event_id = incoming.platform, incoming.event_id

        async def record(message_id: str) -> None:
            await self.state.record_message(platform, event_id, incoming.room, message_id)

        return ReplyStream(
            adapter,
            incoming.room,
            reply_to=event_id,
            interval=self.config.daemon.stream_edit_seconds,
            stream=stream,
            before_send=partial(self.state.event_recorded, platform, event_id),
            key=partial(answer_key, platform, event_id),
            message_id=first,
            retry=(platform, event_id) in self._retrying,
            on_first_message=record,
        )

    async def _deliver(
        self,
        reply: ReplyStream,
        incoming: Incoming,
        text: str,
        *,
        owner: tuple[str, str] = ("", ""),
        otr: bool = False,
        secrets: Sequence[tuple[str, str]] = (),
        spoken: str | None = None,
    ) -> Literal["delivered", "queued", "refused"]:
        """Deliver ``text`` as the whole answer (then ``spoken`` as a voice message); what
        the platform does not take goes to the outbox (in memory only when Off The Record),
        unless the platform refused it for good: then the outbox records the refusal and
        nothing retries it."""
        outbox = self.outbox
        behind = outbox is not None and outbox.waiting_in(incoming.platform, incoming.room)
        try:
            await reply.finish(text, behind=BEHIND if behind else None, spoken=spoken)
            return "delivered"
        except Undelivered as exc:
            if spoken_only(exc.steps):  # the written answer arrived; its voice is best-effort
                if outbox is not None:
                    voice = Parcel(incoming.platform, incoming.event_id, *owner, exc.steps, False)
                    outbox.speak_later(voice, exc.error, permanent=exc.permanent)
                return "delivered"
            if outbox is None:
                raise
            # kept on disk, an answer waits with its secrets withheld (and is delivered so)
            steps = exc.steps if otr else [_withheld_step(step, secrets) for step in exc.steps]
            parcel = Parcel(incoming.platform, incoming.event_id, *owner, steps, not otr)
            if exc.permanent:
                await outbox.refuse(parcel, exc.error)
                return "refused"
            if not behind:
                log.warning("reply.undelivered", error=exc.error, steps=len(exc.steps))
            await outbox.put(parcel, tried=not behind)
            self._queued.add((incoming.platform, incoming.event_id))
            if parcel.durable:
                self.state.event_queued(incoming.platform, incoming.event_id)
            return "queued"

    async def _read(self, adapter: Adapter, incoming: Incoming) -> Reading:
        """What the turn of ``incoming`` reads: its text, or its attachments made readable
        (:mod:`bot.media.prepare`; a :class:`MediaError` says why one cannot be)."""
        if not incoming.attachments or self.media is None:
            return Reading(incoming.text)
        reading = await self.media.read(incoming, adapter)
        log.info(
            "media.read", attachments=len(incoming.attachments), pictures=len(reading.pictures)
        )
        return reading

    def _echoed(self, reading: Reading, reply: str) -> str:
        """The answer, with a voice note's transcript quoted above it when so configured."""
        if not reading.transcript or not self.config.media.echo_transcript:
            return reply
        quoted = "\n".join(f"> {line}" for line in reading.transcript.splitlines())
        return f"{quoted}\n\n{reply}"

    async def _speaks(self, adapter: Adapter, room: Room) -> bool:
        """Whether the answer in ``room`` is spoken too (``/voice``, and a way to speak)."""
        return adapter.can_speak and await self.voice.wanted(room)

    async def _say(self, adapter: Adapter, incoming: Incoming, text: str) -> None:
        """Deliver a short reply of the daemon's own (a command's answer, a refusal): Off
        The Record it waits in memory only, like a turn's answer, since it may quote what
        the user typed (``/search WORDS``, an unknown ``/WORD``)."""
        user = self.identify(incoming)
        otr = user is not None and self.otr.is_on(user, self.room_of(incoming))
        reply = self._reply(adapter, incoming, stream=False)
        await self._deliver(reply, incoming, text, otr=otr)

    async def _command(
        self,
        adapter: Adapter,
        incoming: Incoming,
        user: str,
        persona: str,
        name: str,
        args: list[str],
    ) -> None:
        command = lookup(name)
        if command is None:
            await self._say(adapter, incoming, unknown_command(name))
            return
        user_config = self.config.users.get(user)
        admin = bool(user_config and user_config.admin)
        if command.admin and not admin:
            log.warning("command.refused", command=name)
            await self._say(adapter, incoming, ADMIN_ONLY)
            return
        log.info("command.run", command=name)
        context = CommandContext(incoming, user, persona, admin, args, self)
        try:
            answer = await command.handler(context)
        except PersonadError as exc:
            log.warning("command.failed", command=name, error=str(exc))
            answer = exc.user_message
        except Exception:
            log.exception("command.crashed", command=name)
            answer = SORRY
        await self._say(adapter, incoming, answer)

    async def _turn(
        self, adapter: Adapter, incoming: Incoming, user: str, persona: str, room: Room
    ) -> None:
        started = time.perf_counter()
        try:
            session = await self.sessions.get(user, persona)
        except PersonadError as exc:
            await self._say(adapter, incoming, exc.user_message)
            return
        event = (incoming.platform, incoming.event_id)
        async with session.lock:
            first = await self.state.first_message(*event) if event in self._retrying else None
            # while earlier answers to the room wait, this one does not stream ahead of them
            waiting = self.outbox is not None and self.outbox.waiting_in(
                incoming.platform, incoming.room
            )
            reply = self._reply(adapter, incoming, stream=not waiting, first=first)
            owner = (user, persona)
            otr = self.otr.is_on(user, room)
            async with reply:
                try:
                    answered = event in self._retrying and session.has_answered(
                        room, incoming.event_id, otr=otr
                    )
                    reading = (
                        Reading(incoming.text) if answered else await self._read(adapter, incoming)
                    )
                    outcome = await session.turn(
                        reading.text,
                        room=room,
                        otr=otr,
                        on_text=reply.on_text,
                        event_id=incoming.event_id,
                        retry=event in self._retrying,
                        pictures=reading.pictures,
                    )
                except PersonadError as exc:
                    log.warning("turn.failed", error=str(exc), kind=type(exc).__name__)
                    await self._deliver(reply, incoming, exc.user_message, otr=otr)
                    return
                except Exception:
                    log.exception("turn.crashed")
                    await self._deliver(reply, incoming, SORRY, otr=otr)
                    return
                spoken = spoken_text(outcome.reply) if await self._speaks(adapter, room) else None
                delivered = await self._deliver(
                    reply,
                    incoming,
                    self._echoed(reading, outcome.reply),
                    owner=owner,
                    otr=outcome.otr,
                    secrets=outcome.secrets,
                    spoken=spoken,
                )
            if delivered == "queued" and not outcome.otr:
                # the answer above it in the session log is not in the room yet
                await session.log.mark_event(session.deps.clock(), session.user_config.zone, QUEUED)
            await session.sync_memory(outcome, incoming.platform)
            # the identity observer learns after the answer went out, off the turn's path
            self._after_turn(session.observe_identity(outcome))
        log.info(
            "turn.done",
            otr=outcome.otr,
            ms=round((time.perf_counter() - started) * 1000, 1),
            chars=len(outcome.reply),
        )
