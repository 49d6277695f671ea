"""Episodic memory: every on-record message kept as it was said, and recalled by its words,
its meaning and its date.

The write policy decides which sentences become durable *facts*; it does not decide what can
be recalled. :meth:`Episodes.record` keeps both sides of every on-record turn (secrets
redacted first, :func:`~bot.memory.secrets.detector.redact_secrets`), with its time and
audience label (:mod:`bot.turn.audience`); a message said again reinforces its episode (within the
rules of :mod:`bot.memory.reinforcement`, as facts do). :meth:`Episodes.pool` finds a query's
candidates: its BM25 matches over the stems of :mod:`bot.memory.sqlite.stemming` (the matches
said within the time the query names join the pool even when words outside it score higher,
:mod:`bot.memory.episodes.time_query`) and, with an embedder, the nearest by meaning;
:class:`~bot.memory.episodes.pool.EpisodePool` scores them. A search is given the labels its
audience sees (``labels``; None: all), applied in the SQL and the vector mask before the pool
is cut: a DM episode is never recalled in a shared room, nor one shared room's in another.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable
from datetime import datetime

import structlog

from bot.daemon.disk import run_on_text
from bot.memory.addressed_names import message_terms
from bot.memory.base import TurnRecord
from bot.memory.embedding.models import Embedder, Matrix
from bot.memory.episodes.pool import EpisodePool
from bot.memory.episodes.question_asked import LastAsked, index_answers_again, question_stems
from bot.memory.episodes.rows import EpisodeRow, Said
from bot.memory.episodes.sentence_fill import fill_sentences
from bot.memory.episodes.sentence_vectors import (
    MAX_SENTENCES,
    SentenceIndex,
    sentences_of,
)
from bot.memory.episodes.store import EpisodeStore
from bot.memory.episodes.time_query import read_time
from bot.memory.episodes.work_words import asks_about_work
from bot.memory.normal_form import normalise_text
from bot.memory.secrets.detector import redact_secrets
from bot.memory.sqlite.connection import Labels
from bot.memory.sqlite.index_loading import embed_missing, stored_index
from bot.memory.sqlite.query import MAX_QUERY_CHARS, plan_match
from bot.memory.sqlite.scoring import MIN_COSINE
from bot.memory.sqlite.stemming import query_stem_groups
from bot.memory.sqlite.vector_index import VectorIndex

__all__ = ["MAX_EPISODE_CHARS", "Episodes", "analyse"]

log = structlog.get_logger(__name__)

MAX_EPISODE_CHARS = 4000
"""An episode keeps this much of a message (the whole message stays in the session log)."""

_POOL_MARGIN = 12


def analyse(text: str) -> tuple[str, str, str]:
    """(stored text, normal form, index stems) of a message: secrets redacted, length capped."""
    kept = redact_secrets(text.strip())[:MAX_EPISODE_CHARS]
    return kept, normalise_text(kept), message_terms(kept)


class Episodes:
    """One persona's episodes: their store, and their vectors when an embedder is loaded."""

    def __init__(self, store: EpisodeStore, embedder: Embedder | None, model: str) -> None:
        self.store = store
        self.embedder = embedder
        self.model = model
        self.index: VectorIndex | None = None
        self.sentences: SentenceIndex | None = None
        #: the last episode said before the vectors were loaded: what :meth:`fill` goes
        #: through (each said after gets its vectors as it is recorded)
        self._through = 0
        #: held from looking up the question a message answers to storing it, and by forget
        #: and share: a question forgotten meanwhile never lends its words
        self._pairing = asyncio.Lock()
        #: the persona's last message to each (audience, platform), said or said again
        self._asked: dict[tuple[str, str], LastAsked] = {}

    async def load_vectors(self) -> None:
        """Read the stored vectors of the episodes and of their sentences into their indexes;
        what has none yet is :meth:`fill`'s, and is found by its words until then."""
        if self.embedder is None:
            return
        self.index = await stored_index(self.embedder.dim, self.store, self.model)
        self._through = await self.store.last_episode()
        self.sentences = await SentenceIndex.load(self.store, self.model, self.embedder.dim)
        log.info(
            "memory.episode_vectors_loaded",
            vectors=len(self.index),
            sentences=len(self.sentences),
        )

    async def fill(self) -> tuple[int, int]:
        """Embed the episodes said before the vectors were loaded that have no vector of the
        model (all of them, the first time a model is used), then give older long messages
        their sentence vectors; how many of each. The backend runs it in the background
        (:meth:`~bot.memory.sqlite.backend.SqliteFtsMemory.open`)."""
        if self.embedder is None or self.index is None or self.sentences is None:
            return 0, 0
        embedded = await embed_missing(
            self.index, self.embedder, self.store, self.model, through=self._through
        )
        made = await fill_sentences(
            self.sentences, self.store, self.embedder, self.model, through=self._through
        )
        return embedded, made

    async def close(self) -> None:
        """Drop the indexes; before the store closes (the backend has stopped the fill)."""
        self.index = None
        self.sentences = None

    async def set_active(self, rowid: int, active: bool) -> None:
        """The episode was forgotten (or brought back): its vectors and its sentences' too."""
        if self.index is not None:
            self.index.set_active(rowid, active)
        if self.sentences:
            await self.sentences.set_active(rowid, active)

    async def set_label(self, rowid: int, label: str) -> None:
        """The episode's audience changed: searches see it, and its sentences, by it now."""
        if self.index is not None:
            self.index.set_label(rowid, label)
        if self.sentences:
            await self.sentences.set_label(rowid, label)

    async def record(self, turn: TurnRecord) -> int | None:
        """Keep both sides of ``turn`` (repeats reinforce their episode instead); the rowid of
        the user's message's episode, which the facts told in it cite, or None if it is empty."""
        analysed = []
        for speaker, raw in (("user", turn.user_text), ("persona", turn.reply_text)):
            if raw.strip():
                text, norm, terms = await run_on_text(raw, analyse)
                if norm:
                    analysed.append((speaker, text, norm, terms))
        new: list[tuple[int, str]] = []
        users = None
        at = turn.at.timestamp()
        place = (turn.audience, turn.platform)
        async with self._pairing:
            # the question just before, while the store says it is heard here: one forgotten,
            # made private or another room's since (perhaps by `personad memory` in another
            # process) is answered by nothing
            asked = self._asked.get(place)
            if asked is not None and not (
                asked.answered_at(at) and await self.store.question_heard(asked.rowid, place[0])
            ):
                asked = None
            said: list[Said] = []
            for speaker, text, norm, terms in analysed:
                if speaker == "user" and asked is not None:
                    lent = f"{terms} {asked.lends}"
                    said.append(Said(at, speaker, *place, text, norm, lent, asked.rowid))
                else:
                    said.append(Said(at, speaker, *place, text, norm, terms))
            for message, kept in zip(said, await self.store.record(said), strict=True):
                if message.speaker == "user" and kept.rowid:
                    users = kept.rowid
                if message.speaker == "persona" and kept.rowid:
                    self._asked[place] = LastAsked(kept.rowid, at, question_stems(message.text))
                if kept.created:
                    new.append((kept.rowid, message.text))
        if new and self.embedder is not None and self.index is not None:
            # the forward pass runs in a worker thread; both sides and their sentences in one
            # batch
            split = [(rowid, part) for rowid, text in new for part in sentences_of(text)]
            vectors = await self.embedder.embed(
                [text for _, text in new] + [part for _, part in split]
            )
            whole, parts = vectors[: len(new)], vectors[len(new) :]
            await self.store.put_vectors([rowid for rowid, _ in new], whole, self.model)
            # a long message is found by its sentences: its own vector (which still scores
            # it, from the store) would only take room in the index; one with more sentences
            # than get vectors keeps its row, so what it says past them is found by meaning
            found_by_sentences: set[int] = set()
            try:
                if split and self.sentences is not None:
                    owners = [rowid for rowid, _ in split]
                    ids = await self.store.put_sentence_vectors(owners, parts, self.model)
                    self.sentences.add(ids, parts, label=turn.audience)
                    counts = Counter(owners)
                    found_by_sentences = {r for r, n in counts.items() if n < MAX_SENTENCES}
            finally:
                for (rowid, _), vector in zip(new, whole, strict=True):
                    if rowid not in found_by_sentences:
                        self.index.add(rowid, vector, label=turn.audience)
        return users

    async def forget(self, rowid: int, *, labels: Labels = None, at: float | None = None) -> bool:
        """Mark the episode forgotten (False when there is none of the ``labels``); its
        vectors leave the indexes, and what answered it is indexed without its words (before
        the change, so a failure between the two leaves fewer words, never more)."""
        async with self._pairing:
            await index_answers_again(self.store, rowid, lend=False)
            found = await self.store.forget(rowid, labels=labels, at=at)
            if found:
                await self.set_active(rowid, False)
            await index_answers_again(self.store, rowid)
        return found

    async def share(self, rowid: int, label: str, *, at: float) -> bool:
        """Give the episode the audience ``label`` (False when there is none); it and what
        answers it are indexed with no question's words across the change, then with those
        of a question they still hear (``EpisodeStore.question_heard``)."""
        async with self._pairing:
            await index_answers_again(self.store, rowid, lend=False)
            found = await self.store.share(rowid, label, at=at)
            if found:
                await self.set_label(rowid, label)
            await index_answers_again(self.store, rowid)
        return found

    async def pool(
        self,
        query: str,
        *,
        limit: int,
        now: datetime,
        labels: Labels = None,
        query_vector: Awaitable[Matrix | None] | None = None,
    ) -> EpisodePool:
        """The candidate episodes for ``query``: BM25 matches (those said within the time it
        names too) and, with ``query_vector`` (awaited after the BM25 matches), the nearest by
        meaning."""
        hint = read_time(query[:MAX_QUERY_CHARS], now)
        if limit <= 0:
            return EpisodePool(
                [], hint.window, hint.asks_when, asks_about_work(query[:MAX_QUERY_CHARS])
            )
        groups = query_stem_groups(hint.text)
        stems = list(dict.fromkeys(stem for group in groups for stem in group))
        pool = limit + _POOL_MARGIN
        rows: dict[int, EpisodeRow] = {}
        if stems:
            frequencies = await self.store.doc_frequencies(stems)
            plans = plan_match(stems, frequencies, groups)
            # the best matches said within the window too, unless every match is in the pool
            window = hint.window if sum(frequencies.values()) >= pool else None
            for plan in plans:
                within: list[EpisodeRow] = []
                if window is not None and plan is plans[-1] and plan.newest is None:
                    found, within = await self.store.match_and_within(
                        plan.expression, pool, window, labels=labels
                    )
                    window = None
                else:
                    found = await self.store.match(
                        plan.expression, pool, newest=plan.newest, labels=labels
                    )
                rows = {row.rowid: row for row in found}
                for row in within:
                    rows.setdefault(row.rowid, row)
                if len(found) >= limit:
                    break
            if window is not None and plans:  # the widest plan was not needed, or ranks the newest
                for row in await self.store.match(
                    plans[-1].expression, pool, labels=labels, window=window
                ):
                    rows.setdefault(row.rowid, row)
        vector = await query_vector if query_vector is not None else None
        # a store whose every message is long has only sentences to find them by
        if vector is not None and self.index is not None and (len(self.index) or self.sentences):
            near = self.index.nearest(vector, pool, MIN_COSINE, labels=labels)
            if hint.window is not None:
                # "where did I go in March": the words say little, the window and meaning a lot
                then = await self.store.said_within(hint.window, labels=labels)
                closest = await self._closest_of(vector, then, labels)
                near += sorted(closest.items(), key=lambda pair: pair[1], reverse=True)[:pool]
            if self.sentences:
                near += await self.sentences.nearest_episodes(
                    vector, pool, MIN_COSINE, labels=labels
                )
            extra = [rowid for rowid, _ in near if rowid not in rows]
            for row in await self.store.rows_by_id(extra, labels=labels):
                rows[row.rowid] = row
            cosines = await self._cosines(vector, list(rows))
            for row in rows.values():
                row.cosine = cosines.get(row.rowid, 0.0)
        return EpisodePool(
            list(rows.values()),
            hint.window,
            hint.asks_when,
            asks_about_work(query[:MAX_QUERY_CHARS]),
        )

    async def _closest_of(
        self, vector: Matrix, rowids: list[int], labels: Labels
    ) -> dict[int, float]:
        """The cosines of ``rowids`` as the indexes hold them (near enough to choose among
        them): a long message's is its model's sentence weight times its closest sentence's."""
        assert self.index is not None
        closest = self.index.cosine_of(vector, rowids, labels=labels)
        if self.sentences and self.embedder is not None:
            weight = self.embedder.sentence_weight
            unindexed = [rowid for rowid in rowids if rowid not in closest]
            by_sentence = await self.sentences.cosine_of_episodes(vector, unindexed, labels=labels)
            closest.update((rowid, weight * c) for rowid, c in by_sentence.items())
        return closest

    async def _cosines(self, vector: Matrix, rowids: list[int]) -> dict[int, float]:
        """Each episode's exact cosine: its own vector's, or its model's sentence weight
        (:attr:`~bot.memory.embedding.models.Embedder.sentence_weight`) times its closest
        sentence's, whichever is higher."""
        cosines = await self.store.cosines(self.model, vector, rowids)
        if self.sentences and self.embedder is not None:
            weight = self.embedder.sentence_weight
            closest = await self.store.sentence_cosines(self.model, vector, rowids)
            for rowid, cosine in closest.items():
                cosines[rowid] = max(cosines.get(rowid, 0.0), weight * cosine)
        return cosines
