"""One user with one persona, whichever platform and room they write from.

A session owns the live conversation of each room (its :class:`~bot.turn.conversation.Entry`
list: what is said in one room never enters the context of a reply in another), its tier,
and drives one turn from the user's text to the persona's reply: recall, prompt, compaction,
the model with its tools, the session log. Its parts: what memory brings and is given
(:mod:`bot.turn.session_memory`), the prompt, the tools and compaction
(:mod:`bot.turn.session_prompt`), and messages left unanswered (:mod:`bot.turn.unanswered`).

Secrets are withheld at the door (:mod:`bot.memory.secrets.door`): the user's message as it
arrives and the reply before it is logged, so the conversation, the log and memory hold
markers, never values; only the model's request of this one turn carries the message as it
was said. Whether a turn is Off The Record is the room's mode (:mod:`bot.turn.rooms`), which
the router passes in. Turns of one session run strictly in order under :attr:`Session.lock`,
which the router holds from the turn until the reply is sent and the memory synced;
different sessions run concurrently.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from dataclasses import replace

import structlog

from bot.daemon.disk import run_blocking
from bot.daemon.errors import ContextOverflow
from bot.llm.base import Message, Picture, TextSink
from bot.memory.base import MemoryBackend, TurnRecord
from bot.memory.secrets.door import answerable, secret_values, turn_secrets, withhold_async
from bot.persona.context import StableCache, files_for_tier
from bot.persona.promotion import Promoter
from bot.persona.sessionlog.log import LoggedTurn, SessionLog
from bot.persona.store import bind_persona
from bot.setup.config_users import UserConfig
from bot.tools.gate import TurnMode
from bot.tools.loop import ToolLoopResult, run_tool_loop
from bot.tools.registry import CallLimits, ToolRegistry
from bot.turn.audience import ROOM_NOTE, SHARED_FOLDER, Audience, room_folder, room_note
from bot.turn.compaction import Compactor
from bot.turn.conversation import Conversation, Entry, let_go_quietest
from bot.turn.formatting import well_formed
from bot.turn.rooms import Room
from bot.turn.session_memory import SessionMemory
from bot.turn.session_prompt import SessionPrompt
from bot.turn.session_types import SessionDeps, TurnOutcome
from bot.turn.unanswered import Unanswered

__all__ = ["Session"]

log = structlog.get_logger(__name__)


class Session(SessionMemory, SessionPrompt, Unanswered):
    """One user with one persona: the rooms' conversations and the turn."""

    def __init__(
        self,
        *,
        user: str,
        persona: str,
        deps: SessionDeps,
        memory: MemoryBackend | None,
    ) -> None:
        self.user = user
        self.persona = persona
        self.deps = deps
        self.memory = memory
        self.lock = asyncio.Lock()
        self.directory = deps.store.require(user, persona)
        self.log = SessionLog(self.directory, persona)
        self.rooms: dict[str, Conversation] = {}
        self.tier = deps.config.prompt.default_tier
        self.last_active = time.monotonic()
        self._unextracted: list[TurnRecord] = []
        #: the shared rooms whose folder is known to exist
        self._room_folders: set[str] = set()
        self._mirrored: dict[str, str] = {}
        self._tool_cache: dict[tuple[TurnMode, Audience, CallLimits, str], ToolRegistry] = {}
        #: the persona text last rendered for each audience (a room never gets another's)
        self._stable: dict[Audience, StableCache] = {}
        self.promoter = Promoter(deps.store, deps.config.prompt.limit)
        self.compactor = Compactor(
            window_tokens=deps.context_window,
            threshold=deps.config.memory.compact_threshold,
        )

    @property
    def user_config(self) -> UserConfig:
        return self.deps.config.users.get(self.user) or UserConfig()

    async def load(self) -> None:
        """Restore settings and today's conversation after a (re)start."""
        zone = self.user_config.zone
        today = self.deps.clock().astimezone(zone).date()
        limit = self.deps.config.daemon.history_messages
        # one wait after the other: threads working at once mostly wait for each other
        # (Python runs one at a time), so the settings, then in one trip to a disk thread
        # today's log and the persona files of the session's tier
        self.tier = await self.deps.state.session_tier(self.user, self.persona) or self.tier
        preload = self.deps.store.start_preload(self.user, self.persona, files_for_tier(self.tier))

        shared = self.directory / SHARED_FOLDER

        def from_disk() -> dict[str, list[Entry]]:
            preload.read()
            # the folder of what every room shares, so the prompt's files in it can be
            # watched (a missing folder cannot be, and the prompt would be read every turn)
            with contextlib.suppress(OSError):  # a file or a link there: reads refuse it anyway
                shared.mkdir(mode=0o700, exist_ok=True)
            return self.log.restore(today, zone, limit=limit)

        restored = await run_blocking(from_disk)
        preload.finish()
        self.rooms = {room: Conversation(entries) for room, entries in restored.items()}
        if restored:
            log.info(
                "session.restored",
                rooms=len(restored),
                entries=sum(len(entries) for entries in restored.values()),
            )

    def conversation(self, room: Room) -> Conversation:
        """The room's live conversation. A room that changed kind (a direct room a third
        person joined, a group down to two) starts afresh: what was said while it was the
        other kind never enters a reply in it now."""
        conversation = self.rooms.get(room.key)
        if conversation is not None and any(e.shared != room.shared for e in conversation.entries):
            log.info("session.room_changed_kind", shared=room.shared)
            kept = [entry for entry in conversation.entries if entry.shared == room.shared]
            conversation = self.rooms[room.key] = Conversation(kept)
        if conversation is None:
            conversation = self.rooms[room.key] = Conversation()
            if let_go_quietest(self.rooms):
                log.info("session.quiet_rooms_let_go", kept=len(self.rooms))
        return conversation

    def entries(self, room: Room) -> list[Entry]:
        """The live conversation of ``room``."""
        found = self.rooms.get(room.key)
        return found.entries if found is not None else []

    # -- settings ---------------------------------------------------------------------------

    async def set_tier(self, tier: int) -> None:
        if tier not in (1, 2, 3, 4):
            raise ValueError("tier must be 1, 2, 3 or 4")
        await self.deps.state.set_tier(self.user, self.persona, tier)
        self.tier = tier

    async def new_conversation(self, room: Room, *, otr: bool) -> None:
        """End the room's conversation (extracting the facts of what was on the record) and
        start an empty one."""
        await self.end("new")
        if not otr:
            await self.log.mark_new_conversation(self.deps.clock(), self.user_config.zone, room.key)
        self.rooms.pop(room.key, None)

    def forget_off_the_record(self, room: Room) -> int:
        """Drop the room's Off The Record entries from the live conversation (when the mode
        ends, what was said in it is let go); returns how many there were."""
        conversation = self.rooms.get(room.key)
        if conversation is None:
            return 0
        kept = [entry for entry in conversation.entries if not entry.otr]
        dropped = len(conversation.entries) - len(kept)
        if dropped:
            self.rooms[room.key] = Conversation(kept)
        return dropped

    # -- the turn ---------------------------------------------------------------------------

    @staticmethod
    def _previous_text(conversation: Conversation, event_id: str) -> tuple[str, ...]:
        """The room's messages this one may answer (:func:`answerable`)."""
        return answerable(conversation.entries, event_id)

    async def _keep_room_folder(self, room: Room) -> None:
        """Make the shared room's folder (``rooms/<room>/ROOM.md``) before its first turn is
        logged: its name is how distillation knows the room's turns are not a direct room's."""
        if room.key in self._room_folders:
            return
        name = f"{room_folder(room.key)}/{ROOM_NOTE}"
        store = self.deps.store
        if not (await store.load(self.user, self.persona, name)).text:
            await store.write(self.user, self.persona, name, room_note(room.key))
        self._room_folders.add(room.key)

    async def turn(
        self,
        text: str,
        *,
        room: Room,
        otr: bool,
        on_text: TextSink | None = None,
        event_id: str = "",
        retry: bool = False,
        pictures: Sequence[Picture] = (),
    ) -> TurnOutcome:
        """Answer one message said in ``room`` (Off The Record when ``otr``). The caller
        holds :attr:`lock`. ``event_id`` names the platform event; ``retry`` says an earlier
        attempt at it was cut off. ``pictures`` came with the message: this request alone
        shows them (the conversation keeps their note in ``text``)."""
        if not otr and self.forget_off_the_record(room):
            # the mode ended without letting go here (an every-room mode switched off in
            # another room): an on-record turn never carries what was said off the record
            log.info("session.off_the_record_let_go")
        conversation = self.conversation(room)
        # what is written of the message: its secrets withheld (the model still hears it whole)
        said = text
        previous = self._previous_text(conversation, event_id)
        text = await withhold_async(said, previous=previous)
        if event_id:
            earlier = self._answered(conversation, room, text, event_id, retry, otr)
            if earlier is not None:
                return earlier
        self.last_active = time.monotonic()
        config = self.deps.config
        store = self.deps.store
        zone = self.user_config.zone
        now = self.deps.clock().astimezone(zone)
        platform = room.platform
        kept = self._take_unanswered(conversation, text, event_id, otr) if event_id else None
        user_entry = kept or Entry(
            "user",
            text,
            now,
            platform,
            otr=otr,
            event_id=event_id,
            room=room.key,
            shared=room.shared,
        )
        audience = room.audience
        inject, recalled = await self._recall(
            text, otr=otr, audience=audience, conversation=conversation
        )
        # this turn's request alone carries the message as it was said
        heard = replace(user_entry, text=said) if said != text else user_entry
        system = self._system_prompt(audience, now=now, otr=otr, inject=inject, recalled=recalled)
        await self.compact(room, force=False, system_chars=system.chars())
        tools = self._tools(otr, zone, audience)

        def request() -> list[Message]:
            messages = conversation.messages.messages(conversation.entries, heard)
            if pictures and messages and messages[-1].role == "user":
                messages[-1] = replace(messages[-1], pictures=tuple(pictures))
            return messages

        async def ask() -> ToolLoopResult:
            return await run_tool_loop(
                self.deps.chat_llm,
                system=system,
                messages=request(),
                tools=tools,
                max_steps=config.llm.max_tool_steps,
                on_text=on_text,
            )

        heard_values = secret_values(said, previous=previous)
        with bind_persona(store.data_dir, self.user, self.persona), turn_secrets(heard_values):
            try:
                try:
                    result = await ask()
                except ContextOverflow:
                    log.warning("session.overflow")
                    await self.compact(room, force=True, system_chars=system.chars())
                    result = await ask()
            except BaseException as exc:
                cut_off = isinstance(exc, asyncio.CancelledError)
                await self._no_answer(room, user_entry, kept, zone, otr=otr, cut_off=cut_off)
                raise
        reply = well_formed(result.text).strip() or "(no answer)"
        # the user gets the reply as written; what is kept of it repeats no secret
        written = await withhold_async(reply, previous=said, values=heard_values)
        reply_entry = Entry(
            "assistant",
            written,
            self.deps.clock().astimezone(zone),
            platform,
            otr=otr,
            room=room.key,
            shared=room.shared,
        )
        if not otr:
            try:
                if room.shared:
                    await self._keep_room_folder(room)
                logged = [LoggedTurn(self.persona, reply_entry)]
                if kept is None:
                    logged.insert(0, LoggedTurn(self.user, user_entry))
                await self.log.append(logged, zone)
            except OSError as exc:
                # the log cannot be written (disk full, read-only): the answer is given all
                # the same, and the live conversation and memory keep the turn
                log.error("sessionlog.append_failed", error=str(exc))
        self.conversation(room).entries.extend((user_entry, reply_entry))
        self.last_active = time.monotonic()
        return TurnOutcome(reply, user_entry, reply_entry, otr, room, tuple(heard_values))
