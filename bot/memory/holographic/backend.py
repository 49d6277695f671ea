"""The ``holographic`` backend: facts as role/filler traces, recalled by structure.

Every stored sentence is parsed (:mod:`bot.memory.holographic.parse`, a small rule-based
English and Portuguese parser) into roles: subject, relation, object, topic, plus the item's
category and its content words. The roles become one holographic trace
(:mod:`bot.memory.holographic.hrr`), kept in SQLite with the item. A question is parsed the
same way into a *partial* structure ("what does Scott prefer for breakfast" → subject=scott,
relation=prefer, topic=breakfast, object asked); recall probes every trace with the known roles
in one matrix product and unbinds the asked role to read the answer back through the clean-up
memory. So "Scott likes Holly" and "Holly likes Scott",
which have the same words, answer "who does Scott like" differently.

A query the parser cannot structure is answered through the ``keywords`` role, which holds the
item's content words: that is word overlap, and its hits say so with a ``lexical`` score part
(structural hits carry ``hrr``). Lexical hits always rank below structural ones.

Beside the facts, every on-record message, the user's and the persona's, is kept as an
*episode* in ``episodes.db`` (secrets redacted), by the sqlite backend's episode engine
(:class:`~bot.memory.episodes.engine.Episodes`: stems, BM25, the time a query names): the write
policy decides what becomes a fact, not what can be recalled. ``search`` blends the two with
:func:`~bot.memory.episodes.blend.blend` on their own scores (a structural hit scores its
weighted role similarity, 0.55 to 1; a lexical one at most 0.5; an episode about 1 for the
best BM25 match of its pool): on the long-conversation set, scaling the facts' scores by 0.5
to 2 against the episodes' moved recall@5 by at most 0.003. An episode's id reads ``e42``; a
fact's id is looked up first, so one that happens to read like that is still the fact.

Every item records its audience label (:mod:`bot.turn.audience`): where it was said, or ``shared``
once the user made it so. A turn recalls only what its audience sees (the candidate masks of
:mod:`bot.memory.holographic.recall`, the episodes' SQL), a mirrored file's lines carry the
label of the file's folder, and a sentence said again follows
:mod:`bot.memory.reinforcement` (said in a shared room, a direct room's item or another room's
is stored anew for it); so do episodes.

Layout: this module is the :class:`MemoryBackend` (write policy, lifecycle, inspection, tools);
:mod:`bot.memory.holographic.recall` holds the active facts and recall over their traces;
:mod:`bot.memory.holographic.store` is the SQLite file of facts;
:mod:`bot.memory.episodes.file` the file of episodes.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import structlog

from bot.daemon.disk import run_on_text
from bot.memory.base import (
    AddResult,
    Category,
    MemoryHit,
    MemoryItem,
    TurnRecord,
    format_citation,
    visible_in,
)
from bot.memory.episodes.backend import EpisodeBackend
from bot.memory.episodes.blend import blend
from bot.memory.episodes.engine import Episodes
from bot.memory.episodes.file import EPISODE_FILE, EpisodeFile
from bot.memory.episodes.rows import parse_episode_id
from bot.memory.episodes.store import EpisodeStore
from bot.memory.holographic.hrr import DIM
from bot.memory.holographic.parse import parse
from bot.memory.holographic.recall import ActiveFacts, Recalled, fact_structure
from bot.memory.holographic.store import HolographicStore
from bot.memory.judgement import judged, said_as_fact
from bot.memory.memory_tools import memory_tools
from bot.memory.normal_form import normalise_text
from bot.memory.placeholders import clean_mirror_text
from bot.memory.policy import split_candidates
from bot.memory.reinforcement import once_each
from bot.memory.sqlite.scoring import recency_weight
from bot.tools.registry import Tool
from bot.turn.audience import DIRECT_ROOM, Audience, describe, is_label, label_of_path

__all__ = ["HolographicMemory", "Recalled"]

log = structlog.get_logger(__name__)


class HolographicMemory(EpisodeBackend):
    """Holographic reduced representations over SQLite; no server, no embedder."""

    name = "holographic"

    def __init__(
        self,
        persona_dir: Path,
        *,
        dim: int = DIM,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        super().__init__(persona_dir)
        self.path = persona_dir / "holographic.db"
        self.dim = dim
        self._now = now or (lambda: datetime.now(UTC))
        self._store = HolographicStore(self.path)
        self._facts = ActiveFacts(dim)
        self._lock = asyncio.Lock()
        #: every on-record message, in ``episodes.db``: the sqlite backend's episode engine
        #: (stems, BM25, the time a query names), without an embedder
        self.episodes_path = persona_dir / EPISODE_FILE
        self._episode_file = EpisodeFile(self.episodes_path)
        self.episodes = Episodes(EpisodeStore(self._episode_file), None, "")

    # -- lifecycle -------------------------------------------------------------------------

    async def open(self) -> None:
        if self._store.is_open:
            return
        await self._store.open()
        try:
            await self._episode_file.open()
            await self.episodes.store.settle_old_words()
            await self.episodes.store.renew_addressed()
            stored = await self._store.active()
            self._facts.load((fact.item, fact.structure, fact.trace) for fact in stored)
        except BaseException:
            await self._episode_file.close()
            await self._store.close()
            raise
        log.info("memory.holographic.open", items=len(self._facts.items), symbols=self.symbols)

    async def close(self) -> None:
        await self.episodes.close()
        await self._episode_file.close()
        await self._store.close()

    @property
    def symbols(self) -> int:
        return self._facts.symbols

    # -- writes ----------------------------------------------------------------------------

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

    # -- recall ----------------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        limit: int = 8,
        category: Category | None = None,
        audience: Audience = DIRECT_ROOM,
    ) -> list[Recalled]:
        """Structural matches first (``hrr``), then explicitly lexical ones (``lexical``)."""
        return self._facts.recall(query, limit=limit, category=category, audience=audience)

    async def search(
        self, query: str, *, limit: int = 10, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        """Facts (by structure, then by word overlap) and episodes blended."""
        hits, _ = await self._recall_both(query, limit, audience)
        return hits

    async def _recall_both(
        self, query: str, limit: int, audience: Audience
    ) -> tuple[list[MemoryHit], dict[str, Recalled]]:
        """The ``limit`` best of facts and episodes, and the facts' recall by id (for the
        answers their asked role unbound to)."""
        facts = self.recall(query, limit=limit, audience=audience)
        now = self._now()
        episodes = await self.episodes.pool(query, limit=limit, now=now, labels=audience.labels)
        ranked = episodes.ranked(  # by BM25 alone: no model's cosine
            best_bm25=episodes.best_bm25,
            best_cosine=0.0,
            now=now,
            limit=limit,
            recent=recency_weight(with_model=False),
        )
        hits = blend(
            [recalled.hit for recalled in facts],
            ranked,
            limit,
            prefer="episode" if episodes.asks_when else None,
        )
        return hits, {recalled.hit.item.id: recalled for recalled in facts}

    async def inject(self, *, audience: Audience = DIRECT_ROOM) -> str:
        """The facts that keep coming back (reinforced at least once), with citations; a text
        kept by more than one audience (:mod:`bot.memory.reinforcement`) once."""
        frequent = sorted(
            (
                item
                for item in self._facts.items.values()
                if item.reinforced > 0 and visible_in(item, audience)
            ),
            key=lambda item: (item.reinforced, item.confidence, item.created_at),
            reverse=True,
        )
        lines = [
            f"- {item.text} {format_citation(item)}"
            for item in once_each(frequent, lambda item: item.text)[:6]
        ]
        if not lines:
            return ""
        return "Things you have been told more than once:\n" + "\n".join(lines)

    # -- inspection ------------------------------------------------------------------------

    async def list_items(
        self, *, include_inactive: bool = False, limit: int = 100
    ) -> list[MemoryItem]:
        return await self._store.items(include_inactive=include_inactive, limit=limit)

    async def explain(self, item_id: str) -> dict[str, Any]:
        detail = await self._store.detail(item_id)
        if detail is None:
            episode = parse_episode_id(item_id)
            return {} if episode is None else await self.episodes.store.explain(episode)
        item, structure, updated_at, history = detail
        decoded = {
            role: [word for word, _ in self._facts.answer(item_id, role)]
            for role in structure
            if role != "keywords" and item_id in self._facts.index
        }
        return {
            **item.record(),
            "updated_at": updated_at,
            "citation": format_citation(item),
            "structure": structure,
            "decoded": decoded,
            "history": history,
        }

    async def stats(self) -> dict[str, Any]:
        by_status, by_category = await self._store.counts()
        structured = sum(1 for s in self._facts.structures.values() if s.get("relation"))
        return {
            "backend": self.name,
            "path": str(self.path),
            "dimension": self.dim,
            "symbols": self.symbols,
            "traces": len(self._facts.index),
            "structured": structured,
            "by_status": by_status,
            "by_category": by_category,
            "episodes": await self.episodes.store.counts(),
            "episodes_path": str(self.episodes_path),
        }

    async def export(self) -> list[dict[str, Any]]:
        """Every fact, then every episode (``kind`` tells them apart), every status."""
        return await self._store.export() + await self.episodes.store.export()

    # -- tools -----------------------------------------------------------------------------

    def tools(self, *, audience: Audience = DIRECT_ROOM) -> list[Tool]:
        return memory_tools(
            self,
            search_description=(
                "Recall stored facts and past messages. Ask a question about a person or thing "
                '("what does Scott prefer for breakfast", "when did I go to Porto"); facts '
                "come with [category · source · confidence], messages with [episode · date · "
                "dm|group], each with an id."
            ),
            source=lambda: "persona",
            search_lines=self._search_lines,
            audience=audience,
        )

    async def _search_lines(self, query: str, limit: int, audience: Audience) -> list[str]:
        hits, facts = await self._recall_both(query, limit, audience)
        lines = []
        for hit in hits:
            item = hit.item
            recalled = facts.get(item.id)
            if recalled is None:
                lines.append(f"- {item.text} {format_citation(item)} (id {item.id}){hit.around()}")
                continue
            how = "structure" if "hrr" in hit.parts else "word overlap"
            answer = f" answer: {' '.join(recalled.answer)};" if recalled.answer else ""
            lines.append(
                f"- {item.text} {format_citation(item)} ({how};{answer} id {item.id}){hit.around()}"
            )
        return lines
