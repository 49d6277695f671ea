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

Layout: this module is the :class:`MemoryBackend` (lifecycle and the model's tools), the class
built from :mod:`bot.memory.holographic.backend_writes` (the write policy, a turn's facts, a
memory file's lines, forgetting and sharing) and :mod:`bot.memory.holographic.backend_reads`
(recall blended with the episodes, the prompt's standing facts, list, explain, stats, export);
:mod:`bot.memory.holographic.recall` holds the active facts and recall over their traces;
:mod:`bot.memory.holographic.store` is the SQLite file of facts;
:mod:`bot.memory.episodes.file` the file of episodes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import structlog

from bot.memory.base import format_citation
from bot.memory.episodes.backend import EpisodeBackend
from bot.memory.episodes.engine import Episodes
from bot.memory.episodes.file import EPISODE_FILE, EpisodeFile
from bot.memory.episodes.store import EpisodeStore
from bot.memory.holographic.backend_reads import HolographicReads
from bot.memory.holographic.backend_writes import HolographicWrites
from bot.memory.holographic.hrr import DIM
from bot.memory.holographic.recall import ActiveFacts
from bot.memory.holographic.store import HolographicStore
from bot.memory.memory_tools import memory_tools
from bot.tools.registry import Tool
from bot.turn.audience import DIRECT_ROOM, Audience

__all__ = ["HolographicMemory"]

log = structlog.get_logger(__name__)


class HolographicMemory(HolographicWrites, HolographicReads, EpisodeBackend):
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
