"""From a platform event to an answer, in two steps: decide, then handle.

Deciding runs the cross-cutting layers in order: bind the log context, identify the sender
(unknown senders are ignored), skip group messages not addressed to the persona, claim the
event id (a duplicate is dropped, across restarts), and check the input (kind, empty,
too long). Handling is either a command from the shared table or a turn of the sender's
session. No failure escapes :meth:`Router.handle`: it becomes a short reply and a log line.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from functools import partial
from typing import Any

import structlog

import bot.command_handlers  # noqa: F401  (fills the command table)
from adapters.base import Adapter, Incoming
from bot.commands import ADMIN_ONLY, CommandContext, lookup, parse_command
from bot.config import Config
from bot.errors import PersonadError
from bot.logs import bound
from bot.persona.store import PersonaStore
from bot.reply import ReplyStream
from bot.rooms import OffTheRecord, Room
from bot.sessions import SessionManager
from bot.state import StateStore

__all__ = ["Router"]

log = structlog.get_logger(__name__)

SORRY = "Something went wrong on my side and I couldn't answer that. Please try again."


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
        #: which users are Off The Record in which rooms
        self.otr = OffTheRecord(state)
        self._active: dict[str, str | None] = {}
        self._background: set[asyncio.Task[object]] = set()
        #: (user, platform) -> persona, for a console started with ``--persona``
        self.pinned: dict[tuple[str, str], str] = {}
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
        with bound(
            platform=incoming.platform, room=incoming.room, event_id=incoming.event_id
        ):
            self.in_flight += 1
            try:
                await self._decide(incoming)
            except Exception as exc:
                log.exception("router.failed", error=type(exc).__name__)
            finally:
                self.in_flight -= 1

    async def _decide(self, incoming: Incoming) -> None:
        user = self.identify(incoming)
        if user is None:
            log.info("router.unknown_sender", sender=incoming.sender)
            return
        if not incoming.addressed:
            return
        claim = await self.state.claim_event(incoming.platform, incoming.event_id)
        if claim == "duplicate":
            log.info("router.duplicate")
            return
        with bound(user=user):
            if claim == "retry":
                log.info("router.retry_unfinished")
            try:
                await self._handle(incoming, user)
            finally:
                await self.state.finish_event(incoming.platform, incoming.event_id)

    def _input_problem(self, incoming: Incoming) -> str | None:
        if incoming.kind != "text":
            return "I can only read text messages; attachments and other content are not supported."
        if not incoming.text.strip():
            return "Your message was empty, so there is nothing to answer."
        limit = self.config.daemon.max_message_chars
        if len(incoming.text) > limit:
            return (
                f"Your message is {len(incoming.text):,} characters long; the limit is"
                f" {limit:,}. Please shorten it or send it in parts."
            )
        return None

    # -- step 2: handle --------------------------------------------------------------------

    async def _handle(self, incoming: Incoming, user: str) -> None:
        adapter = self.adapters.get(incoming.platform)
        if adapter is None:
            log.error("router.no_adapter")
            return
        problem = self._input_problem(incoming)
        if problem:
            await self._say(adapter, incoming, problem)
            return
        room = self.room_of(incoming)
        persona = (
            self.pinned.get((user, incoming.platform))
            or self.room_persona.get(room.key)
            or await self.persona_for(user)
        )
        # while Off The Record, the log context says so and no log line carries what was
        # said (bot.logs withholds free text from such lines)
        mode = bound(persona=persona, otr=True) if self.otr.is_on(user, room) else bound(
            persona=persona
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

    async def _say(self, adapter: Adapter, incoming: Incoming, text: str) -> None:
        await self.state.event_recorded(incoming.platform, incoming.event_id)
        try:
            await adapter.send(incoming.room, text, reply_to=incoming.event_id)
            await adapter.reply_done(incoming.room)
        except Exception as exc:
            log.error("router.send_failed", error=str(exc))

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
            await self._say(adapter, incoming, f"I don't know the command /{name}. Try /help.")
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
        async with session.lock:
            reply = ReplyStream(
                adapter,
                incoming.room,
                reply_to=incoming.event_id,
                interval=self.config.daemon.stream_edit_seconds,
                before_send=partial(
                    self.state.event_recorded, incoming.platform, incoming.event_id
                ),
            )
            async with reply:
                try:
                    outcome = await session.turn(
                        incoming.text,
                        room=room,
                        otr=self.otr.is_on(user, room),
                        on_text=reply.on_text,
                    )
                except PersonadError as exc:
                    log.warning("turn.failed", error=str(exc), kind=type(exc).__name__)
                    await reply.finish(exc.user_message)
                    return
                except Exception:
                    log.exception("turn.crashed")
                    await reply.finish(SORRY)
                    return
                await reply.finish(outcome.reply)
            await session.sync_memory(outcome, incoming.platform)
            # the identity observer learns after the answer went out, off the turn's path
            self._after_turn(session.observe_identity(outcome))
        log.info(
            "turn.done",
            otr=outcome.otr,
            ms=round((time.perf_counter() - started) * 1000, 1),
            chars=len(outcome.reply),
        )
