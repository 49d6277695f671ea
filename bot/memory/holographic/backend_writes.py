"""How :class:`~bot.memory.holographic.backend.HolographicMemory` keeps facts: a turn's, a
session's, a memory file's lines, and one the model or a person adds; and how it forgets one
or gives it another audience.

Every candidate passes the preamble and the write policy the holographic and Honcho stores
share (:mod:`bot.memory.judgement`). A sentence said again (the same normalised text, among
the facts a statement of its audience may repeat: :mod:`bot.memory.reinforcement`) is
counted, never stored twice. A new fact is parsed into its roles
(:mod:`bot.memory.holographic.parse`), bound into one trace and stored with them; a fact of
the same audience that says the same functional thing with another object gives way to it
("Scott prefers tea for breakfast" supersedes "Scott prefers coffee for breakfast"). Nothing
is ever deleted: forgetting and sharing change a status or an audience label, recorded in the
fact's history; an episode's id (``e42``) is handed to the episodes, which do the same for
messages.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime

import structlog

from bot.daemon.disk import run_on_text
from bot.memory.base import AddResult, Category, MemoryItem, TurnRecord
from bot.memory.episodes.engine import Episodes
from bot.memory.episodes.rows import parse_episode_id
from bot.memory.holographic.parse import parse
from bot.memory.holographic.recall import ActiveFacts, fact_structure
from bot.memory.holographic.store import HolographicStore
from bot.memory.judgement import judged, said_as_fact
from bot.memory.normal_form import normalise_text
from bot.memory.placeholders import clean_mirror_text
from bot.memory.policy import split_candidates
from bot.turn.audience import DIRECT_ROOM, Audience, describe, is_label, label_of_path

__all__ = ["HolographicWrites"]

log = structlog.get_logger(__name__)


class HolographicWrites:
    """The backend's writes, forgetting and sharing (a part of
    :class:`~bot.memory.holographic.backend.HolographicMemory`)."""

    # what it uses of the backend
    episodes: Episodes
    _store: HolographicStore
    _facts: ActiveFacts
    _lock: asyncio.Lock
    _now: Callable[[], datetime]

    async def _add(
        self,
        text: str,
        *,
        source: str,
        audience: str,
        category: Category | None = None,
        force: bool = False,
        reinforce: bool = True,
        confidence: float | None = None,
    ) -> AddResult:
        candidate = said_as_fact(text, category)
        if isinstance(candidate, AddResult):
            return candidate
        said, text = candidate
        async with self._lock:
            duplicate = self._facts.duplicate(text, audience)
            if duplicate is not None:  # said again: the policy already let it in once
                return await self._reinforce(duplicate, source, reinforce)
            verdict = judged(said, category, force=force, confidence=confidence)
            if isinstance(verdict, AddResult):
                return verdict
            chosen, reason, weight = verdict
            return await self._store_new(text, source, audience, chosen, weight, reason)

    async def _reinforce(self, item: MemoryItem, source: str, reinforce: bool) -> AddResult:
        """A sentence said again: counted (when ``reinforce``); its audience stays (a repeat
        never moves an item, :mod:`bot.memory.reinforcement`)."""
        if reinforce:
            item.reinforced += 1
            await self._store.reinforce(item.id, source)
        return AddResult(False, item.category, "duplicate", duplicate_of=item.id)

    async def _store_new(
        self,
        text: str,
        source: str,
        audience: str,
        category: Category,
        confidence: float,
        reason: str,
    ) -> AddResult:
        structure = fact_structure(parse(text), category)
        trace = self._facts.index.encode(structure)
        item = MemoryItem(
            id=uuid.uuid4().hex[:12],
            text=text,
            category=category,
            source=source,
            confidence=confidence,
            created_at=self._now(),
            audience=audience,
        )
        replaced = self._facts.conflicts(structure, audience)
        await self._store.insert(item, normalise_text(text), structure, trace, reason, replaced)
        for old in replaced:
            self._facts.remove(old)
        self._facts.add(item, structure, trace)
        log.info("memory.holographic.add", item=item.id, category=category, replaced=len(replaced))
        return AddResult(True, category, reason, item_id=item.id)

    async def sync(self, turn: TurnRecord) -> None:
        """Both sides of the turn become episodes (secrets redacted); the write policy picks
        the user's sentences that also become facts."""
        await self.episodes.record(turn)
        for sentence in await run_on_text(turn.user_text, split_candidates):
            await self._add(sentence, source=turn.platform, audience=turn.audience)

    async def extract(self, turns: Sequence[TurnRecord]) -> int:
        stored = 0
        for turn in turns:
            for sentence in await run_on_text(turn.user_text, split_candidates):
                result = await self._add(
                    sentence, source=turn.platform, audience=turn.audience, reinforce=False
                )
                stored += result.stored
        return stored

    async def mirror(self, filename: str, text: str) -> None:
        """Keep ``file:<filename>`` items equal to the file's lines (``filename`` a path in the
        persona's folder: ``USER.md``, ``shared/MEMORY.md``, ``rooms/<room>/MEMORY.md``): new
        lines are added (forced: the file layer wrote them on purpose), with the audience of
        the file's folder (:func:`~bot.turn.audience.label_of_path`: that audience's prompt holds
        the file); vanished ones are superseded."""
        source = f"file:{filename}"
        label = label_of_path(filename)
        text = clean_mirror_text(text)  # no template filler, no comment markers
        lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
        sentences = split_candidates("\n".join(lines))
        kept = {normalise_text(sentence) for sentence in sentences}
        for sentence in sentences:
            await self._add(sentence, source=source, audience=label, force=True, reinforce=False)
        async with self._lock:
            stale = [
                item.id
                for item in self._facts.items.values()
                if item.source == source and normalise_text(item.text) not in kept
            ]
            for item_id in stale:
                await self._store.set_status(item_id, "superseded", f"no longer in {filename}")
                self._facts.remove(item_id)

    async def forget(self, item_id: str, *, audience: Audience = DIRECT_ROOM) -> bool:
        """Mark a fact (``3f9c0a1b2c4d``) or an episode (``e42``) forgotten."""
        async with self._lock:
            known = await self._store.status(item_id)
            if known is None:
                episode = parse_episode_id(item_id)
                if episode is None:
                    return False
                return await self.episodes.forget(episode, labels=audience.labels)
            if not audience.sees(known[1]):
                return False
            if known[0] != "forgotten":
                await self._store.set_status(item_id, "forgotten", "")
            self._facts.remove(item_id)
            log.info("memory.holographic.forget", item=item_id)
            return True

    async def share(self, item_id: str, label: str) -> bool:
        """Give a fact or an episode (``e42``) the audience ``label``."""
        if not is_label(label):
            raise ValueError(f"{label!r} is not an audience label")
        async with self._lock:
            known = await self._store.status(item_id)
            if known is None:
                episode = parse_episode_id(item_id)
                if episode is None:
                    return False
                at = self._now().timestamp()
                return await self.episodes.share(episode, label, at=at)
            if known[1] != label:
                detail = f"{describe(label)} (was {describe(known[1])})"
                await self._store.set_audience(item_id, label, detail)
                item = self._facts.items.get(item_id)
                if item is not None:
                    item.audience = label
            return True
