"""One user with one persona, whichever platform and room they write from.

A session owns the live conversation of each room (its :class:`~bot.turn.conversation.Entry`
list: what is said in one room never enters the context of a reply in another), its tier,
and drives one turn from the user's text to the persona's reply: recall, prompt, compaction,
the model with its tools, the session log. Secrets are withheld at the door
(:mod:`bot.memory.secrets.door`): the user's message as it arrives and the reply before it is
logged, so the conversation, the log and memory hold markers, never values; only the model's
request of this one turn carries the message as it was said. Whether a turn is Off The Record
is the room's mode (:mod:`bot.turn.rooms`), which the router passes in. Turns of one session run
strictly in order under :attr:`Session.lock`, which the router holds from the turn until the
reply is sent and the memory synced; different sessions run concurrently.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import structlog

from bot.daemon.disk import run_blocking
from bot.daemon.errors import ContextOverflow
from bot.delivery.state import StateStore
from bot.llm.base import LLMBackend, Message, Picture, TextSink
from bot.memory.base import MemoryBackend, MemoryHit, TurnRecord
from bot.memory.extraction import FactExtractor
from bot.memory.follow_ups import RECENT_MESSAGES, recall
from bot.memory.secrets.door import answerable, secret_values, turn_secrets, withhold_async
from bot.persona.context import StableCache, build_system_prompt, files_for_tier
from bot.persona.identity.observer import IdentityObserver
from bot.persona.promotion import Promoter
from bot.persona.sessionlog.log import LoggedTurn, SessionLog
from bot.persona.store import FileText, PersonaStore, bind_persona
from bot.setup.config import Config, UserConfig
from bot.tools.catalog import turn_tools
from bot.tools.gate import TurnMode
from bot.tools.loop import ToolLoopResult, run_tool_loop
from bot.tools.registry import CallLimits, ToolRegistry
from bot.turn.audience import ROOM_NOTE, SHARED_FOLDER, Audience, room_folder, room_note
from bot.turn.compaction import CompactionResult, Compactor
from bot.turn.conversation import Entry, MessageCache
from bot.turn.rooms import Room

__all__ = ["Clock", "Conversation", "Session", "SessionDeps", "TurnOutcome"]

log = structlog.get_logger(__name__)

Clock = Callable[[], datetime]

#: the files whose lines the memory store keeps a copy of (for search); an audience's own
#: copies (``rooms/<room>/MEMORY.md``) are mirrored when that room speaks
_MIRRORED = ("MEMORY.md", "USER.md")
_MIRRORED_SHARED = tuple(f"{SHARED_FOLDER}/{name}" for name in _MIRRORED)


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
    #: the model that proposes a finished session's facts (None: the backend's own rules)
    extractor: FactExtractor | None = None


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    reply: str
    user_entry: Entry
    reply_entry: Entry
    otr: bool
    room: Room
    #: the secret values the user's message carried: whatever keeps the reply on disk (the
    #: outbox) withholds them as the session log did
    secrets: tuple[tuple[str, str], ...] = ()


class Conversation:
    """The live conversation of one room."""

    __slots__ = ("entries", "messages")

    def __init__(self, entries: list[Entry] | None = None) -> None:
        self.entries: list[Entry] = entries or []
        self.messages = MessageCache()


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

    async def end(self, reason: str) -> int:
        """Session end: distill the on-record turns not yet extracted into memory (through
        the extract model when there is one), then promote what they earned into the file
        layer (:mod:`bot.persona.promotion`)."""
        turns, self._unextracted = self._unextracted, []
        if not turns:  # only on-record turns are ever queued
            return 0
        stored = 0
        if self.memory is not None:
            # a stopping daemon does not wait on the model for every session: the rules'
            # extraction runs then, the model's at /new and when a session goes idle
            extractor = self.deps.extractor if reason != "shutdown" else None
            try:
                if extractor is not None:
                    stored = await extractor.extract(self.memory, turns)
                else:
                    stored = await self.memory.extract(turns)
            except Exception as exc:
                self._unextracted = turns + self._unextracted
                log.error("memory.extract_failed", reason=reason, error=str(exc))
                return 0
            log.info("memory.extracted", reason=reason, turns=len(turns), stored=stored)
        try:
            await self.promoter.promote(
                turns, user=self.user, persona=self.persona, at=self.deps.clock()
            )
        except Exception as exc:  # the file layer stays as it was; the session still ends
            log.error("promotion.failed", reason=reason, error=str(exc))
        return stored

    def _stamp_for(self, audience: Audience) -> Callable[[], object]:
        """The stamp of every folder a prompt of ``audience`` reads (None while any of them
        cannot promise one)."""
        store, user, persona = self.deps.store, self.user, self.persona
        folders = ("", SHARED_FOLDER, *((audience.folder,) if audience.folder else ()))

        def stamp() -> object:
            stamps = tuple(store.stamp(user, persona, folder) for folder in folders)
            return None if any(found is None for found in stamps) else stamps

        return stamp

    # -- memory -----------------------------------------------------------------------------

    async def _mirror_files(self, audience: Audience) -> None:
        assert self.memory is not None
        own = tuple(audience.own(name) for name in _MIRRORED) if audience.room else ()
        for name in (*_MIRRORED, *_MIRRORED_SHARED, *own):
            text = self.deps.store.read(self.user, self.persona, name).text
            if self._mirrored.get(name) != text:
                await self.memory.mirror(name, text)
                self._mirrored[name] = text

    async def _recall(
        self, text: str, *, otr: bool, audience: Audience, conversation: Conversation
    ) -> tuple[str, list[MemoryHit]]:
        """What memory brings to a turn: only what ``audience`` may see (a shared room: what
        was said there and what was made shared). A message that refers back is resolved
        against the last on-record messages of this room's own conversation
        (:mod:`bot.memory.follow_ups`)."""
        if self.memory is None or otr:
            return "", []
        try:
            limit = self.deps.config.memory.recall_limit
            no_recall: list[MemoryHit] = []
            inject, hits = await asyncio.gather(
                self.memory.inject(audience=audience),
                recall(self.memory, text, _recent(conversation), limit=limit, audience=audience)
                if limit
                else asyncio.sleep(0, result=no_recall),
            )
        except Exception as exc:
            log.error("memory.recall_failed", error=str(exc))
            return "", []
        return inject, hits

    async def sync_memory(self, outcome: TurnOutcome, platform: str) -> None:
        """After the reply went out: store the turn in memory and queue it for the session
        end's extraction and promotion (never while Off The Record)."""
        if outcome.otr:
            return
        record = TurnRecord(
            user_text=outcome.user_entry.text,
            reply_text=outcome.reply_entry.text,  # withheld, unlike the reply that was sent
            platform=platform,
            at=outcome.user_entry.at,
            user=self.user,
            persona=self.persona,
            audience=outcome.room.audience.label,
        )
        self._unextracted.append(record)
        if self.memory is None:
            return
        try:
            # the file layer is in the prompt already; its copy in the store (for search) is
            # brought up to date after the answer, so a new persona's first turn waits for none
            await self._mirror_files(outcome.room.audience)
        except Exception as exc:
            log.error("memory.mirror_failed", error=str(exc))
        try:
            await self.memory.sync(record)
        except Exception as exc:
            log.error("memory.sync_failed", error=str(exc))

    async def observe_identity(self, outcome: TurnOutcome) -> list[str]:
        """After the memory sync: let VOICE.md and PERSONA.md learn from the user's message.
        Never while Off The Record, and only in a direct room: the character files are read in
        every room, and what the user asked for alone ("call me Captain") is theirs to bring
        into a group. A failure is logged, never raised."""
        observer = self.deps.identity
        if outcome.otr or outcome.room.shared or observer is None:
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

    async def _keep_unanswered(
        self, conversation: Conversation, user_entry: Entry, zone: ZoneInfo, *, cut_off: bool
    ) -> None:
        """Log a message that got no answer. One cut off (a stop, an adapter restart) stays the
        last entry of the conversation: it is answered again without being repeated. One whose
        turn failed is not: the user was told so and sends it again if they want, so it is not
        sent along with the next requests; an event line says it was not answered (a restart
        does not bring it back into the conversation either)."""
        if cut_off:
            conversation.entries.append(user_entry)
        if user_entry.otr:
            return
        try:
            await self.log.append([LoggedTurn(self.user, user_entry)], zone)
            if not cut_off:
                await self.log.mark_unanswered(self.deps.clock(), zone, user_entry.room)
        except Exception as exc:
            log.error("sessionlog.append_failed", error=str(exc))

    async def _mark_unanswered(self, entry: Entry, zone: ZoneInfo) -> None:
        try:
            await self.log.mark_unanswered(self.deps.clock(), zone, entry.room)
        except Exception as exc:
            log.error("sessionlog.append_failed", error=str(exc))

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

    def _stable_cache(self, audience: Audience) -> StableCache:
        cache = self._stable.get(audience)
        if cache is None:
            cache = self._stable[audience] = StableCache()
        return cache

    # -- the turn ---------------------------------------------------------------------------

    @staticmethod
    def _previous_text(conversation: Conversation, event_id: str) -> tuple[str, ...]:
        """The room's messages this one may answer (:func:`answerable`)."""
        return answerable(conversation.entries, event_id)

    @staticmethod
    def _take_unanswered(
        conversation: Conversation, text: str, event_id: str, otr: bool
    ) -> Entry | None:
        """The conversation's last entry, taken out, if it is this message kept unanswered
        by an attempt that was cut off (restored from the log it has no event id, so the
        same text counts): answered again, it is neither repeated nor logged twice."""
        entries = conversation.entries
        last = entries[-1] if entries else None
        if last is None or last.role != "user" or last.kind != "turn" or last.otr != otr:
            return None
        if last.event_id != event_id and (last.event_id or last.text != text):
            return None
        return entries.pop()

    @staticmethod
    def _answered(
        conversation: Conversation, room: Room, text: str, event_id: str, retry: bool, otr: bool
    ) -> TurnOutcome | None:
        """This message and its answer, if an attempt cut off before delivering the answer
        got as far as the conversation (restored from the log, on a retry: the same text):
        the answer is delivered again, not asked for a second time."""
        exchange = _last_exchange(conversation)
        if exchange is None or exchange[0].otr != otr:
            return None
        asked, answer = exchange
        same = asked.event_id == event_id or (retry and not asked.event_id and asked.text == text)
        return TurnOutcome(answer.text, asked, answer, answer.otr, room) if same else None

    def has_answered(self, room: Room, event_id: str, *, otr: bool) -> bool:
        """Whether the conversation in ``room`` already holds the answer to ``event_id`` (an
        attempt cut off before delivering it), by the rule :meth:`turn` goes by, on the event
        id alone: a retry delivers that answer again, without reading the message's files a
        second time."""
        conversation = self.conversation(room)
        return bool(event_id) and (
            self._answered(conversation, room, "", event_id, False, otr) is not None
        )

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
            cache=self._stable_cache(audience),
            stamp=self._stamp_for(audience),
            audience=audience,
        )
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
                # no answer came, but what the user said is kept in the log; only a message cut
                # off stays in the conversation, for the redelivery that answers it
                cut_off = isinstance(exc, asyncio.CancelledError)
                if kept is None:
                    await self._keep_unanswered(
                        self.conversation(room), user_entry, zone, cut_off=cut_off
                    )
                elif cut_off:
                    self.conversation(room).entries.append(kept)
                elif not otr:
                    await self._mark_unanswered(kept, zone)
                raise
        reply = result.text.strip() or "(no answer)"
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
            if room.shared:
                await self._keep_room_folder(room)
            logged = [LoggedTurn(self.persona, reply_entry)]
            if kept is None:
                logged.insert(0, LoggedTurn(self.user, user_entry))
            await self.log.append(logged, zone)
        self.conversation(room).entries.extend((user_entry, reply_entry))
        self.last_active = time.monotonic()
        return TurnOutcome(reply, user_entry, reply_entry, otr, room, tuple(heard_values))


def _recent(conversation: Conversation) -> list[str]:
    """The texts of the room's last on-record messages, oldest first: what a message may refer
    back to (never an Off The Record one, nor a compaction's pointer)."""
    said: list[str] = []
    for entry in reversed(conversation.entries):
        if len(said) == RECENT_MESSAGES:
            break
        if entry.kind == "turn" and not entry.otr:
            said.append(entry.text)
    return said[::-1]


def _last_exchange(conversation: Conversation) -> tuple[Entry, Entry] | None:
    """The conversation's last message and its answer, when it ends with one."""
    entries = conversation.entries
    if len(entries) < 2 or entries[-2].role != "user" or entries[-1].role != "assistant":
        return None
    return entries[-2], entries[-1]
