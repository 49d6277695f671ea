"""The question a message answers: the persona asked it just before, and its words are indexed
with the answer.

"Hotel Dieu, Thursday at eight" answers "Which hospital is doing the cataract surgery?", and
says nothing of surgery itself: asked later "Where is my cataract surgery?", BM25 could find the
question but never the answer. So a person's message is indexed (its stems, never its text)
with the words of the question the persona asked just before: in the persona's last message
to the same audience (a group room, or the persona's direct rooms) on the same platform, said
or said again there within :data:`ANSWER_WINDOW`, the last sentence that asks something, if
it says enough to be about something (:data:`MIN_QUESTION_WORDS` telling words: "Sleep
well?" and "Was it any good?" lend nothing; no earlier question is taken instead). The
message records the question it answers (``episodes.answers``, ``memory.db`` v10). The
persona's last message to each audience is kept in memory as it is stored (with the stems
its question lends), so turns given one time still pair each answer with the question
before it, never with the persona's answer to it; a message said just after a restart
answers nothing said before it.

A question forgotten, or an audience changed, has its answers indexed again
(:func:`index_answers_again`, called by ``Episodes.forget`` and ``share``): first
without the question's words, then with them only while the question is active and, for a
shared room's answer, the room's or shared (a direct room's answer hears it wherever it is: a
direct room sees everything; ``EpisodeStore.question_heard``), under the lock that also
covers looking a question up and storing its answer. An answer is linked to its question
where both were said; an answer given any label but a direct room's (shared, or a room's)
leaves its question for good, with its own words alone, in the transaction that gives it
(``EpisodeStore.share``; words another process lent it meanwhile go too): its new audience
never heard the two together, even if it sees both. A message said again keeps its audience
(a shared room's repeat of another audience's message is a message of its own), so a repeat
changes no answer's words. So
a forgotten question lends nothing, a message shared with a room keeps no words of any
question, a room's answer loses them while its
question is made private or another room's, a question the persona asks again in a shared
room still lends to the answers it had in a direct room, and a forget or a share that fails
between the steps leaves fewer words, never more. The store decides each answer's stems from
the answer and its question as they are in the write transaction that writes them
(``EpisodeStore.reindex``, :func:`~bot.memory.reinforcement.visible_sql`): a change another
process made meanwhile is taken into account, and the index's delete names the stems it
holds. A message is stored with the words of the question before it only if
the store says that question is still heard where the message is (it may have been
forgotten or shared since, by another process too: ``personad memory``). The messages said
before v11, but a direct room's answers linked to their questions, are given their own words
alone once, when the file opens (``EpisodeStore.settle_old_words``): where the words they
took were heard is not known.

Measured with ``bench/recall_quality.py`` (write path, recall@5, tuning / held-out), BM25
alone: set D 0.470 (0.482 / 0.457) -> 0.488 (0.500 / 0.476), set B 0.354 (0.365 / 0.342) ->
0.362 (0.365 / 0.358), set A 0.690 -> 0.688 (one question of 336); with e5 set A 0.914 ->
0.915, set B 0.608 -> 0.610 (0.608 / 0.612), set D as it was (0.658). Of the four
questions of set D that rose, one has its evidence in an answer to such a question ("E Cabo
Verde, sempre em outubro?" "Sim, já está marcado! De 5 a 15 de outubro"); the other three
rose with the index's word counts. Questions of one or two telling words as well gave set D
0.494 and 0.491 and cost sets A and B up to 0.014: their persona asks the same short
questions of every message ("Sleep well?"), whose words then stood in messages about other
things.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from bot.daemon.disk import run_on_text
from bot.memory.sentences import split_sentences
from bot.memory.sqlite.query import query_tokens, telling
from bot.memory.sqlite.stemming import index_terms

__all__ = [
    "ANSWER_WINDOW",
    "MIN_QUESTION_WORDS",
    "LastAsked",
    "index_answers_again",
    "question_in",
    "question_stems",
]

ANSWER_WINDOW = 30 * 60.0
"""Seconds within which a message may answer the persona's question before it."""

MIN_QUESTION_WORDS = 3
"""Telling words (three letters or more, not a stopword, not a number) a question needs."""


def question_in(reply: str) -> str | None:
    """The last sentence of ``reply`` that asks something, if it has
    :data:`MIN_QUESTION_WORDS` telling words; else None (an earlier question is not looked
    for: the last is the one answered)."""
    for sentence in reversed(split_sentences(reply)):
        if not sentence.rstrip().endswith("?"):
            continue
        words = sum(telling(word) for word in query_tokens(sentence))
        return sentence if words >= MIN_QUESTION_WORDS else None
    return None


def question_stems(reply: str) -> str:
    """The index stems :func:`question_in` lends a message that answers ``reply`` ("": none)."""
    question = question_in(reply)
    return index_terms(question) if question else ""


class LastAsked(NamedTuple):
    """The persona's last message to one audience on one platform, said or said again."""

    rowid: int
    at: float
    #: the stems its question lends an answer ("": it asks nothing that lends)
    lends: str

    def answered_at(self, at: float) -> bool:
        """Whether a person's message at ``at`` answers its question."""
        return bool(self.lends) and at - ANSWER_WINDOW <= self.at <= at


class _Answers(Protocol):
    async def answers_to(self, rowid: int) -> list[tuple[int, str]]: ...

    async def reindex(self, rowid: int, own: str, *, lend: bool) -> None: ...


async def index_answers_again(store: _Answers, rowid: int, *, lend: bool = True) -> None:
    """Index again the messages that answer episode ``rowid`` (and it, if it answers one):
    with their question's words while they still hear it (``EpisodeStore.question_heard``'s
    rule, judged by the store as it writes), else (and with ``lend`` False, before a change)
    with their own words alone."""
    for answer, text in await store.answers_to(rowid):
        await store.reindex(answer, await run_on_text(text, index_terms), lend=lend)
