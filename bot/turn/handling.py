"""The router's second step, handling: a message it decided to answer becomes a command's
reply (:mod:`bot.turn.command_running`) or a turn of the sender's session.

A message is checked first (its kind, empty, too long), then given the sender's persona:
the one pinned to the console, the room's own (a web conversation), or the one the user
chose. A turn reads the message's files (:mod:`bot.media.prepare`), holds its session's lock
from the question to the delivered answer and the memory sync, and leaves the identity
observer to learn afterwards, off the turn's path. A turn whose session cannot be had (a
:class:`~bot.daemon.errors.PersonadError`) is answered with one sentence; any other failure
reaches :meth:`~bot.turn.router.Router.handle`, which logs it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import Any

import structlog

from adapters.base import Adapter, Incoming
from bot.commands.table import parse_command
from bot.daemon.errors import PersonadError
from bot.daemon.logs import bound
from bot.media.kinds import SUPPORTED
from bot.media.prepare import Reading
from bot.turn.answer_delivery import QUEUED
from bot.turn.command_running import SORRY, CommandRunning
from bot.turn.rooms import Room
from bot.turn.voice import spoken_text

__all__ = ["Handling"]

log = structlog.get_logger(__name__)


class Handling(CommandRunning):
    """The router's handling of a message (a part of :class:`~bot.turn.router.Router`)."""

    # what it uses of the router
    in_flight: int
    pinned: dict[tuple[str, str], str]
    room_persona: dict[str, str]
    _background: set[asyncio.Task[object]]

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
            if self._off_record(user, room, incoming)
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
            otr = self._off_record(user, room, incoming)
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
                    self._framed(reading, outcome.reply),
                    owner=owner,
                    otr=outcome.otr,
                    secrets=outcome.secrets,
                    spoken=spoken,
                    private=room.audience.private,
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

    async def _read(self, adapter: Adapter, incoming: Incoming) -> Reading:
        """What the turn of ``incoming`` reads: its text, or its attachments made readable
        (:mod:`bot.media.prepare`: a file that cannot be used is named in the reading; a
        :class:`MediaError` when nothing of the message can be, and it had no text)."""
        if not incoming.attachments or self.media is None:
            return Reading(incoming.text)
        reading = await self.media.read(incoming, adapter)
        log.info(
            "media.read",
            attachments=len(incoming.attachments),
            pictures=len(reading.pictures),
            unread=len(reading.unread),
        )
        return reading

    def _framed(self, reading: Reading, reply: str) -> str:
        """The answer as delivered: a voice note's transcript quoted above it when so
        configured, and below it the sentence of each file that could not be used (the
        model was told too, but the user learns it whatever the model says)."""
        parts = [reply]
        if reading.transcript and self.config.media.echo_transcript:
            parts.insert(0, "\n".join(f"> {line}" for line in reading.transcript.splitlines()))
        if reading.unread:
            parts.append("\n".join(reading.unread))
        return "\n\n".join(parts)

    async def _speaks(self, adapter: Adapter, room: Room) -> bool:
        """Whether the answer in ``room`` is spoken too (``/voice``, and a way to speak)."""
        return adapter.can_speak and await self.voice.wanted(room)
