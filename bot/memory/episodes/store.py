"""Every SQL statement about episodes (what was said, message by message) in ``memory.db``.

An episode is one on-record message, the user's or the persona's, with its time, audience label
(:mod:`bot.turn.audience`) and platform; its stems (:mod:`bot.memory.sqlite.stemming`) are what
``episodes_fts`` indexes. The same message said again by the same speaker reinforces the
episode instead of adding a copy, with the rules of :mod:`bot.memory.reinforcement` (said in a
shared room, a direct room's episode or another room's is not repeated but kept anew for this
one). Every read takes the labels its audience sees (``labels``; None: all), applied in
the statement before it ranks or cuts. Episodes are never deleted; forgetting one only changes
its status, and recall skips it.

:class:`EpisodeStore` runs its statements on the connection of the persona's
:class:`~bot.memory.sqlite.store.FtsStore`, so one file and one writer hold both facts and episodes;
or, for a backend whose facts live elsewhere, on an ``episodes.db`` of its own
(:class:`~bot.memory.episodes.file.EpisodeFile`). Its rows are those of
:mod:`~bot.memory.episodes.rows`; the statements about the words an answer borrows from its
question are in :mod:`~bot.memory.episodes.lent_words`, those about vectors in
:mod:`~bot.memory.episodes.episode_vectors`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import aiosqlite

from bot.memory.base import format_citation
from bot.memory.episodes.episode_vectors import EpisodeVectors
from bot.memory.episodes.lent_words import LentWords, leave_question
from bot.memory.episodes.rows import (
    COLUMNS,
    EpisodeRow,
    Recorded,
    Said,
    episode_id,
    episode_row,
    iso_time,
)
from bot.memory.reinforcement import audience_event, twin_sql
from bot.memory.sqlite.connection import Labels, labels_in
from bot.memory.sqlite.term_counts import TermCounts
from bot.memory.sqlite.vector_rows import VectorRows
from bot.turn.audience import DIRECT, describe

__all__ = ["EpisodeStore"]


class EpisodeStore(LentWords, EpisodeVectors):
    """The episode statements, on the persona's open ``memory.db`` or ``episodes.db``."""

    def __init__(self, connection: VectorRows) -> None:
        self._conn = connection
        #: words' document counts in the episodes' index
        self._terms = TermCounts()

    async def record(self, said: Sequence[Said]) -> list[Recorded]:
        """Store the messages of one turn, or reinforce their twins; what became of each, in
        order. The new ones go in with one statement: each statement is a trip to SQLite's
        thread and a commit of its own."""
        if not said:
            return []
        values = ",".join("(?, ?, ?, ?, ?, ?, ?, ?)" for _ in said)
        rows = await self._conn._all(
            "INSERT INTO episodes"
            " (at, speaker, audience, platform, text, norm, terms, answers, last_seen)"
            " SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6,"
            f" v.column7, v.column8, v.column1 FROM (VALUES {values}) v WHERE NOT EXISTS (SELECT 1"
            " FROM episodes WHERE norm = v.column6 AND speaker = v.column2"
            f" AND status = 'active' AND {twin_sql('v.column3')}) RETURNING id, speaker, norm",
            [field for message in said for field in message],
        )
        created = {(str(row[1]), str(row[2])): int(row[0]) for row in rows}
        found: list[Recorded] = []
        for message in said:
            rowid = created.get((message.speaker, message.norm))
            if rowid is not None:
                self._terms.added(message.terms.split())
                found.append(Recorded(rowid, True))
            else:
                found.append(await self._reinforce(message))
        return found

    async def _reinforce(self, message: Said) -> Recorded:
        """Count the twin of ``message`` said once more. Its audience stays as it is (a repeat
        never moves an item, :mod:`bot.memory.reinforcement`), and a shared room's message has a
        twin only among what that room sees (:func:`~bot.memory.reinforcement.twin_sql`)."""
        rows = await self._conn._all(
            "UPDATE episodes SET reinforced = reinforced + 1, last_seen = MAX(last_seen, ?4)"
            " WHERE id = (SELECT id FROM episodes WHERE norm = ?1 AND speaker = ?2"
            f" AND status = 'active' AND {twin_sql('?3')} ORDER BY id LIMIT 1) RETURNING id",
            (message.norm, message.speaker, message.audience, message.at),
        )
        return Recorded(int(rows[0][0]) if rows else 0, False)

    async def doc_frequencies(self, stems: Sequence[str]) -> dict[str, int]:
        """How many episodes hold each stem; stems none holds are left out. Counts are read
        once and kept (:class:`~bot.memory.sqlite.term_counts.TermCounts`)."""
        return await self._terms.of(
            stems, lambda words: self._conn._vocabulary("episodes_vocab", words)
        )

    async def match(
        self,
        expression: str,
        limit: int,
        *,
        newest: int | None = None,
        labels: Labels = None,
        window: tuple[float, float] | None = None,
    ) -> list[EpisodeRow]:
        """The ``limit`` best BM25 matches among active episodes (of the ``labels``, said
        within ``window``, when given), ranked among the ``newest`` such matches when given."""
        where = ["episodes_fts MATCH ?1", "e.status = 'active'"]
        params: list[Any] = [expression, limit]
        scope, scope_params = labels_in("e.audience", labels, len(params) + 1)
        if scope:
            where.append(scope.removeprefix(" AND "))
            params.extend(scope_params)
        if newest is not None:
            inner, inner_params = labels_in("audience", labels, len(params) + 2)
            if inner:
                inner = f" AND rowid IN (SELECT id FROM episodes WHERE status = 'active'{inner})"
            where.append(
                "f.rowid >= COALESCE((SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH ?1"
                f"{inner} ORDER BY rowid DESC LIMIT 1 OFFSET ?{len(params) + 1}), 0)"
            )
            params.append(max(0, newest - 1))
            params.extend(inner_params)
        if window is not None:
            where.append(f"e.at >= ?{len(params) + 1} AND e.at < ?{len(params) + 2}")
            params.extend(window)
        rows = await self._conn._all(
            # bm25() once, sorted by SQLite, costs about a third less than FTS5's ORDER BY rank
            f"SELECT {COLUMNS}, bm25(episodes_fts) AS score FROM episodes_fts f"
            f" JOIN episodes e ON e.id = f.rowid WHERE {' AND '.join(where)}"
            " ORDER BY score LIMIT ?2",
            params,
        )
        return [episode_row(row, float(row[8])) for row in rows]

    async def match_and_within(
        self, expression: str, limit: int, within: tuple[float, float], *, labels: Labels = None
    ) -> tuple[list[EpisodeRow], list[EpisodeRow]]:
        """:meth:`match`, and beside it the ``limit`` best matches said ``within`` a window, in
        one statement that scores every match once: a question that names a time costs one
        trip to SQLite's thread, not two. For an exact plan only (every match is scored)."""
        scope, scope_params = labels_in("e.audience", labels, 5)
        best = (
            f"SELECT {COLUMNS}, m.score FROM m JOIN episodes e ON e.id = m.id"
            f" WHERE e.status = 'active'{scope}"
        )
        rows = await self._conn._all(
            "WITH m AS MATERIALIZED (SELECT rowid AS id, bm25(episodes_fts) AS score"
            " FROM episodes_fts WHERE episodes_fts MATCH ?1)"
            f" SELECT 0 AS arm, * FROM ({best} ORDER BY m.score LIMIT ?2) UNION ALL"
            f" SELECT 1, * FROM ({best} AND e.at >= ?3 AND e.at < ?4 ORDER BY m.score LIMIT ?2)",
            [expression, limit, *within, *scope_params],
        )
        found: tuple[list[EpisodeRow], list[EpisodeRow]] = ([], [])
        for row in rows:
            found[int(row[0])].append(episode_row(row[1:], float(row[9])))
        return found

    async def rows_by_id(self, rowids: Sequence[int], *, labels: Labels = None) -> list[EpisodeRow]:
        if not rowids:
            return []
        marks = ",".join("?" * len(rowids))
        scope, scope_params = labels_in("e.audience", labels, len(rowids) + 1)
        rows = await self._conn._all(
            f"SELECT {COLUMNS} FROM episodes e WHERE e.id IN ({marks})"
            f" AND e.status = 'active'{scope}",
            [*rowids, *scope_params],
        )
        return [episode_row(row) for row in rows]

    async def words_said(self, rowids: Sequence[int], *, labels: Labels = None) -> dict[int, int]:
        """How many words each of the messages ``rowids`` has, of those recall may find for
        an audience that sees ``labels`` (active, and heard there)."""
        return {
            row.rowid: len(row.text.split()) for row in await self.rows_by_id(rowids, labels=labels)
        }

    async def exchanges(self, rowids: Sequence[int]) -> dict[int, int]:
        """The exchange each of ``rowids`` was said in, as the rowid of its user's message:
        a turn's message and the persona's answer are recorded together, at one moment
        (:meth:`~bot.memory.episodes.engine.Episodes.record`), so an answer's exchange is
        the user's message said at that moment on that platform; a message without one (the
        other side left unsaid, or said again) is an exchange of its own. A message said again
        (reinforced) stands for every exchange it was said in: it is left out (in none)."""
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        rows = await self._conn._all(
            "SELECT e.id, (SELECT MIN(u.id) FROM episodes u WHERE u.at = e.at"
            " AND u.platform = e.platform AND u.speaker = 'user' AND e.speaker != 'user')"
            f" FROM episodes e WHERE e.id IN ({marks}) AND e.reinforced = 0",
            list(rowids),
        )
        return {int(rowid): int(user) if user is not None else int(rowid) for rowid, user in rows}

    async def surroundings(
        self, rowids: Sequence[int], *, gap: float, labels: Labels = None
    ) -> dict[int, tuple[list[int], list[int]]]:
        """For each message of ``rowids``: the messages of its exchange (itself among them:
        said at its moment, on its platform, to its audience) and those of the exchanges
        just before and just after it there, within ``gap`` seconds; of the messages recall
        may find for an audience that sees ``labels`` (a message it does not see has none)."""
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        near = (
            "SELECT {how}(n.at) FROM episodes n WHERE n.at {side} e.at"
            " AND n.at {bound} e.at {sign} ? AND n.platform = e.platform"
            " AND n.audience = e.audience AND n.status = 'active'"
        )
        before = near.format(how="MAX", side="<", bound=">=", sign="-")
        after = near.format(how="MIN", side=">", bound="<=", sign="+")
        seen, seen_params = labels_in("e.audience", labels, len(rowids) + 3)
        moments = await self._conn._all(
            f"SELECT e.id, e.at, e.platform, e.audience, ({before}), ({after})"
            f" FROM episodes e WHERE e.id IN ({marks}){seen}",
            [gap, gap, *rowids, *seen_params],
        )
        wanted = {at for row in moments for at in (row[1], row[4], row[5]) if at is not None}
        if not wanted:
            return {}
        times = ",".join("?" * len(wanted))
        scope, scope_params = labels_in("audience", labels, len(wanted) + 1)
        said: dict[tuple[float, str, str], list[int]] = {}
        for rowid, at, platform, audience in await self._conn._all(
            f"SELECT id, at, platform, audience FROM episodes WHERE at IN ({times})"
            f" AND status = 'active'{scope} ORDER BY id",
            [*wanted, *scope_params],
        ):
            said.setdefault((float(at), str(platform), str(audience)), []).append(int(rowid))
        found: dict[int, tuple[list[int], list[int]]] = {}
        for rowid, at, platform, audience, earlier, later in moments:
            place = (str(platform), str(audience))
            around = [
                other
                for moment in (earlier, later)
                if moment is not None
                for other in said.get((float(moment), *place), [])
            ]
            found[int(rowid)] = (said.get((float(at), *place), []), around)
        return found

    async def said_within(self, window: tuple[float, float], *, labels: Labels = None) -> list[int]:
        """The active episodes (of the ``labels``) said within ``window`` (to rank by meaning
        alone)."""
        scope, scope_params = labels_in("audience", labels, 3)
        rows = await self._conn._all(
            f"SELECT id FROM episodes WHERE at >= ?1 AND at < ?2 AND status = 'active'{scope}",
            [*window, *scope_params],
        )
        return [int(row[0]) for row in rows]

    async def forget(self, rowid: int, *, labels: Labels = None, at: float | None = None) -> bool:
        """Mark the episode forgotten; False when there is none (of the ``labels``)."""
        scope, scope_params = labels_in("audience", labels, 2)
        rows = await self._conn._all(
            f"UPDATE episodes SET status = 'forgotten' WHERE id = ?1{scope}"
            " AND status != 'forgotten' RETURNING status",
            (rowid, *scope_params),
        )
        if rows:
            await self._event(rowid, "forgotten", "", at=at)
            return True
        # forgetting twice still finds it
        found = await self._conn._all(
            f"SELECT 1 FROM episodes WHERE id = ?1{scope}", (rowid, *scope_params)
        )
        return bool(found)

    async def share(self, rowid: int, label: str, *, at: float) -> bool:
        """Give the episode the audience ``label``; False when there is none. Recorded in
        its history when it changed. A message that answers a question and is given any
        label but a direct room's (which sees everything) leaves that question for good, and
        keeps its own words alone, in the same transaction: the two were linked where both
        were said, and no other audience heard them together (words another process lent it
        meanwhile go too)."""
        rows = await self._conn._all("SELECT audience FROM episodes WHERE id = ?", (rowid,))
        if not rows or str(rows[0][0]) == label:  # nothing to write: no write lock taken
            return bool(rows)
        async with self._conn._tx() as db:
            rows = list(
                await db.execute_fetchall(
                    "SELECT audience, answers, terms, text FROM episodes WHERE id = ?", (rowid,)
                )
            )
            if not rows:
                return False
            was, answers, terms, text = rows[0]
            if was == label:
                return True
            await db.execute("UPDATE episodes SET audience = ? WHERE id = ?", (label, rowid))
            leaves = answers is not None and label != DIRECT
            if leaves:
                await leave_question(db, rowid, str(terms), str(text))
            detail = f"{describe(label)} (was {describe(was)})"
            await _event_in(db, rowid, audience_event(label), detail, at=at)
        if leaves:
            self._terms.forget()
        return True

    async def _event(self, rowid: int, kind: str, detail: str, *, at: float | None) -> None:
        await self._conn._all(_EVENT, (rowid, time.time() if at is None else at, kind, detail))

    async def history(self, rowid: int) -> list[dict[str, Any]]:
        rows = await self._conn._all(
            "SELECT at, kind, detail FROM episode_events WHERE episode_id = ? ORDER BY id",
            (rowid,),
        )
        return [{"at": iso_time(float(r[0])), "kind": r[1], "detail": r[2]} for r in rows]

    async def explain(self, rowid: int) -> dict[str, Any]:
        found = await self._details("WHERE e.id = ?", (rowid,))
        if not found:
            return {}
        return {**found[0], "history": await self.history(rowid)}

    async def export(self) -> list[dict[str, Any]]:
        """Every episode, every status, oldest first."""
        return await self._details("ORDER BY e.id", ())

    async def _details(self, where: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        rows = await self._conn._all(f"SELECT {COLUMNS}, e.status FROM episodes e {where}", params)
        found = []
        for row in rows:
            episode = episode_row(row)
            found.append(
                {
                    "id": episode_id(episode.rowid),
                    "kind": "episode",
                    "speaker": episode.speaker,
                    "text": episode.text,
                    "audience": episode.audience,
                    "platform": episode.platform,
                    "said": iso_time(episode.at),
                    "last_seen": iso_time(episode.last_seen),
                    "reinforced": episode.reinforced,
                    "status": str(row[8]),
                    "citation": format_citation(episode.item()),
                }
            )
        return found

    async def counts(self) -> dict[str, int]:
        rows = await self._conn._all("SELECT status, COUNT(*) FROM episodes GROUP BY status")
        return {str(r[0]): int(r[1]) for r in rows}


_EVENT = "INSERT INTO episode_events (episode_id, at, kind, detail) VALUES (?, ?, ?, ?)"


async def _event_in(
    db: aiosqlite.Connection, rowid: int, kind: str, detail: str, *, at: float | None
) -> None:
    """A line of episode ``rowid``'s history, in the caller's transaction."""
    await db.execute(_EVENT, (rowid, time.time() if at is None else at, kind, detail))
