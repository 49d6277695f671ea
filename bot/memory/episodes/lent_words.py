"""The words a person's answer borrows from the persona's question, as the store keeps them.

A person's message that answers the persona's question is indexed with the question's stems
too (:mod:`bot.memory.episodes.question_asked`), and records the question it answers
(``episodes.answers``). These statements decide and rewrite an answer's index stems: while the
answer still hears its question (:meth:`LentWords.question_heard`), when either side is
forgotten or shared (:meth:`LentWords.reindex`), when an answer leaves its question for good
(:func:`leave_question`), once for the messages kept before ``memory.db`` v11
(:meth:`LentWords.settle_old_words`), and once for those kept before v12 that name the one
they speak to (:meth:`LentWords.renew_addressed`). The index holds no text of its own, so
each rewrite names the exact stems it takes out (:func:`index_again`), read in the
transaction that writes.
"""

from __future__ import annotations

import aiosqlite

from bot.memory.addressed_names import message_terms, unaddressed
from bot.memory.episodes.question_asked import index_answers_again, question_stems
from bot.memory.reinforcement import visible_sql, visible_wherever
from bot.memory.sqlite.connection import labels_in
from bot.memory.sqlite.term_counts import TermCounts
from bot.memory.sqlite.vector_rows import VectorRows

__all__ = ["LentWords", "index_again", "leave_question"]

_BATCH = 500


class LentWords:
    """The lent-words statements of :class:`~bot.memory.episodes.store.EpisodeStore`."""

    _conn: VectorRows
    #: words' document counts in the episodes' index, forgotten when stems change
    _terms: TermCounts

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
                        await leave_question(db, int(rowid), str(terms), str(text))
                        settled += 1
                await db.executemany(
                    "DELETE FROM old_words WHERE episode_id = ?", [(row[0],) for row in rows]
                )
            self._terms.forget()
        return settled

    async def renew_addressed(self) -> int:
        """Index again, without the names said to the one spoken to
        (:mod:`bot.memory.addressed_names`), each message of ``renew_words`` that holds one, and
        what answers it (a question lends its words without them too), emptying the table;
        how many were indexed again. A batch leaves the table once it is done, so an open
        cut short goes on where it stopped."""
        renewed = 0
        while rows := await self._conn._all(
            "SELECT r.episode_id, e.text FROM renew_words r LEFT JOIN episodes e"
            f" ON e.id = r.episode_id ORDER BY r.episode_id LIMIT {_BATCH}"
        ):
            for rowid, text in rows:
                if text is not None and unaddressed(str(text)) != str(text):
                    await self.reindex(int(rowid), message_terms(str(text)), lend=True)
                    await index_answers_again(self, int(rowid))
                    renewed += 1
            async with self._conn._tx() as db:
                await db.executemany(
                    "DELETE FROM renew_words WHERE episode_id = ?", [(row[0],) for row in rows]
                )
        return renewed

    async def question_heard(self, rowid: int, audience: str) -> str | None:
        """The text of episode ``rowid`` if it is active and every audience that sees a
        message of ``audience`` sees it too: a direct room's answer hears its question
        wherever it is (a direct room sees everything: a question shared, or made a room's,
        still lends to it), a shared room's while it is the room's or shared (a room's
        answer takes no words of a question made private or another room's since). That
        is safe because an answer is linked to its question only where both were said: one
        given another label leaves it (:meth:`~bot.memory.episodes.store.EpisodeStore.share`;
        a repeat gives none), and those linked before v11 were settled
        (:meth:`settle_old_words`)."""
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
                await index_again(db, rowid, indexed, wanted)
        self._terms.forget()


async def leave_question(db: aiosqlite.Connection, rowid: int, indexed: str, text: str) -> None:
    """Answer ``rowid``, indexed by ``indexed``, leaves its question for good and keeps the
    stems of its own ``text`` alone: it went where the two were never heard together."""
    own = message_terms(text)
    if own != indexed:
        await index_again(db, rowid, indexed, own)
    await db.execute("UPDATE episodes SET answers = NULL WHERE id = ?", (rowid,))


async def index_again(db: aiosqlite.Connection, rowid: int, indexed: str, terms: str) -> None:
    """Episode ``rowid``, indexed by ``indexed``, indexed by ``terms`` instead (the index
    holds no text of its own: the old stems are taken out by name)."""
    await db.execute(
        "INSERT INTO episodes_fts (episodes_fts, rowid, terms) VALUES ('delete', ?, ?)",
        (rowid, indexed),
    )
    await db.execute("UPDATE episodes SET terms = ? WHERE id = ?", (terms, rowid))
    await db.execute("INSERT INTO episodes_fts (rowid, terms) VALUES (?, ?)", (rowid, terms))
