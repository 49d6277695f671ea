"""Every SQL statement about episodes (what was said, message by message) in ``memory.db``.

An episode is one on-record message, the user's or the persona's, with its time, audience label
(:mod:`bot.turn.audience`) and platform; its stems (:mod:`bot.memory.sqlite.stemming`) are what
``episodes_fts`` indexes. The same message said again by the same speaker reinforces the
episode instead of adding a copy, with the rules of :mod:`bot.memory.reinforcement` (said in a
shared room, a direct episode becomes that room's; another room's is not repeated but kept anew
for this one). Every read takes the labels its audience sees (``labels``; None: all), applied in
the statement before it ranks or cuts. Episodes are never deleted; forgetting one only changes
its status, and recall skips it.

:class:`EpisodeStore` runs its statements on the connection of the persona's
:class:`~bot.memory.sqlite.store.FtsStore`, so one file and one writer hold both facts and episodes;
or, for a backend whose facts live elsewhere, on an ``episodes.db`` of its own
(:class:`~bot.memory.episodes.file.EpisodeFile`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any, NamedTuple

import aiosqlite

from bot.memory.base import MemoryItem, format_citation
from bot.memory.episodes.question_asked import question_stems
from bot.memory.episodes.sentence_vectors import MAX_SENTENCES
from bot.memory.reinforcement import (
    audience_event,
    said_again,
    twin_sql,
    visible_sql,
    visible_wherever,
)
from bot.memory.sqlite.connection import Labels, labels_in
from bot.memory.sqlite.stemming import index_terms
from bot.memory.sqlite.term_counts import TermCounts
from bot.memory.sqlite.vector_index import Matrix, StoredVectors
from bot.memory.sqlite.vector_rows import VectorRows
from bot.turn.audience import DIRECT, describe

__all__ = [
    "EPISODE_PREFIX",
    "EpisodeRow",
    "EpisodeStore",
    "Recorded",
    "Said",
    "episode_id",
    "parse_episode_id",
]

EPISODE_PREFIX = "e"
"""Episode ids read ``e42``, so they never collide with a fact's ``42``."""

#: an episode (its vector's row ``v``) that its sentences find: it has from one to
#: MAX_SENTENCES - 1 of them (one with MAX_SENTENCES may say more than they hold)
_FOUND_BY_SENTENCES = (
    "(SELECT COUNT(*) FROM sentence_vectors s WHERE s.episode_id = v.episode_id"
    f" AND s.model = v.model) BETWEEN 1 AND {MAX_SENTENCES - 1}"
)
#: episodes asked for in one statement (far under SQLite's limit of bound values)
_ASKED = 500
_COLUMNS = "e.id, e.at, e.speaker, e.audience, e.platform, e.text, e.reinforced, e.last_seen"


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def episode_id(rowid: int) -> str:
    return f"{EPISODE_PREFIX}{rowid}"


def parse_episode_id(text: str) -> int | None:
    """The rowid of an episode id (``e42``), or None when ``text`` is not one."""
    text = str(text).strip().lstrip("#")
    if not text.startswith(EPISODE_PREFIX):
        return None
    digits = text[len(EPISODE_PREFIX) :]
    return int(digits) if digits.isdigit() and len(digits) < 19 else None


@dataclass(slots=True)
class EpisodeRow:
    """A recalled episode and the numbers scoring needs."""

    rowid: int
    at: float
    speaker: str
    audience: str
    platform: str
    text: str
    reinforced: int
    last_seen: float
    bm25_raw: float = 0.0
    cosine: float = 0.0

    def item(self, zone: tzinfo = UTC) -> MemoryItem:
        """The episode as a memory item: its citation names its date (the day ``zone`` counts,
        the user's in recall) and where it was said."""
        return MemoryItem(
            id=episode_id(self.rowid),
            text=self.text,
            category="fact",
            source=f"{self.speaker} {self.platform}".strip(),
            confidence=1.0,
            created_at=datetime.fromtimestamp(self.at, zone),
            reinforced=self.reinforced,
            audience=self.audience,
            kind="episode",
        )


class Said(NamedTuple):
    """One message to keep as an episode, its fields in the order of ``episodes``' columns."""

    at: float
    speaker: str
    audience: str
    platform: str
    text: str
    norm: str
    terms: str
    #: of a person's message: the persona's question it answers, whose words ``terms`` holds
    answers: int | None = None


class Recorded(NamedTuple):
    """What became of one message :meth:`EpisodeStore.record` kept."""

    rowid: int
    #: a new episode (else its twin was reinforced)
    created: bool
    #: the episode's audience now
    audience: str
    #: a twin said again that changed its audience
    moved: bool = False


def _row(row: Sequence[Any], bm25_raw: float = 0.0) -> EpisodeRow:
    return EpisodeRow(
        int(row[0]),
        float(row[1]),
        str(row[2]),
        row[3],
        str(row[4]),
        str(row[5]),
        int(row[6]),
        float(row[7]),
        bm25_raw,
    )


class EpisodeStore:
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
                found.append(Recorded(rowid, True, message.audience))
            else:
                found.append(await self._reinforce(message))
        return found

    async def _reinforce(self, message: Said) -> Recorded:
        """Count the twin of ``message`` said once more. A message that answers a question
        and goes to another audience leaves that question, and is indexed by its own words
        alone, in the same transaction (a question that goes has its answers indexed again
        after: :func:`~bot.memory.episodes.question_asked.index_answers_again`)."""
        async with self._conn._tx() as db:
            twin = await db.execute_fetchall(
                "SELECT id, audience, answers, terms FROM episodes WHERE norm = ?1"
                f" AND speaker = ?2 AND status = 'active' AND {twin_sql('?3')}"
                " ORDER BY id LIMIT 1",
                (message.norm, message.speaker, message.audience),
            )
            if not twin:
                return Recorded(0, False, message.audience)
            rowid, was, answers, terms = next(iter(twin))
            label = said_again(str(was), message.audience)
            await db.execute(
                "UPDATE episodes SET reinforced = reinforced + 1, last_seen = MAX(last_seen, ?),"
                " audience = ? WHERE id = ?",
                (message.at, label, rowid),
            )
            if answers is not None and label != was:
                await _leave_question(db, int(rowid), str(terms), message.text)
                self._terms.forget()
        return Recorded(int(rowid), False, label, moved=label != was)

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
            f"SELECT {_COLUMNS}, bm25(episodes_fts) AS score FROM episodes_fts f"
            f" JOIN episodes e ON e.id = f.rowid WHERE {' AND '.join(where)}"
            " ORDER BY score LIMIT ?2",
            params,
        )
        return [_row(row, float(row[8])) for row in rows]

    async def match_and_within(
        self, expression: str, limit: int, within: tuple[float, float], *, labels: Labels = None
    ) -> tuple[list[EpisodeRow], list[EpisodeRow]]:
        """:meth:`match`, and beside it the ``limit`` best matches said ``within`` a window, in
        one statement that scores every match once: a question that names a time costs one
        trip to SQLite's thread, not two. For an exact plan only (every match is scored)."""
        scope, scope_params = labels_in("e.audience", labels, 5)
        best = (
            f"SELECT {_COLUMNS}, m.score FROM m JOIN episodes e ON e.id = m.id"
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
            found[int(row[0])].append(_row(row[1:], float(row[9])))
        return found

    async def rows_by_id(self, rowids: Sequence[int], *, labels: Labels = None) -> list[EpisodeRow]:
        if not rowids:
            return []
        marks = ",".join("?" * len(rowids))
        scope, scope_params = labels_in("e.audience", labels, len(rowids) + 1)
        rows = await self._conn._all(
            f"SELECT {_COLUMNS} FROM episodes e WHERE e.id IN ({marks})"
            f" AND e.status = 'active'{scope}",
            [*rowids, *scope_params],
        )
        return [_row(row) for row in rows]

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

    async def said_within(self, window: tuple[float, float], *, labels: Labels = None) -> list[int]:
        """The active episodes (of the ``labels``) said within ``window`` (to rank by meaning
        alone)."""
        scope, scope_params = labels_in("audience", labels, 3)
        rows = await self._conn._all(
            f"SELECT id FROM episodes WHERE at >= ?1 AND at < ?2 AND status = 'active'{scope}",
            [*window, *scope_params],
        )
        return [int(row[0]) for row in rows]

    async def answers_to(self, rowid: int) -> list[tuple[int, str]]:
        """``(rowid, text)`` of the active messages that answer episode ``rowid``, and of
        ``rowid`` itself if it answers one."""
        rows = await self._conn._all(
            "SELECT id, text FROM episodes WHERE status = 'active'"
            " AND (answers = ?1 OR (id = ?1 AND answers IS NOT NULL))",
            (rowid,),
        )
        return [(int(r[0]), str(r[1])) for r in rows]

    async def settle_old_words(self) -> int:
        """Give each message of ``old_words`` its own words alone and no question, and empty
        the table; how many were settled. (Before v11 an answer said again in a shared room,
        or shared, kept its link to a question asked elsewhere, and before v10 an answer took
        its question's words with no link: a room could find it by words it never heard.)
        Once the table is empty an open only reads it. Each batch is read and written in one
        write transaction, so two processes opening the file at once never settle a message
        twice."""
        settled = 0
        while await self._conn._all("SELECT 1 FROM old_words LIMIT 1"):
            async with self._conn._tx() as db:
                rows = list(
                    await db.execute_fetchall(
                        "SELECT o.episode_id, e.text, e.terms FROM old_words o"
                        " LEFT JOIN episodes e ON e.id = o.episode_id LIMIT 500"
                    )
                )
                for rowid, text, terms in rows:
                    if text is not None:  # else its episode is not there: nothing to settle
                        await _leave_question(db, int(rowid), str(terms), str(text))
                        settled += 1
                await db.executemany(
                    "DELETE FROM old_words WHERE episode_id = ?", [(row[0],) for row in rows]
                )
            self._terms.forget()
        return settled

    async def question_heard(self, rowid: int, audience: str) -> str | None:
        """The text of episode ``rowid`` if it is active and every audience that sees a
        message of ``audience`` sees it too: a direct room's answer hears its question
        wherever it is (a direct room sees everything: a question said again in a shared
        room still lends to it), a shared room's while it is the room's or shared (a room's
        answer takes no words of a question made private or another room's since). That
        is safe because an answer is linked to its question only where both were said: one
        given another label leaves it (:meth:`share`, :meth:`_reinforce`), and those linked
        before v11 were settled (:meth:`settle_old_words`)."""
        scope, scope_params = labels_in("audience", visible_wherever(audience), 2)
        rows = await self._conn._all(
            f"SELECT text FROM episodes WHERE id = ?1 AND status = 'active'{scope}",
            (rowid, *scope_params),
        )
        return str(rows[0][0]) if rows else None

    async def reindex(self, rowid: int, own: str, *, lend: bool) -> None:
        """Index answer ``rowid`` by its ``own`` stems and, with ``lend``, those its
        question lends while the answer still hears it (:meth:`question_heard`'s rule).
        The answer and its question are read in the write transaction that writes: another
        process (``personad memory``) may have changed either since the caller looked, and
        the index's delete needs the exact stems it holds now (others leave it malformed)."""
        async with self._conn._tx() as db:
            rows = list(
                await db.execute_fetchall(
                    "SELECT e.terms, q.text FROM episodes e LEFT JOIN episodes q"
                    " ON q.id = e.answers AND q.status = 'active'"
                    f" AND {visible_sql('q.audience', 'e.audience')} WHERE e.id = ?",
                    (rowid,),
                )
            )
            if not rows:
                return
            indexed, question = str(rows[0][0]), rows[0][1]
            lent = question_stems(str(question)) if lend and question is not None else ""
            wanted = f"{own} {lent}" if lent else own
            if wanted != indexed:
                await _index_again(db, rowid, indexed, wanted)
        self._terms.forget()

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
                await _leave_question(db, rowid, str(terms), str(text))
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
        return [{"at": _iso(float(r[0])), "kind": r[1], "detail": r[2]} for r in rows]

    async def explain(self, rowid: int) -> dict[str, Any]:
        found = await self._details("WHERE e.id = ?", (rowid,))
        if not found:
            return {}
        return {**found[0], "history": await self.history(rowid)}

    async def export(self) -> list[dict[str, Any]]:
        """Every episode, every status, oldest first."""
        return await self._details("ORDER BY e.id", ())

    async def _details(self, where: str, params: Sequence[Any]) -> list[dict[str, Any]]:
        rows = await self._conn._all(f"SELECT {_COLUMNS}, e.status FROM episodes e {where}", params)
        found = []
        for row in rows:
            episode = _row(row)
            found.append(
                {
                    "id": episode_id(episode.rowid),
                    "kind": "episode",
                    "speaker": episode.speaker,
                    "text": episode.text,
                    "audience": episode.audience,
                    "platform": episode.platform,
                    "said": _iso(episode.at),
                    "last_seen": _iso(episode.last_seen),
                    "reinforced": episode.reinforced,
                    "status": str(row[8]),
                    "citation": format_citation(episode.item()),
                }
            )
        return found

    async def counts(self) -> dict[str, int]:
        rows = await self._conn._all("SELECT status, COUNT(*) FROM episodes GROUP BY status")
        return {str(r[0]): int(r[1]) for r in rows}

    # -- vectors ------------------------------------------------------------------------------

    async def vectors(
        self, model: str, dim: int, *, after: int = 0, limit: int = -1
    ) -> StoredVectors:
        """What the episode index holds: the vectors of the episodes that their sentences do
        not find (none of ``model``, or as many as :data:`MAX_SENTENCES`, so perhaps not all
        of them); a long message's own vector, in the store, still scores it."""
        return await self._conn.vectors(
            model, dim, of="episodes", after=after, limit=limit, unless=_FOUND_BY_SENTENCES
        )

    async def without_vectors(
        self, model: str, dim: int, *, through: int | None = None
    ) -> list[tuple[int, str, str]]:
        return await self._conn.without_vectors(model, dim, of="episodes", through=through)

    async def standing(self, rowids: Sequence[int]) -> dict[int, tuple[bool, str]]:
        return await self._conn.standing(rowids, of="episodes")

    async def put_vectors(self, rowids: Sequence[int], vectors: Any, model: str) -> None:
        await self._conn.put_vectors(rowids, vectors, model, of="episodes")

    async def cosines(self, model: str, query: Matrix, rowids: Sequence[int]) -> dict[int, float]:
        return await self._conn.cosines(model, query, rowids, of="episodes")

    async def sentence_vectors(
        self, model: str, dim: int, *, after: int = 0, limit: int = -1
    ) -> StoredVectors:
        return await self._conn.vectors(model, dim, of="sentences", after=after, limit=limit)

    async def put_sentence_vectors(
        self,
        episodes: Sequence[int],
        vectors: Any,
        model: str,
        *,
        filled_through: int | None = None,
    ) -> list[int]:
        return await self._conn.put_sentence_vectors(
            episodes, vectors, model, filled_through=filled_through
        )

    async def sentences_filled_through(self, model: str) -> int:
        """The episode up to which every one has its sentence vectors of ``model`` (0: none)."""
        rows = await self._conn._all("SELECT through FROM sentence_fill WHERE model = ?", (model,))
        return int(rows[0][0]) if rows else 0

    async def unsplit_episodes(
        self, model: str, *, after: int, through: int, limit: int
    ) -> list[tuple[int, str]]:
        """(rowid, text) of the first ``limit`` active episodes after ``after`` and up to
        ``through`` that have no sentence vector of ``model``, in rowid order."""
        rows = await self._conn._all(
            "SELECT id, text FROM episodes e WHERE id > ? AND id <= ? AND status = 'active'"
            " AND NOT EXISTS (SELECT 1 FROM sentence_vectors s WHERE s.episode_id = e.id"
            " AND s.model = ?) ORDER BY id LIMIT ?",
            (after, through, model, limit),
        )
        return [(int(r[0]), str(r[1])) for r in rows]

    async def last_episode(self) -> int:
        """The newest episode's rowid (0: none yet)."""
        return await self._conn.newest(of="episodes")

    async def sentence_cosines(
        self, model: str, query: Matrix, episodes: Sequence[int]
    ) -> dict[int, float]:
        """Each of ``episodes``' closest sentence's exact cosine with ``query``."""
        return await self._conn.cosines(model, query, episodes, of="sentences")

    async def episodes_of_sentences(self, sentences: Sequence[int]) -> dict[int, int]:
        """The episode of each of the ``sentences`` rows."""
        if not sentences:
            return {}
        marks = ",".join("?" * len(sentences))
        rows = await self._conn._all(
            f"SELECT id, episode_id FROM sentence_vectors WHERE id IN ({marks})", list(sentences)
        )
        return {int(row[0]): int(row[1]) for row in rows}

    async def sentences_of_episodes(self, episodes: Sequence[int], model: str) -> dict[int, int]:
        """The ``sentences`` rows of ``model`` of each of ``episodes``: row -> its episode."""
        found: dict[int, int] = {}
        for start in range(0, len(episodes), _ASKED):
            asked = list(episodes[start : start + _ASKED])
            marks = ",".join("?" * len(asked))
            rows = await self._conn._all(
                "SELECT id, episode_id FROM sentence_vectors"
                f" WHERE model = ? AND episode_id IN ({marks})",
                [model, *asked],
            )
            found.update((int(row[0]), int(row[1])) for row in rows)
        return found

    async def sentences_of_episode(self, episode: int) -> list[int]:
        """The ``sentences`` rows of ``episode``, of every model."""
        rows = await self._conn._all(
            "SELECT id FROM sentence_vectors WHERE episode_id = ?", (episode,)
        )
        return [int(row[0]) for row in rows]


_EVENT = "INSERT INTO episode_events (episode_id, at, kind, detail) VALUES (?, ?, ?, ?)"


async def _event_in(
    db: aiosqlite.Connection, rowid: int, kind: str, detail: str, *, at: float | None
) -> None:
    """A line of episode ``rowid``'s history, in the caller's transaction."""
    await db.execute(_EVENT, (rowid, time.time() if at is None else at, kind, detail))


async def _leave_question(db: aiosqlite.Connection, rowid: int, indexed: str, text: str) -> None:
    """Answer ``rowid``, indexed by ``indexed``, leaves its question for good and keeps the
    stems of its own ``text`` alone: it went where the two were never heard together."""
    own = index_terms(text)
    if own != indexed:
        await _index_again(db, rowid, indexed, own)
    await db.execute("UPDATE episodes SET answers = NULL WHERE id = ?", (rowid,))


async def _index_again(db: aiosqlite.Connection, rowid: int, indexed: str, terms: str) -> None:
    """Episode ``rowid``, indexed by ``indexed``, indexed by ``terms`` instead (the index
    holds no text of its own: the old stems are taken out by name)."""
    await db.execute(
        "INSERT INTO episodes_fts (episodes_fts, rowid, terms) VALUES ('delete', ?, ?)",
        (rowid, indexed),
    )
    await db.execute("UPDATE episodes SET terms = ? WHERE id = ?", (terms, rowid))
    await db.execute("INSERT INTO episodes_fts (rowid, terms) VALUES (?, ?)", (rowid, terms))
