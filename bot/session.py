"""One conversation of one user with one persona, whichever platform they write from.

A session owns the live conversation (its :class:`~bot.conversation.Entry` list), its Off The
Record flag and tier, and drives one turn from the user's text to the persona's reply:
recall, prompt, compaction, the model with its tools, the session log. Turns of one session
run strictly in order under :attr:`Session.lock`, which the router holds from the turn
until the reply is sent and the memory synced; different sessions run concurrently.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from zoneinfo import ZoneInfo

import structlog

from bot.config import Config, UserConfig
from bot.conversation import Entry, MessageCache
from bot.disk import run_blocking
from bot.errors import ContextOverflow
from bot.identity import IdentityObserver
from bot.llm.base import LLMBackend, TextSink
from bot.memory.base import MemoryBackend, MemoryHit, TurnRecord
from bot.memory.compaction import CompactionResult, Compactor
from bot.persona.context import StableCache, build_system_prompt, files_for_tier
from bot.persona.store import FileText, PersonaStore, bind_persona
from bot.persona_jobs import persona_tools
from bot.scratch_tools import scratch_tools
from bot.sessionlog import LoggedTurn, SessionLog
from bot.state import StateStore
from bot.toolloop import ToolLoopResult, run_tool_loop
from bot.tools import ToolRegistry

__all__ = ["Clock", "Session", "SessionDeps", "TurnOutcome"]

log = structlog.get_logger(__name__)

Clock = Callable[[], datetime]

_MIRRORED = ("MEMORY.md", "USER.md")


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class SessionDeps:
    """What every session shares."""

    config: Config
    store: PersonaStore
    state: StateStore
    chat_llm: LLMBackend
    context_window: int
    clock: Clock = utc_now
    identity: IdentityObserver | None = None


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    reply: str
    user_entry: Entry
    reply_entry: Entry
    otr: bool


class Session:
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
        self.entries: list[Entry] = []
        self.otr = False
        self.tier = deps.config.prompt.default_tier
        self.last_active = time.monotonic()
        self._unextracted: list[TurnRecord] = []
        self._mirrored: dict[str, str] = {}
        self._tool_cache: dict[tuple[bool, str], ToolRegistry] = {}
        self._stable = StableCache()
        self._stamp = partial(deps.store.stamp, user, persona)
        self._messages = MessageCache()
        self.compactor = Compactor(
            window_tokens=deps.context_window,
            threshold=deps.config.memory.compact_threshold,
        )

    @property
    def pending_extract(self) -> int:
        """On-record turns not yet distilled into memory."""
        return len(self._unextracted)

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
        self.otr, tier = await self.deps.state.session_settings(self.user, self.persona)
        self.tier = tier or self.tier
        preload = self.deps.store.start_preload(self.user, self.persona, files_for_tier(self.tier))

        def from_disk() -> list[Entry]:
            preload.read()
            return self.log.restore(today, zone, limit=limit)

        self.entries = await run_blocking(from_disk)
        preload.finish()
        if self.entries:
            log.info("session.restored", entries=len(self.entries))

    # -- settings ---------------------------------------------------------------------------

    async def set_otr(self, on: bool) -> None:
        await self.deps.state.set_otr(self.user, self.persona, on)
        self.otr = on

    async def set_tier(self, tier: int) -> None:
        if tier not in (1, 2, 3, 4):
            raise ValueError("tier must be 1, 2, 3 or 4")
        await self.deps.state.set_tier(self.user, self.persona, tier)
        self.tier = tier

    async def new_conversation(self) -> None:
        """End the current conversation (extracting its facts) and start an empty one."""
        await self.end("new")
        if not self.otr:
            await self.log.mark_new_conversation(self.deps.clock(), self.user_config.zone)
        self.entries = []

    async def end(self, reason: str) -> int:
        """Session end: distill the on-record turns not yet extracted into memory."""
        turns, self._unextracted = self._unextracted, []
        if not turns or self.memory is None or self.otr:
            return 0
        try:
            stored = await self.memory.extract(turns)
        except Exception as exc:
            self._unextracted = turns + self._unextracted
            log.error("memory.extract_failed", reason=reason, error=str(exc))
            return 0
        log.info("memory.extracted", reason=reason, turns=len(turns), stored=stored)
        return stored

    # -- memory -----------------------------------------------------------------------------

    async def _mirror_files(self) -> None:
        assert self.memory is not None
        for name in _MIRRORED:
            text = self.deps.store.read(self.user, self.persona, name).text
            if self._mirrored.get(name) != text:
                await self.memory.mirror(name, text)
                self._mirrored[name] = text

    async def _recall(self, text: str) -> tuple[str, list[MemoryHit]]:
        if self.memory is None or self.otr:
            return "", []
        try:
            await self._mirror_files()
            inject = await self.memory.inject()
            limit = self.deps.config.memory.recall_limit
            hits = await self.memory.prefetch(text, limit=limit) if limit else []
        except Exception as exc:
            log.error("memory.recall_failed", error=str(exc))
            return "", []
        return inject, hits

    async def sync_memory(self, outcome: TurnOutcome, platform: str) -> None:
        """After the reply went out: store the turn in memory (never while Off The Record)."""
        if outcome.otr or self.memory is None:
            return
        record = TurnRecord(
            user_text=outcome.user_entry.text,
            reply_text=outcome.reply,
            platform=platform,
            at=outcome.user_entry.at,
            user=self.user,
            persona=self.persona,
        )
        self._unextracted.append(record)
        try:
            await self.memory.sync(record)
        except Exception as exc:
            log.error("memory.sync_failed", error=str(exc))

    async def observe_identity(self, outcome: TurnOutcome) -> list[str]:
        """After the memory sync: let VOICE.md and PERSONA.md learn from the user's message.
        Never while Off The Record; a failure is logged, never raised."""
        observer = self.deps.identity
        if outcome.otr or observer is None:
            return []
        try:
            return await observer.observe(
                outcome.user_entry.text,
                user=self.user,
                persona=self.persona,
                at=outcome.user_entry.at,
            )
        except Exception as exc:
            log.error("identity.observe_failed", error=str(exc))
            return []

    async def compact(self, *, force: bool, system_chars: int = 0) -> CompactionResult | None:
        """Promote the durable facts of older turns to memory, then fold them into a pointer."""
        memory = self.memory

        async def promote(text: str, source: str) -> object:
            if memory is None:
                return None
            return await memory.add(text, source=source)

        if not force and not self.compactor.needs(system_chars, self.entries):
            return None
        result = await self.compactor.compact(
            self.entries, system_chars=system_chars, promote=promote, force=force
        )
        self.entries = list(result.entries)
        log.info("session.compacted", promoted=len(result.promoted), kept=len(self.entries))
        return result

    def _tools(self, otr: bool, zone: ZoneInfo) -> ToolRegistry:
        """The turn's tools, built once per session and mode (memory tools are left out
        while Off The Record)."""
        key = (otr, zone.key)
        cached = self._tool_cache.get(key)
        if cached is None:
            store = self.deps.store
            cached = ToolRegistry(
                [
                    *scratch_tools(store, self.user, self.persona),
                    *persona_tools(store, self.user, self.persona, zone, clock=self.deps.clock),
                ]
            )
            if self.memory is not None and not otr:
                for tool in self.memory.tools():
                    cached.add(tool)
            self._tool_cache[key] = cached
        return cached

    async def _keep_unanswered(self, user_entry: Entry, zone: ZoneInfo) -> None:
        self.entries.append(user_entry)
        if user_entry.otr:
            return
        try:
            await self.log.append([LoggedTurn(self.user, user_entry)], zone)
        except Exception as exc:
            log.error("sessionlog.append_failed", error=str(exc))

    # -- the turn ---------------------------------------------------------------------------

    def _take_unanswered(self, text: str, event_id: str) -> Entry | None:
        """The conversation's last entry, taken out, if it is this message kept unanswered
        by an attempt that was cut off (restored from the log it has no event id, so the
        same text counts): answered again, it is neither repeated nor logged twice."""
        last = self.entries[-1] if self.entries else None
        if last is None or last.role != "user" or last.kind != "turn" or last.otr != self.otr:
            return None
        if last.event_id != event_id and (last.event_id or last.text != text):
            return None
        return self.entries.pop()

    def _answered(self, text: str, event_id: str, retry: bool) -> TurnOutcome | None:
        """This message and its answer, if an attempt cut off before delivering the answer
        got as far as the conversation (restored from the log, on a retry: the same text):
        the answer is delivered again, not asked for a second time."""
        if len(self.entries) < 2:
            return None
        asked, answer = self.entries[-2], self.entries[-1]
        if asked.role != "user" or answer.role != "assistant" or asked.otr != self.otr:
            return None
        same = asked.event_id == event_id or (retry and not asked.event_id and asked.text == text)
        return TurnOutcome(answer.text, asked, answer, answer.otr) if same else None

    async def turn(
        self,
        text: str,
        *,
        platform: str,
        on_text: TextSink | None = None,
        event_id: str = "",
        retry: bool = False,
    ) -> TurnOutcome:
        """Answer one message. The caller holds :attr:`lock`. ``event_id`` names the
        platform event; ``retry`` says an earlier attempt at it was cut off."""
        earlier = self._answered(text, event_id, retry) if event_id else None
        if earlier is not None:
            return earlier
        self.last_active = time.monotonic()
        config = self.deps.config
        store = self.deps.store
        zone = self.user_config.zone
        now = self.deps.clock().astimezone(zone)
        otr = self.otr
        kept = self._take_unanswered(text, event_id) if event_id else None
        user_entry = kept or Entry("user", text, now, platform, otr=otr, event_id=event_id)
        inject, recalled = await self._recall(text)

        def read(name: str) -> FileText:
            file = store.read(self.user, self.persona, name)
            if file.problem:
                log.warning("persona.file_skipped", file=name, problem=file.problem)
            return file

        system = build_system_prompt(
            read=read,
            limit=config.prompt.limit,
            tier=self.tier,
            now=now,
            otr=otr,
            inject_datetime=config.llm.roles["chat"].inject_datetime,
            memory_inject=inject,
            recalled=recalled,
            cache=self._stable,
            stamp=self._stamp,
        )
        await self.compact(force=False, system_chars=system.chars())
        tools = self._tools(otr, zone)

        async def ask() -> ToolLoopResult:
            return await run_tool_loop(
                self.deps.chat_llm,
                system=system,
                messages=self._messages.messages(self.entries, user_entry),
                tools=tools,
                max_steps=config.llm.max_tool_steps,
                on_text=on_text,
            )

        with bind_persona(store.data_dir, self.user, self.persona):
            try:
                try:
                    result = await ask()
                except ContextOverflow:
                    log.warning("session.overflow")
                    await self.compact(force=True, system_chars=system.chars())
                    result = await ask()
            except BaseException:
                # no answer came, but what the user said is kept: logged, and still in the
                # conversation when they try again
                if kept is None:
                    await self._keep_unanswered(user_entry, zone)
                else:
                    self.entries.append(kept)
                raise
        reply = result.text.strip() or "(no answer)"
        reply_entry = Entry(
            "assistant", reply, self.deps.clock().astimezone(zone), platform, otr=otr
        )
        if not otr:
            logged = [LoggedTurn(self.persona, reply_entry)]
            if kept is None:
                logged.insert(0, LoggedTurn(self.user, user_entry))
            await self.log.append(logged, zone)
        self.entries.extend((user_entry, reply_entry))
        self.last_active = time.monotonic()
        return TurnOutcome(reply, user_entry, reply_entry, otr)
