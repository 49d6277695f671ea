"""Every SQL statement the sqlite-fts5 memory backend runs on ``memory.db``.

:class:`FtsStore` writes items, vectors and mirror bookkeeping (each write one transaction,
its history recorded in ``item_events``) and answers recall: BM25 matches, document
frequencies for query planning, rows by id and the standing preferences and decisions, each
read limited to the audience labels it is given (``labels``: what a turn's
:class:`~bot.turn.audience.Audience` sees; None: every item). The
connection and its error handling come from :mod:`bot.memory.sqlite.connection`, the inspection
reads from :mod:`bot.memory.sqlite.inspection`, the vector statements from
:mod:`bot.memory.sqlite.vector_rows`, the schema from :mod:`bot.memory.sqlite.schema`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.memory.base import Category, MemoryItem
from bot.memory.reinforcement import audience_event, once_each
from bot.memory.sqlite.connection import Labels, labels_in
from bot.memory.sqlite.inspection import ITEM_COLUMNS, FtsInspection, item_from_row
from bot.memory.sqlite.scoring import Candidate
from bot.memory.sqlite.stemming import index_terms
from bot.memory.sqlite.term_counts import TermCounts
from bot.memory.sqlite.vector_index import StoredVectors
from bot.memory.sqlite.vector_rows import VectorRows
from bot.turn.audience import describe

__all__ = ["FtsStore", "Labels", "RecallRow", "StoredVectors"]

#: the standing items read for each one shown: room for a few audiences' copies of one text
_COPIES_READ = 3


@dataclass(slots=True)
class RecallRow:
    """A recall candidate: its row, and the numbers scoring needs."""

    row: Sequence[Any]
    candidate: Candidate

    def item(self) -> MemoryItem:
        return item_from_row(self.row)

    def told_in(self) -> int | None:
        """The rowid of the message the fact was told in, if one was."""
        return None if self.row[10] is None else int(self.row[10])


def _recall_row(row: Sequence[Any], bm25_raw: float) -> RecallRow:
    return RecallRow(row, Candidate(int(row[0]), row[2], float(row[7]), bm25_raw=bm25_raw))


class FtsStore(FtsInspection, VectorRows):
    """The SQL of ``memory.db``: every statement the backend runs, errors translated."""

    def __init__(self, path: Path, *, busy_timeout: float = 5.0) -> None:
        super().__init__(path, busy_timeout=busy_timeout)
        #: words' document counts in the index of every active item (whoever may see it:
        #: planning wants how common a word is, not who said it)
        self._terms = TermCounts()

    async def open(self) -> None:
        await super().open()
        await self._stem_older_items()

    async def _stem_older_items(self) -> None:
        """Items from before stems were indexed get theirs (the update trigger reindexes)."""
        while True:
            rows = await self._all("SELECT id, text FROM items WHERE terms = '' LIMIT 500")
            if not rows:
                return
            async with self._tx() as db:
                await db.executemany(
                    "UPDATE items SET terms = ? WHERE id = ?",
                    [(index_terms(str(text)) or " ", int(rowid)) for rowid, text in rows],
                )
            self._terms.forget()

    # -- items --------------------------------------------------------------------------------

    async def active_by_norm(
        self, norm: str, labels: Labels = None
    ) -> tuple[int, Category, float] | None:
        scope, params = labels_in("audience", labels, 2)
        rows = await self._all(
            "SELECT id, category, last_seen FROM items WHERE norm = ?1 AND status = 'active'"
            f"{scope} ORDER BY id LIMIT 1",
            (norm, *params),
        )
        return (int(rows[0][0]), rows[0][1], float(rows[0][2])) if rows else None

    async def active_by_id(self, rowid: int) -> tuple[int, Category, float] | None:
        rows = await self._all(
            "SELECT id, category, last_seen FROM items WHERE id = ? AND status = 'active'",
            (rowid,),
        )
        return (int(rows[0][0]), rows[0][1], float(rows[0][2])) if rows else None

    async def is_active(self, rowid: int) -> bool:
        return await self.active_by_id(rowid) is not None

    async def insert_unless_known(
        self,
        text: str,
        norm: str,
        category: Category,
        source: str,
        confidence: float,
        at: float,
        reason: str,
        audience: str,
        twins: Labels = None,
        episode: int | None = None,
    ) -> int | None:
        """Insert a new item unless an active one of the ``twins`` labels has the same normal
        form; its rowid or None.

        One statement (a trigger records the "created" event and indexes its stems), so one
        round trip. ``episode``: the rowid of the message it was told in, when one did.
        """
        terms = index_terms(text)
        scope, labels = labels_in("audience", twins, 12)
        rows = await self._all(
            "INSERT INTO items (text, norm, category, source, confidence, created_at,"
            " last_seen, reason, audience, terms, episode)"
            " SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, ?8, ?9, ?11"
            " WHERE NOT EXISTS (SELECT 1 FROM items WHERE norm = ?10 AND status = 'active'"
            f"{scope}) RETURNING id",
            (
                text,
                norm,
                category,
                source,
                confidence,
                at,
                reason,
                audience,
                terms,
                norm,
                episode,
                *labels,
            ),
        )
        if not rows:
            return None
        self._terms.added(terms.split())
        return int(rows[0][0])

    async def reinforce(self, rowid: int, *, at: float, source: str) -> None:
        """Count one more statement of the item (its audience stays: a repeat never moves an
        item, :mod:`bot.memory.reinforcement`)."""
        async with self._tx() as db:
            await db.execute(
                "UPDATE items SET reinforced = reinforced + 1,"
                " confidence = MIN(0.99, confidence + (1.0 - confidence) * 0.2),"
                " last_seen = MAX(last_seen, ?) WHERE id = ?",
                (at, rowid),
            )
            await self._event(db, rowid, at, "reinforced", source)

    async def share(self, rowid: int, label: str, *, at: float) -> str | None:
        """Give the item the audience ``label``; its former label, or None when there is no
        such item. Recorded in its history when it changed."""
        async with self._tx() as db:
            cursor = await db.execute("SELECT audience FROM items WHERE id = ?", (rowid,))
            row = await cursor.fetchone()
            await cursor.close()
            if row is None:
                return None
            if row[0] != label:
                await db.execute("UPDATE items SET audience = ? WHERE id = ?", (label, rowid))
                detail = f"{describe(label)} (was {describe(str(row[0]))})"
                await self._event(db, rowid, at, audience_event(label), detail)
            return str(row[0])

    async def forget(self, rowid: int, *, at: float, labels: Labels = None) -> bool:
        """Mark the item forgotten; False when there is none (of the ``labels``, if given)."""
        async with self._tx() as db:
            cursor = await db.execute("SELECT status, audience FROM items WHERE id = ?", (rowid,))
            row = await cursor.fetchone()
            await cursor.close()
            if row is None or (labels is not None and row[1] not in labels):
                return False
            if row[0] != "forgotten":
                await db.execute("UPDATE items SET status = 'forgotten' WHERE id = ?", (rowid,))
                await self._event(db, rowid, at, "forgotten", f"was {row[0]}")
                self._terms.wrote()  # counts fell: a little stale is harmless
        return True

    # -- mirror bookkeeping --------------------------------------------------------------------

    async def mirror_state(self, filename: str) -> dict[str, tuple[int, bool]]:
        rows = await self._all(
            "SELECT norm, item_id, present FROM mirror_lines WHERE filename = ?", (filename,)
        )
        return {str(r[0]): (int(r[1]), bool(r[2])) for r in rows}

    async def mirror_record(self, filename: str, norm: str, rowid: int) -> None:
        async with self._tx() as db:
            await db.execute(
                "INSERT INTO mirror_lines (filename, norm, item_id, present) VALUES (?, ?, ?, 1)"
                " ON CONFLICT (filename, norm) DO UPDATE SET item_id = excluded.item_id,"
                " present = 1",
                (filename, norm, rowid),
            )

    async def mirror_rekey(self, filename: str, old: str, new: str) -> None:
        """A line known by ``old``, the comparison form of before, is known by ``new``."""
        async with self._tx() as db:
            await db.execute(
                "UPDATE mirror_lines SET norm = ? WHERE filename = ? AND norm = ?",
                (new, filename, old),
            )

    async def mirror_return(self, filename: str, norm: str, rowid: int, *, at: float) -> None:
        """A line came back to the file: its item, if superseded, is active again."""
        async with self._tx() as db:
            await db.execute(
                "UPDATE mirror_lines SET present = 1 WHERE filename = ? AND norm = ?",
                (filename, norm),
            )
            cursor = await db.execute(
                "UPDATE items SET status = 'active' WHERE id = ? AND status = 'superseded'",
                (rowid,),
            )
            if cursor.rowcount:
                await self._event(db, rowid, at, "reactivated", f"line back in {filename}")
                self._terms.forget()

    async def mirror_leave(self, filename: str, norm: str, rowid: int, *, at: float) -> bool:
        """A line left the file: its item, if it came from that file, is superseded."""
        async with self._tx() as db:
            await db.execute(
                "UPDATE mirror_lines SET present = 0 WHERE filename = ? AND norm = ?",
                (filename, norm),
            )
            cursor = await db.execute(
                "UPDATE items SET status = 'superseded'"
                " WHERE id = ? AND status = 'active' AND source = ?",
                (rowid, filename),
            )
            if cursor.rowcount:
                await self._event(db, rowid, at, "superseded", f"line removed from {filename}")
                self._terms.wrote()
            return bool(cursor.rowcount)

    # -- recall --------------------------------------------------------------------------------

    async def match(
        self, query: str, limit: int, *, newest: int | None = None, labels: Labels = None
    ) -> list[RecallRow]:
        """The ``limit`` best BM25 matches (the FTS table holds only active items) of the
        ``labels`` (None: any), ranked among the ``newest`` such matches when given: one
        statement, one round trip. The labels are applied inside the FTS subquery, before
        the matches are ranked and cut, so another audience's items take no place."""
        scope, params = labels_in("audience", labels, 4)
        if scope:
            scope = f" AND rowid IN (SELECT id FROM items WHERE status = 'active'{scope})"
        window = ""
        offset = [max(0, (newest or 0) - 1)] if newest is not None or params else []
        if newest is not None:
            window = (
                " AND rowid >= COALESCE((SELECT rowid FROM items_fts WHERE items_fts MATCH ?1"
                f"{scope} ORDER BY rowid DESC LIMIT 1 OFFSET ?3), 0)"
            )
        rows = await self._all(
            # bm25() once, sorted by SQLite, costs about a third less than FTS5's ORDER BY rank
            f"SELECT {ITEM_COLUMNS}, f.score FROM (SELECT rowid, bm25(items_fts) AS score"
            f" FROM items_fts WHERE items_fts MATCH ?1{scope}{window} ORDER BY score LIMIT ?2) f"
            " JOIN items i ON i.id = f.rowid",
            # ?3 is given whenever a later number is, or the count of parameters is wrong
            [query, limit, *offset, *params],
        )
        return [_recall_row(row, float(row[11])) for row in rows]

    async def doc_frequencies(self, tokens: Sequence[str]) -> dict[str, int]:
        """How many active memories hold each token (tokens in indexed, folded form); tokens
        none holds are left out. Counts are read once and kept
        (:class:`~bot.memory.sqlite.term_counts.TermCounts`)."""
        return await self._terms.of(tokens, lambda words: self._vocabulary("items_vocab", words))

    async def rows_by_id(self, rowids: Sequence[int], *, labels: Labels = None) -> list[RecallRow]:
        if not rowids:
            return []
        marks = ",".join("?" * len(rowids))
        scope, params = labels_in("audience", labels, len(rowids) + 1)
        rows = await self._all(
            f"SELECT {ITEM_COLUMNS} FROM items i WHERE i.id IN ({marks}) AND status = 'active'"
            f"{scope}",
            [*rowids, *params],
        )
        return [_recall_row(row, 0.0) for row in rows]

    async def standing_items(
        self, exclude_sources: Sequence[str], limit: int, *, labels: Labels = None
    ) -> list[MemoryItem]:
        """Preferences and decisions stated in conversation, most reinforced first: not the
        lines of a mirrored file (``exclude_sources``, and any file ``mirror_lines`` knows),
        which the prompt of their audience carries already. A text more than one audience
        keeps (a shared room's copy of what another said: :mod:`bot.memory.reinforcement`)
        comes once, its first copy."""
        count = len(exclude_sources)
        marks = ",".join(f"?{n + 1}" for n in range(count))
        scope, params = labels_in("audience", labels, count + 2)
        rows = await self._all(
            f"SELECT {ITEM_COLUMNS} FROM items i WHERE status = 'active'{scope}"
            f" AND category IN ('preference', 'decision') AND source NOT IN ({marks})"
            " AND source NOT IN (SELECT filename FROM mirror_lines)"
            f" ORDER BY reinforced DESC, confidence DESC, last_seen DESC LIMIT ?{count + 1}",
            [*exclude_sources, limit * _COPIES_READ, *params],
        )
        items = [item_from_row(row) for row in rows]
        return once_each(items, lambda item: item.text)[:limit]
