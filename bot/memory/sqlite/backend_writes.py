"""How :class:`~bot.memory.sqlite.backend.SqliteFtsMemory` keeps facts: a turn's, a
session's, a memory file's lines, and one the model or a person adds.

Every fact passes :func:`bot.memory.sqlite.admission.admit` (length, category, the write
policy of :mod:`bot.memory.policy`); secrets are refused even when forced. A repeat (the same
normalised text among the items the writer reaches, a shared room what it sees, or cosine >=
:data:`DUPLICATE_COSINE` among those it sees: :mod:`bot.memory.reinforcement`) reinforces the
existing item and comes back as ``AddResult(stored=False, duplicate_of=<its id>)``. A fact
gets its vector as it is said, in the store and in the index.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import structlog

from bot.daemon.disk import run_on_text
from bot.memory.base import AddResult, Category, TurnRecord, clamp_confidence
from bot.memory.embedding.models import Embedder, Matrix
from bot.memory.episodes.engine import Episodes
from bot.memory.normal_form import normalise_text, without_signs
from bot.memory.policy import classify, split_candidates
from bot.memory.reinforcement import near_labels, twin_labels
from bot.memory.remember_requests import fact_to_keep
from bot.memory.sqlite.admission import admit, mirrorable_lines
from bot.memory.sqlite.store import FtsStore
from bot.memory.sqlite.vector_index import VectorIndex
from bot.turn.audience import label_of_path

__all__ = ["DUPLICATE_COSINE", "FactWrites"]

log = structlog.get_logger(__name__)

DUPLICATE_COSINE = 0.92
#: the index's cosines are coarse (within 0.043): the rows it finds this far below
#: :data:`DUPLICATE_COSINE` are checked by their exact vectors
_COARSE = 0.05
_NEAR_TWINS = 4


class FactWrites:
    """The backend's writes of facts (a part of
    :class:`~bot.memory.sqlite.backend.SqliteFtsMemory`)."""

    # what it uses of the backend
    embedder: Embedder | None
    episodes: Episodes
    _store: FtsStore
    _index: VectorIndex | None
    _now: Callable[[], datetime]
    _write_lock: asyncio.Lock

    if TYPE_CHECKING:

        @property
        def model_name(self) -> str: ...

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
        known = await self._mirrored_lines(filename, wanted)
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

    async def _mirrored_lines(
        self, filename: str, wanted: dict[str, str]
    ) -> dict[str, tuple[int, bool]]:
        """The lines of ``filename`` the store knows, by comparison form; a line recorded
        before the form kept signs ("A+") is known by its old form ("a"), which is the new one
        without them: it takes the new form of a wanted line that has none recorded yet."""
        known = await self._store.mirror_state(filename)
        for norm in wanted:
            old = without_signs(norm)
            if norm not in known and old != norm and old in known and old not in wanted:
                await self._store.mirror_rekey(filename, old, norm)
                known[norm] = known.pop(old)
        return known
