"""Every SQL statement the sqlite-fts5 memory backend runs on ``memory.db``.

:class:`FtsStore` writes items, vectors and mirror bookkeeping (each write one transaction,
its history recorded in ``item_events``) and answers recall: BM25 matches, document
frequencies for query planning, rows by id and the standing preferences and decisions, each
read limited to shared items when asked (``shared_only``: a turn in a shared room). The
connection and its error handling come from :mod:`bot.memory.sqlite.connection`, the inspection
reads from :mod:`bot.memory.sqlite.inspection`, the vector statements from
:mod:`bot.memory.sqlite.vector_rows`, the schema from :mod:`bot.memory.sqlite.schema`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.memory.base import Category, MemoryItem, RoomKind
from bot.memory.sqlite.connection import names_of
from bot.memory.sqlite.inspection import ITEM_COLUMNS, FtsInspection, item_from_row
from bot.memory.sqlite.scoring import Candidate
from bot.memory.sqlite.stemming import index_terms
from bot.memory.sqlite.term_counts import TermCounts
from bot.memory.sqlite.vector_index import StoredVectors
from bot.memory.sqlite.vector_rows import VectorRows

__all__ = ["FtsStore", "RecallRow", "StoredVectors"]

#: the FTS index and its term statistics, of all active items (False) or the shared (True)
_FTS = {False: "items_fts", True: "items_shared_fts"}
_VOCAB = {False: "items_vocab", True: "items_shared_vocab"}
_ITEM_NAMES = names_of(ITEM_COLUMNS)


@dataclass(slots=True)
class RecallRow:
    """A recall candidate: its row, and the numbers scoring needs."""

    row: Sequence[Any]
    candidate: Candidate

    def item(self) -> MemoryItem:
        return item_from_row(self.row)


def _recall_row(row: Sequence[Any], bm25_raw: float) -> RecallRow:
    return RecallRow(row, Candidate(int(row[0]), row[2], float(row[7]), bm25_raw=bm25_raw))


class FtsStore(FtsInspection, VectorRows):
    """The SQL of ``memory.db``: every statement the backend runs, errors translated."""

    def __init__(self, path: Path, *, busy_timeout: float = 5.0) -> None:
        super().__init__(path, busy_timeout=busy_timeout)
        #: words' document counts, in the index of all active items (False) and the shared's
        self._terms = {False: TermCounts(), True: TermCounts()}

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
            self._changed()

    # -- items --------------------------------------------------------------------------------

    async def active_by_norm(self, norm: str) -> tuple[int, Category, float] | None:
        rows = await self._all(
            "SELECT id, category, last_seen FROM items WHERE norm = ? AND status = 'active'"
            " ORDER BY id LIMIT 1",
            (norm,),
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
        room: RoomKind = "direct",
    ) -> int | None:
        """Insert a new item unless an active one has the same normal form; its rowid or None.

        One statement (a trigger records the "created" event and indexes its stems), so one
        round trip.
        """
        terms = index_terms(text)
        rows = await self._all(
            "INSERT INTO items (text, norm, category, source, confidence, created_at,"
            " last_seen, reason, room, terms) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS"
            " (SELECT 1 FROM items WHERE norm = ? AND status = 'active') RETURNING id",
            (
                text,
                norm,
                category,
                source,
                confidence,
                at,
                at,
                reason,
                room,
                terms,
                norm,
            ),
        )
        if not rows:
            return None
        self._terms[False].added(terms.split())
        if room == "shared":
            self._terms[True].added(terms.split())
        return int(rows[0][0])

    async def reinforce(
        self, rowid: int, *, at: float, source: str, room: RoomKind = "direct"
    ) -> bool:
        """Count one more statement of the item; said in a shared room, it becomes shared.
        True when it became shared just now."""
        async with self._tx() as db:
            await db.execute(
                "UPDATE items SET reinforced = reinforced + 1,"
                " confidence = MIN(0.99, confidence + (1.0 - confidence) * 0.2),"
                " last_seen = MAX(last_seen, ?) WHERE id = ?",
                (at, rowid),
            )
            await self._event(db, rowid, at, "reinforced", source)
            if room != "shared":
                return False
            cursor = await db.execute(
                "UPDATE items SET room = 'shared' WHERE id = ? AND room != 'shared'", (rowid,)
            )
            if cursor.rowcount:
                await self._event(db, rowid, at, "shared", f"said in a shared room ({source})")
                self._terms[True].forget()  # its words are in the shared index now
            return bool(cursor.rowcount)

    async def forget(self, rowid: int, *, at: float, shared_only: bool = False) -> bool:
        """Mark the item forgotten; False when there is none (or, ``shared_only``, when it is
        not a shared one)."""
        async with self._tx() as db:
            cursor = await db.execute("SELECT status, room FROM items WHERE id = ?", (rowid,))
            row = await cursor.fetchone()
            if row is None or (shared_only and row[1] != "shared"):
                return False
            if row[0] != "forgotten":
                await db.execute("UPDATE items SET status = 'forgotten' WHERE id = ?", (rowid,))
                await self._event(db, rowid, at, "forgotten", f"was {row[0]}")
                self._wrote()  # counts fell: a little stale is harmless
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
                self._changed()

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
                self._wrote()
            return bool(cursor.rowcount)

    # -- recall --------------------------------------------------------------------------------

    async def match(
        self, query: str, limit: int, *, newest: int | None = None, shared_only: bool = False
    ) -> list[RecallRow]:
        """The ``limit`` best BM25 matches (the FTS table holds only active items), ranked among
        the ``newest`` matching memories when given: one statement, one round trip.
        ``shared_only`` searches the index of shared items instead."""
        fts = _FTS[shared_only]
        window = ""
        params: tuple[Any, ...] = (query, limit)
        if newest is not None:
            window = (
                f" AND rowid >= COALESCE((SELECT rowid FROM {fts} WHERE {fts} MATCH ?1"
                " ORDER BY rowid DESC LIMIT 1 OFFSET ?3), 0)"
            )
            params = (query, limit, max(0, newest - 1))
        rows = await self._packed(
            # bm25() once, sorted by SQLite, costs about a third less than FTS5's ORDER BY rank
            f"SELECT {ITEM_COLUMNS}, f.score FROM (SELECT rowid, bm25({fts}) AS score FROM {fts}"
            f" WHERE {fts} MATCH ?1{window} ORDER BY score LIMIT ?2) f"
            " JOIN items i ON i.id = f.rowid",
            params,
            f"{_ITEM_NAMES}, score",
        )
        return [_recall_row(row, float(row[10])) for row in rows]

    async def doc_frequencies(
        self, tokens: Sequence[str], *, shared_only: bool = False
    ) -> dict[str, int]:
        """How many active memories (``shared_only``: active shared ones) hold each token
        (tokens in indexed, folded form); tokens none holds are left out. Counts are read
        once and kept (:class:`~bot.memory.sqlite.term_counts.TermCounts`)."""
        table = _VOCAB[shared_only]
        return await self._terms[shared_only].of(
            tokens, lambda words: self._vocabulary(table, words)
        )

    def _wrote(self) -> None:
        for counts in self._terms.values():
            counts.wrote()

    def _changed(self) -> None:
        """Words went back into an index other than by an insert: read the counts again."""
        for counts in self._terms.values():
            counts.forget()

    async def rows_by_id(
        self, rowids: Sequence[int], *, shared_only: bool = False
    ) -> list[RecallRow]:
        if not rowids:
            return []
        marks = ",".join("?" * len(rowids))
        scope = " AND room = 'shared'" if shared_only else ""
        rows = await self._packed(
            f"SELECT {ITEM_COLUMNS} FROM items i WHERE i.id IN ({marks}) AND status = 'active'"
            f"{scope}",
            list(rowids),
            _ITEM_NAMES,
        )
        return [_recall_row(row, 0.0) for row in rows]

    async def standing_items(
        self, exclude_sources: Sequence[str], limit: int, *, shared_only: bool = False
    ) -> list[MemoryItem]:
        """Preferences and decisions stated in conversation, most reinforced first."""
        marks = ",".join("?" * len(exclude_sources))
        scope = " AND room = 'shared'" if shared_only else ""
        rows = await self._packed(
            f"SELECT {ITEM_COLUMNS} FROM items i WHERE status = 'active'{scope}"
            f" AND category IN ('preference', 'decision') AND source NOT IN ({marks})"
            " ORDER BY reinforced DESC, confidence DESC, last_seen DESC LIMIT ?",
            [*exclude_sources, limit],
            _ITEM_NAMES,
        )
        return [item_from_row(row) for row in rows]
