"""What a session brings from memory to a turn and gives back to it.

Before the prompt: recall, only what the turn's audience may see (a shared room: what was
said there and what was made shared), a message that refers back resolved against the last
on-record messages of its own room (:mod:`bot.memory.follow_ups`), the names of the session's
user and persona not searched (:mod:`bot.memory.party_names`); in a shared room the files
of ``shared/`` are mirrored into the store first, so a line taken out of them is recalled
there no more. After the reply went
out: the persona's memory files mirrored into the store (for search), the turn stored in
memory, then the identity observer (VOICE.md, PERSONA.md) learning from a direct room. At
the session's end: the facts of its on-record turns extracted (through the extract model
when there is one) and promoted into the file layer (:mod:`bot.persona.promotion`). Nothing
said Off The Record is recalled with, stored, mirrored, observed or promoted. A failure of
memory is logged, never raised: the turn goes on without it.
"""

from __future__ import annotations

import asyncio

import structlog

from bot.memory.base import MemoryBackend, MemoryHit, TurnRecord
from bot.memory.follow_ups import RECENT_MESSAGES, recall
from bot.persona.promotion import Promoter
from bot.turn.audience import SHARED_FOLDER, Audience
from bot.turn.conversation import Conversation
from bot.turn.session_types import SessionDeps, TurnOutcome

__all__ = ["SessionMemory"]

log = structlog.get_logger(__name__)

#: the files whose lines the memory store keeps a copy of (for search); an audience's own
#: copies (``rooms/<room>/MEMORY.md``) are mirrored when that room speaks
_MIRRORED = ("MEMORY.md", "USER.md")
_MIRRORED_SHARED = tuple(f"{SHARED_FOLDER}/{name}" for name in _MIRRORED)


class SessionMemory:
    """A session's memory (a part of :class:`~bot.turn.session.Session`)."""

    # what it uses of the session
    user: str
    persona: str
    deps: SessionDeps
    memory: MemoryBackend | None
    promoter: Promoter
    _unextracted: list[TurnRecord]
    _mirrored: dict[str, str]

    @property
    def pending_extract(self) -> int:
        """On-record turns not yet distilled into memory."""
        return len(self._unextracted)

    async def _recall(
        self, text: str, *, otr: bool, audience: Audience, conversation: Conversation
    ) -> tuple[str, list[MemoryHit]]:
        """What memory brings to a turn: only what ``audience`` may see (a shared room: what
        was said there and what was made shared). A message that refers back is resolved
        against the last on-record messages of this room's own conversation
        (:mod:`bot.memory.follow_ups`); the user's and the persona's names are not searched."""
        if self.memory is None or otr:
            return "", []
        if not audience.private:
            try:
                # a line taken out of shared/ (``/unshare TEXT``, the Files panel) since the
                # last mirror must not come back from the store's copy in front of a group
                await self._mirror(_MIRRORED_SHARED)
            except Exception as exc:
                log.error("memory.mirror_failed", error=str(exc))
                return "", []
        try:
            limit = self.deps.config.memory.recall_limit
            no_recall: list[MemoryHit] = []
            inject, hits = await asyncio.gather(
                self.memory.inject(audience=audience),
                recall(
                    self.memory,
                    text,
                    _recent(conversation),
                    limit=limit,
                    audience=audience,
                    parties=(self.user, self.persona),
                )
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

    async def _mirror_files(self, audience: Audience) -> None:
        own = tuple(audience.own(name) for name in _MIRRORED) if audience.room else ()
        await self._mirror((*_MIRRORED, *_MIRRORED_SHARED, *own))

    async def _mirror(self, names: tuple[str, ...]) -> None:
        """Bring the store's copy of each of the files ``names`` up to date."""
        assert self.memory is not None
        for name in names:
            text = self.deps.store.read(self.user, self.persona, name).text
            if self._mirrored.get(name) != text:
                await self.memory.mirror(name, text)
                self._mirrored[name] = text

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
