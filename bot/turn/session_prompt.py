"""What a turn puts before the model besides the message: the system prompt its audience
hears, the tools it may use, and a conversation that fits the model's window.

The prompt is built by :func:`bot.persona.context.build_system_prompt` from the persona files
of the session's tier, as the turn's audience reads them (a shared room never gets another
audience's copy), with what memory brought. Each audience keeps its own rendered persona
text (:class:`~bot.persona.context.StableCache`), read again only when the stamp of a folder
it reads moves. The tools are built once per session, mode and audience, each working on the
files of the turn's audience; the gate (:mod:`bot.tools.gate`) decides which of them a turn
may use. When the prompt and the conversation outgrow the window, the room's older turns
are compacted (:mod:`bot.turn.compaction`): their durable facts promoted to memory under
the room's audience first, then folded into a pointer.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

import structlog

from bot.llm.base import SystemPrompt
from bot.memory.base import MemoryBackend, MemoryHit
from bot.persona.context import StableCache, build_system_prompt
from bot.persona.store import FileText
from bot.setup.config_users import UserConfig
from bot.tools.catalog import turn_tools
from bot.tools.gate import TurnMode
from bot.tools.registry import CallLimits, ToolRegistry
from bot.turn.audience import SHARED_FOLDER, Audience
from bot.turn.compaction import CompactionResult, Compactor
from bot.turn.conversation import Conversation
from bot.turn.rooms import Room
from bot.turn.session_types import SessionDeps

__all__ = ["SessionPrompt"]

log = structlog.get_logger(__name__)


class SessionPrompt:
    """A session's prompt and tools (a part of :class:`~bot.turn.session.Session`)."""

    # what it uses of the session
    user: str
    persona: str
    deps: SessionDeps
    memory: MemoryBackend | None
    tier: int
    compactor: Compactor
    _stable: dict[Audience, StableCache]
    _tool_cache: dict[tuple[TurnMode, Audience, CallLimits, str], ToolRegistry]
    conversation: Callable[[Room], Conversation]

    @property
    @abstractmethod
    def user_config(self) -> UserConfig: ...

    def _system_prompt(
        self,
        audience: Audience,
        *,
        now: datetime,
        otr: bool,
        inject: str,
        recalled: Sequence[MemoryHit],
    ) -> SystemPrompt:
        """The system prompt ``audience`` hears, with what memory brought to the turn."""
        config, store = self.deps.config, self.deps.store

        def read(name: str) -> FileText:
            file = store.read(self.user, self.persona, name)
            if file.problem:
                log.warning("persona.file_skipped", file=name, problem=file.problem)
            return file

        return build_system_prompt(
            read=read,
            limit=config.prompt.limit,
            tier=self.tier,
            now=now,
            otr=otr,
            inject_datetime=config.llm.roles["chat"].inject_datetime,
            memory_inject=inject,
            recalled=recalled,
            cache=self._stable_cache(audience),
            stamp=self._stamp_for(audience),
            audience=audience,
        )

    def _stable_cache(self, audience: Audience) -> StableCache:
        cache = self._stable.get(audience)
        if cache is None:
            cache = self._stable[audience] = StableCache()
        return cache

    def _stamp_for(self, audience: Audience) -> Callable[[], object]:
        """The stamp of every folder a prompt of ``audience`` reads (None while any of them
        cannot promise one)."""
        store, user, persona = self.deps.store, self.user, self.persona
        folders = ("", SHARED_FOLDER, *((audience.folder,) if audience.folder else ()))

        def stamp() -> object:
            stamps = tuple(store.stamp(user, persona, folder) for folder in folders)
            return None if any(found is None for found in stamps) else stamps

        return stamp

    def _tools(self, otr: bool, zone: ZoneInfo, audience: Audience) -> ToolRegistry:
        """The turn's tools, built once per session, mode and audience; the gate
        (:mod:`bot.tools.gate`) decides which of them the turn may use, and each works on
        the files of the turn's audience."""
        llm = self.deps.config.llm
        mode = TurnMode(otr=otr, shared_room=not audience.private, admin=self.user_config.admin)
        limits = CallLimits(llm.max_tool_calls_per_step, llm.max_tool_calls_per_turn)
        key = (mode, audience, limits, zone.key)
        cached = self._tool_cache.get(key)
        if cached is None:
            cached = self._tool_cache[key] = turn_tools(
                self.deps.store,
                self.user,
                self.persona,
                zone,
                mode=mode,
                limits=limits,
                audience=audience,
                memory=(self.memory.tools(audience=audience) if self.memory is not None else ()),
                clock=self.deps.clock,
            )
        return cached

    async def compact(
        self, room: Room, *, force: bool, system_chars: int = 0
    ) -> CompactionResult | None:
        """Promote the durable facts of the room's older turns to memory, then fold them into
        a pointer."""
        memory = self.memory
        conversation = self.conversation(room)

        async def promote(text: str, source: str) -> object:
            if memory is None:
                return None
            return await memory.add(text, source=source, audience=room.audience.label)

        if not force and not self.compactor.needs(system_chars, conversation.entries):
            return None
        result = await self.compactor.compact(
            conversation.entries, system_chars=system_chars, promote=promote, force=force
        )
        conversation.entries = list(result.entries)
        log.info("session.compacted", promoted=len(result.promoted), kept=len(result.entries))
        return result
