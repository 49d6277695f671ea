"""The default memory backend: one SQLite file per persona, hybrid recall over FTS5.

Recall (:mod:`bot.memory.sqlite.recall`) takes the best FTS5 (BM25) matches of the sanitised
query and, when an embedder is installed, the nearest vectors in the persona's in-memory
matrix; the union is scored by :mod:`bot.memory.sqlite.scoring` (BM25 + cosine + recency +
importance). Without an embedder the same interface answers by BM25 alone. A turn recalls only
what its audience sees (:mod:`bot.turn.audience`): in a shared room, what was said there and what
was made shared; the FTS subquery and the vector mask drop the others before anything is
ranked, so its pool is as full as a direct turn's.

Writes pass :func:`bot.memory.sqlite.admission.admit` (length, category, the write policy of
:mod:`bot.memory.policy`); secrets are refused even when forced. Repeats of a fact (same
normalised text among the items the writer reaches, a shared room what it sees, or cosine >=
0.92 among those it sees: :mod:`bot.memory.reinforcement`) reinforce the existing item and come
back as ``AddResult(stored=False, duplicate_of=<its id>)``. Nothing is ever deleted: forgetting
and superseding only change a status, and the item stays in the file, explainable.

A corrupt or locked ``memory.db`` raises :class:`~bot.daemon.errors.MemoryStoreError` naming the
file; the file is left exactly as it was. The SQL lives in :mod:`bot.memory.sqlite.store`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import structlog

from bot.daemon.disk import run_on_text
from bot.memory.base import (
    AddResult,
    Category,
    MemoryHit,
    MemoryItem,
    TurnRecord,
    clamp_confidence,
    format_citation,
)
from bot.memory.embedding.models import Embedder, Matrix
from bot.memory.episodes.backend import EpisodeBackend
from bot.memory.episodes.blend import blend
from bot.memory.episodes.engine import Episodes
from bot.memory.episodes.rows import parse_episode_id
from bot.memory.episodes.store import EpisodeStore
from bot.memory.memory_tools import memory_tools
from bot.memory.policy import classify, split_candidates
from bot.memory.reinforcement import near_labels, twin_labels
from bot.memory.remember_requests import fact_to_keep
from bot.memory.sqlite import second_search
from bot.memory.sqlite.admission import FORCED_CONFIDENCE, MAX_ITEM_CHARS, admit, mirrorable_lines
from bot.memory.sqlite.query import MAX_QUERY_CHARS, normalise_text
from bot.memory.sqlite.recall import CANDIDATE_MARGIN, fact_pool, score_facts
from bot.memory.sqlite.scoring import W_COSINE, Ranking, recency_weight
from bot.memory.sqlite.store import FtsStore
from bot.memory.sqlite.vector_index import VectorIndex, embed_missing, stored_index
from bot.tools.registry import Tool
from bot.turn.audience import DIRECT_ROOM, Audience, is_label, label_of_path

__all__ = [
    "CANDIDATE_MARGIN",
    "DUPLICATE_COSINE",
    "FORCED_CONFIDENCE",
    "MAX_ITEM_CHARS",
    "Filled",
    "SqliteFtsMemory",
]

log = structlog.get_logger(__name__)

DUPLICATE_COSINE = 0.92
#: the index's cosines are coarse (within 0.043): the rows it finds this far below
#: :data:`DUPLICATE_COSINE` are checked by their exact vectors
_COARSE = 0.05
_NEAR_TWINS = 4
_FILE_SOURCES = ("MEMORY.md", "USER.md")
_INJECT_LIMIT = 5


class Filled(NamedTuple):
    """What the background fill embedded: facts, messages, long messages' sentences."""

    facts: int
    episodes: int
    sentences: int


class SqliteFtsMemory(EpisodeBackend):
    """``persona_dir/memory.db``: FTS5 + optional embeddings. Use ``async with``."""

    name = "sqlite-fts5"

    def __init__(
        self,
        persona_dir: Path,
        *,
        embedder: Embedder | None = None,
        now: Callable[[], datetime] | None = None,
        busy_timeout: float = 5.0,
    ) -> None:
        super().__init__(persona_dir)
        self.path = persona_dir / "memory.db"
        self.embedder = embedder
        self._now = now or (lambda: datetime.now(UTC))
        self._store = FtsStore(self.path, busy_timeout=busy_timeout)
        self._index: VectorIndex | None = None
        #: the background embedding of what was said before the open and has no vector of
        #: the model: facts, messages, long messages' sentences (:meth:`_fill`)
        self.filling: asyncio.Task[Filled] | None = None
        #: the last fact kept before the open: the facts the fill goes through
        self._facts_through = 0
        self._write_lock = asyncio.Lock()
        self.episodes = Episodes(EpisodeStore(self._store), embedder, self.model_name)

    # -- lifecycle ---------------------------------------------------------------------------

    async def open(self) -> None:
        await self._store.open()
        try:
            await self.episodes.store.settle_old_words()
            await self.episodes.store.renew_addressed()
        except BaseException:
            await self._store.close()
            raise
        if self.embedder is not None:
            try:
                await self._load_vectors(self.embedder)
                await self.episodes.load_vectors()
                self.filling = asyncio.create_task(self._fill(), name="memory-vector-fill")
            except BaseException:
                await self.episodes.close()
                await self._store.close()
                raise

    async def close(self) -> None:
        if self.filling is not None:
            self.filling.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.filling
        await self.episodes.close()
        await self._store.close()
        self._index = None

    @property
    def searches_meaning(self) -> bool:
        return self.embedder is not None

    @property
    def model_name(self) -> str:
        if self.embedder is None:
            return ""
        return str(getattr(self.embedder, "name", type(self.embedder).__name__))

    async def _load_vectors(self, embedder: Embedder) -> None:
        """Read every stored vector of the facts into one matrix; those without one are
        :meth:`_fill`'s."""
        self._index = await stored_index(embedder.dim, self._store, self.model_name)
        self._facts_through = await self._store.newest()
        log.info("memory.vectors_loaded", vectors=len(self._index))

    async def _fill(self) -> Filled:
        """In the background, once open: embed what was said before the open and has no
        vector of the model (all of it after a change of model, which must not hold the
        first answer for minutes): the facts, then the messages and their sentences. Until
        then they are found by their words. A failure is logged (the next open resumes where
        this one stopped), never raised into the daemon."""
        if self.embedder is None or self._index is None:
            return Filled(0, 0, 0)
        try:
            facts = await embed_missing(
                self._index,
                self.embedder,
                self._store,
                self.model_name,
                through=self._facts_through,
            )
            episodes, sentences = await self.episodes.fill()
        except Exception as exc:  # a background task: nobody else would hear of it
            log.warning("memory.vector_fill_failed", error=str(exc))
            return Filled(0, 0, 0)
        filled = Filled(facts, episodes, sentences)
        if any(filled):
            log.info("memory.vectors_filled", **filled._asdict())
        return filled

    # -- writes ------------------------------------------------------------------------------

    async def _add(
        self,
        text: str,
        *,
        source: str,
        category: Category | None,
        force: bool,
        audience: str,
        confidence: float | None,
        at: datetime | None = None,
        once_per_statement: bool = False,
        episode: int | None = None,
    ) -> AddResult:
        """Store ``text`` said where the label ``audience`` names. A repeat of an item (same
        normal form, among :func:`~bot.memory.reinforcement.twin_labels`) reinforces it, and
        said as ``shared`` makes it shared; a near repeat (by cosine) counts only among the
        items the writer sees: in a shared room, a private item's wording is never what a new
        statement there becomes, nor another room's."""
        text = text.strip()
        admitted = admit(text, category=category, force=force)
        if isinstance(admitted, AddResult):
            return admitted
        chosen, reason = admitted.category, admitted.reason
        confidence = admitted.confidence if confidence is None else clamp_confidence(confidence)
        text = fact_to_keep(text)  # judged as said, kept as the fact asked for
        vector = None
        if self.embedder is not None and self._index is not None:
            vector = (await self.embedder.embed([text]))[0]
        stated = (at or self._now()).timestamp()
        norm = normalise_text(text)
        async with self._write_lock:
            duplicate = None
            twins = twin_labels(audience)
            if vector is not None and self._index is not None:
                twin = await self._near_twin(self._index, vector, audience)
                if twin is not None:
                    duplicate = await self._store.active_by_id(twin)
            if duplicate is None:
                rowid = await self._store.insert_unless_known(
                    text,
                    norm,
                    chosen,
                    source,
                    confidence,
                    stated,
                    reason,
                    audience,
                    twins,
                    episode=episode,
                )
                if rowid is not None:
                    if vector is not None and self._index is not None:
                        await self._store.put_vectors([rowid], vector[None, :], self.model_name)
                        self._index.add(rowid, vector, label=audience)
                    log.debug("memory.stored", item=rowid, category=chosen, source=source)
                    return AddResult(True, chosen, reason, str(rowid))
                duplicate = await self._store.active_by_norm(norm, twins)
            if duplicate is None:  # the twin was forgotten between the two statements
                return AddResult(False, None, "rejected: conflicting concurrent write")
            dup_id, dup_category, last_seen = duplicate
            if once_per_statement and abs(last_seen - stated) < 1e-3:
                why = "already recorded from this statement"
            else:
                await self._store.reinforce(dup_id, at=stated, source=source)
                why = f"reinforced existing memory {dup_id}"
            return AddResult(False, dup_category, why, str(dup_id), str(dup_id))

    async def _near_twin(self, index: VectorIndex, vector: Matrix, audience: str) -> int | None:
        """The item the writer sees whose exact cosine with ``vector`` is the highest at or
        above :data:`DUPLICATE_COSINE`, if any (the index finds the candidates)."""
        near = index.nearest(
            vector, _NEAR_TWINS, DUPLICATE_COSINE - _COARSE, labels=near_labels(audience)
        )
        exact = await self._store.cosines(self.model_name, vector, [rowid for rowid, _ in near])
        best = max(exact, key=exact.__getitem__, default=None)
        return best if best is not None and exact[best] >= DUPLICATE_COSINE else None

    async def sync(self, turn: TurnRecord) -> None:
        """Both sides of the turn become episodes; the write policy picks the user's sentences
        that also become durable facts."""
        episode = await self.episodes.record(turn)
        await self._store_turn(turn, episode)

    async def extract(self, turns: Sequence[TurnRecord]) -> int:
        """Candidates of every user message; returns how many new items were stored.

        A fact ``sync`` already recorded from the same turn is not counted twice.
        """
        stored = 0
        for turn in turns:
            stored += await self._store_turn(turn)
        return stored

    async def _store_turn(self, turn: TurnRecord, episode: int | None = None) -> int:
        """Store the facts of ``turn``'s user message, told in the episode ``episode``."""
        source = f"{turn.platform} {turn.at:%Y-%m-%d}"
        stored = 0
        for candidate in await run_on_text(turn.user_text, split_candidates):
            result = await self._add(
                candidate,
                source=source,
                category=None,
                force=False,
                at=turn.at,
                audience=turn.audience,
                confidence=None,
                once_per_statement=True,
                episode=episode,
            )
            stored += int(result.stored)
        return stored

    async def mirror(self, filename: str, text: str) -> None:
        """Each line of ``filename`` (a path inside the persona's folder: ``MEMORY.md``,
        ``shared/USER.md``, ``rooms/<room>/MEMORY.md``) is a memory (source = that path);
        vanished lines are marked superseded, lines that come back are active again. Secrets
        never enter. The lines have the audience of the file's folder
        (:func:`~bot.turn.audience.label_of_path`): the prompt of that audience holds the file."""
        label = label_of_path(filename)
        wanted = mirrorable_lines(text)
        known = await self._store.mirror_state(filename)
        at = self._now().timestamp()
        for norm, line in wanted.items():
            entry = known.get(norm)
            if entry is not None and entry[1]:
                continue  # present last time too
            if entry is not None:
                await self._store.mirror_return(filename, norm, entry[0], at=at)
                if self._index is not None:
                    self._index.set_active(entry[0], await self._store.is_active(entry[0]))
                continue
            verdict = classify(line)
            result = await self._add(
                line,
                source=filename,
                category=verdict.category,
                force=True,
                audience=label,
                confidence=None,
            )
            if result.item_id is not None:
                await self._store.mirror_record(filename, norm, int(result.item_id))
        for norm, (rowid, present) in known.items():
            if present and norm not in wanted:
                left = await self._store.mirror_leave(filename, norm, rowid, at=at)
                if left and self._index is not None:
                    self._index.set_active(rowid, False)
        log.info("memory.mirrored", file=filename, lines=len(wanted))

    async def forget(self, item_id: str, *, audience: Audience = DIRECT_ROOM) -> bool:
        episode = parse_episode_id(item_id)
        if episode is not None:
            return await self.episodes.forget(episode, labels=audience.labels)
        rowid = _parse_id(item_id)
        if rowid is None:
            return False
        async with self._write_lock:
            found = await self._store.forget(
                rowid, at=self._now().timestamp(), labels=audience.labels
            )
        if found and self._index is not None:
            self._index.set_active(rowid, False)
        return found

    async def share(self, item_id: str, label: str) -> bool:
        """Give a fact (``42``) or an episode (``e42``) the audience ``label``."""
        if not is_label(label):
            raise ValueError(f"{label!r} is not an audience label")
        at = self._now().timestamp()
        episode = parse_episode_id(item_id)
        if episode is not None:
            return await self.episodes.share(episode, label, at=at)
        rowid = _parse_id(item_id)
        if rowid is None:
            return False
        async with self._write_lock:
            was = await self._store.share(rowid, label, at=at)
        if was is not None and self._index is not None:
            self._index.set_label(rowid, label)
        return was is not None

    # -- reads -------------------------------------------------------------------------------

    async def inject(self, *, audience: Audience = DIRECT_ROOM) -> str:
        items = await self._store.standing_items(
            _FILE_SOURCES, _INJECT_LIMIT, labels=audience.labels
        )
        if not items:
            return ""
        lines = [f"- {item.text} {format_citation(item)}" for item in items]
        return "What you remember from earlier conversations:\n" + "\n".join(lines)

    async def search(
        self, query: str, *, limit: int = 10, audience: Audience = DIRECT_ROOM
    ) -> list[MemoryHit]:
        """Facts and episodes blended: candidates of both, scored on one scale (BM25 and
        cosine each divided by the best of the whole pool), then the ``limit`` best; and a
        second search with the rarest words of the first's best hits added, fused with it
        (:mod:`bot.memory.sqlite.second_search`)."""
        first = await self._search_once(query, limit, audience)
        if not second_search.SEED_HITS or not first:
            return first
        words = second_search.seed_words(query, first)
        frequencies = await self.episodes.store.doc_frequencies(list(set(words.values())))
        extra = second_search.expansion_words(words, frequencies)
        if not extra:
            return first
        # the words widen the BM25 search; its meaning stays the question's (measured: set B
        # with MiniLM .640 against .629 embedding the widened words), its vector cached
        widened = f"{query} {' '.join(extra)}"
        second = await self._search_once(widened, limit, audience, meaning=query)
        return second_search.fused(first, second, limit)

    async def _search_once(
        self, query: str, limit: int, audience: Audience, *, meaning: str = ""
    ) -> list[MemoryHit]:
        vector: asyncio.Task[Matrix | None] | None = None
        if self.embedder is not None and self._index is not None and query.strip():
            # the model runs in a worker thread while the BM25 statements run in SQLite's
            vector = asyncio.ensure_future(self._embed_query(self.embedder, meaning or query))
        # both on one connection: gathered, their statements queue up back to back instead
        # of each waiting for the event loop between them
        try:
            facts, episodes = await asyncio.gather(
                fact_pool(
                    self._store,
                    query,
                    limit=limit,
                    query_vector=vector,
                    index=self._index,
                    model=self.model_name,
                    labels=audience.labels,
                ),
                self.episodes.pool(
                    query,
                    limit=limit,
                    now=self._now(),
                    labels=audience.labels,
                    query_vector=vector,
                ),
            )
        finally:
            if vector is not None:  # neither pool needed it, or one failed first
                vector.cancel()
        now = self._now()
        # one scale for both kinds: a fact that matches one word of the query is not made
        # the equal of the episode that matches them all just because it is the best fact
        fact_best = min((row.candidate.bm25_raw for row in facts), default=0.0)
        best = min(fact_best, episodes.best_bm25)
        cosine = max(
            max((row.candidate.cosine for row in facts), default=0.0), episodes.best_cosine
        )
        ranking = Ranking(
            best_bm25=best,
            best_cosine=cosine,
            now=now,
            limit=limit,
            meaning=W_COSINE if self.embedder is None else self.embedder.meaning,
            recent=recency_weight(with_model=self.embedder is not None),
        )
        hits = blend(
            score_facts(facts, **ranking),
            episodes.ranked(**ranking),
            limit,
            prefer="episode" if episodes.asks_when else None,
        )
        await self._cite_episodes(hits, audience)
        return hits

    async def _cite_episodes(self, hits: list[MemoryHit], audience: Audience) -> None:
        """Give each recalled fact the text of the episode it was told in, when the turn's
        audience may see it and it is not forgotten (blending did it for the facts whose
        episode was recalled too)."""
        wanted: dict[int, list[MemoryHit]] = {}
        for hit in hits:
            rowid = parse_episode_id(hit.item.episode) if hit.item.episode else None
            if hit.item.kind == "fact" and rowid is not None and not hit.item.context:
                wanted.setdefault(rowid, []).append(hit)
        if not wanted:
            return
        for row in await self.episodes.store.rows_by_id(list(wanted), labels=audience.labels):
            for hit in wanted[row.rowid]:
                hit.item.context = row.text

    @staticmethod
    async def _embed_query(embedder: Embedder, query: str) -> Matrix | None:
        vectors = await embedder.embed_query(query[:MAX_QUERY_CHARS])
        return vectors[0] if len(vectors) else None

    async def list_items(
        self, *, include_inactive: bool = False, limit: int = 100
    ) -> list[MemoryItem]:
        return await self._store.list_items(include_inactive=include_inactive, limit=limit)

    async def explain(self, item_id: str) -> dict[str, Any]:
        """Everything about one item, history included; an empty dict if there is none."""
        episode = parse_episode_id(item_id)
        if episode is not None:
            return await self.episodes.store.explain(episode)
        rowid = _parse_id(item_id)
        if rowid is None:
            return {}
        details = await self._store.explain(rowid)
        if details and self._index is not None:
            details["has_vector"] = self._index.has(rowid)
        return details

    async def stats(self) -> dict[str, Any]:
        stats = await self._store.stats()
        stats["backend"] = self.name
        stats["embedder"] = self.model_name or None
        stats["vectors_loaded"] = len(self._index) if self._index is not None else 0
        stats["episodes"] = await self.episodes.store.counts()
        sentences = self.episodes.sentences
        stats["sentence_vectors_loaded"] = len(sentences) if sentences is not None else 0
        return stats

    async def export(self) -> list[dict[str, Any]]:
        """Every fact, then every episode (``kind`` tells them apart), every status."""
        facts = [{**fact, "kind": "fact"} for fact in await self._store.export()]
        return facts + await self.episodes.store.export()

    def tools(self, *, audience: Audience = DIRECT_ROOM) -> list[Tool]:
        """``memory_search``, ``memory_add`` and ``memory_forget`` for the model."""
        return memory_tools(
            self,
            search_description=(
                "Search your long-term memory of this user (full text, accents ignored, plus "
                "meaning when embeddings are installed). Returns memories best first, each with "
                "its [category · source · confidence] citation and id."
            ),
            source=lambda: f"assistant {self._now():%Y-%m-%d}",
            audience=audience,
        )


def _parse_id(item_id: str) -> int | None:
    text = str(item_id).strip().lstrip("#")
    return int(text) if text.isdigit() and len(text) < 19 else None
